import { isPeriscopeError, PeriscopeError, toPeriscopeError } from '../../errors.ts';
import type { HttpResponse } from '../../net/types.ts';
import { redactUrl } from '../../net/url-policy.ts';
import { defaultFailureKind, providerError, readProviderError } from '../../services/provider-errors.ts';
import { retryAfterFromHeaders } from '../../services/provider-headers.ts';
import { asRecord, optionalNumber, optionalText } from '../../services/provider-text.ts';
import type { FetchBackend } from '../fetch-backend.ts';
import { type ReaderSettings, readerPage, withDeadline } from '../reader-http.ts';

const ID = 'service';
export const SERVICE_KEY_ENV = ['PERISCOPE_FETCH_SERVICE_KEY'] as const;
export const SERVICE_URL_ENV = ['PERISCOPE_FETCH_SERVICE_URL'] as const;

export interface ServiceSettings extends ReaderSettings {
  /** Header that carries the tool call's id; undefined sends none. */
  toolCallIdHeader?: string | undefined;
}

/**
 * A generic hosted fetch service: `POST <baseUrl>` with `{url, format: "markdown"|"text"}`, `Authorization: Bearer
 * <key>` when a key is set, the configured headers, and the tool call's id in `toolCallIdHeader`. The answer is
 * Markdown (`text/markdown` or `text/plain`), or JSON `{markdown|content|text, title?, url?, status?}` (also under
 * `data`). Failures use the shared status mapping (401/403 refused key, 402 quota, 429, 5xx).
 */
export function createServiceBackend(settings: ServiceSettings): FetchBackend {
  return {
    id: ID,
    kind: 'reader',
    rendersJavaScript: false,
    unavailableReason: () =>
      settings.baseUrl === undefined
        ? `service has no endpoint (set fetch.backends.service.baseUrl or ${SERVICE_URL_ENV[0]})`
        : undefined,
    async fetchPage(request, context) {
      const endpoint = settings.baseUrl ?? '';
      const fetch = withDeadline(context.fetch, settings.timeoutMs);
      const headers: Record<string, string> = {
        accept: 'text/markdown, application/json;q=0.9, text/plain;q=0.8',
        'content-type': 'application/json',
        ...settings.headers,
      };
      if (settings.apiKey !== undefined) headers.authorization = `Bearer ${settings.apiKey}`;
      if (settings.toolCallIdHeader !== undefined && request.toolCallId !== undefined) {
        headers[settings.toolCallIdHeader.toLowerCase()] = request.toolCallId;
      }
      let response: HttpResponse;
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          headers,
          body: JSON.stringify({ url: request.url.href, format: request.mode }),
          signal: context.signal,
          trusted: true,
        });
      } catch (error) {
        const reason: unknown = context.signal.reason;
        if (context.signal.aborted && isPeriscopeError(reason) && reason.code !== 'ABORTED') throw reason;
        const failure = toPeriscopeError(error);
        throw new PeriscopeError(failure.code, `${ID}: ${failure.message}`, {
          retryable: failure.retryable,
          retryAfterMs: failure.retryAfterMs,
          details: { ...failure.details, provider: ID },
          cause: failure,
        });
      }
      const text = Buffer.from(response.body).toString('utf8');
      if (response.status >= 400) throw statusError(response, text, settings.apiKey);
      const answer = parseAnswer(response, text);
      return readerPage({
        backend: ID,
        url: request.url,
        body: { markdown: answer.markdown },
        mode: request.mode,
        title: answer.title,
        finalUrl: answer.finalUrl,
        status: answer.status,
      });
    },
  };
}

interface ServiceAnswer {
  markdown: string;
  title?: string | undefined;
  finalUrl?: string | undefined;
  status?: number | undefined;
}

function parseAnswer(response: HttpResponse, text: string): ServiceAnswer {
  const type = response.headers['content-type'] ?? '';
  if (!/\bjson\b/i.test(type)) return { markdown: text };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new PeriscopeError('HTTP_STATUS', `${ID}: returned malformed JSON (HTTP ${response.status})`, {
      retryable: true,
      details: { provider: ID, reason: 'malformed-json' },
      cause: error,
    });
  }
  const root = asRecord(parsed);
  const record = asRecord(root?.data) ?? root;
  const markdown = [record?.markdown, record?.content, record?.text].find(
    (value) => typeof value === 'string',
  );
  if (typeof markdown !== 'string') {
    throw new PeriscopeError('HTTP_STATUS', `${ID}: the JSON answer has no markdown, content or text`, {
      retryable: true,
      details: { provider: ID, reason: 'unexpected-response' },
    });
  }
  return {
    markdown,
    title: optionalText(record?.title),
    finalUrl: optionalText(record?.finalUrl) ?? optionalText(record?.url),
    status: optionalNumber(record?.status) ?? optionalNumber(record?.statusCode),
  };
}

function statusError(response: HttpResponse, text: string, apiKey: string | undefined): PeriscopeError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const read = readProviderError(body);
  const plain = body === undefined ? text.trim().slice(0, 200) || undefined : undefined;
  const said = read.message ?? plain;
  const message = apiKey && apiKey.length >= 4 && said ? said.replaceAll(apiKey, '***') : said;
  return providerError(
    ID,
    defaultFailureKind(response.status),
    { status: response.status, code: read.code, message, body },
    {
      url: redactUrl(response.finalUrl),
      method: 'POST',
      statusText: response.statusText,
      retryAfterMs: retryAfterFromHeaders(response.headers),
    },
  );
}
