import { PeriscopeError } from '../../errors.ts';
import { jsonObject } from '../../search/provider-http.ts';
import { asRecord, optionalNumber, optionalText, records } from '../../search/provider-text.ts';
import type { FetchBackend } from '../fetch-backend.ts';
import {
  missingKeyReason,
  postReaderJson,
  type ReaderSettings,
  readerEndpoint,
  readerPage,
} from '../reader-http.ts';

const ID = 'exa';
export const EXA_KEY_ENV = ['EXA_API_KEY'] as const;
const DEFAULT_BASE_URL = 'https://api.exa.ai';

/**
 * Exa contents: `POST /contents` with `{urls: [url], text: true}` and `x-api-key`; the page is `results[0].text`
 * (with `title`, `url`, `publishedDate`), and `statuses[0]` says when Exa could not read it
 * (`{status: "error", error: {tag, httpStatusCode}}`).
 */
export function createExaBackend(settings: ReaderSettings): FetchBackend {
  return {
    id: ID,
    kind: 'reader',
    rendersJavaScript: false,
    unavailableReason: () => (settings.apiKey === undefined ? missingKeyReason(ID, EXA_KEY_ENV) : undefined),
    async fetchPage(request, context) {
      const apiKey = settings.apiKey ?? '';
      const body = jsonObject(
        ID,
        await postReaderJson(context, settings, {
          backend: ID,
          url: readerEndpoint(ID, settings, DEFAULT_BASE_URL, '/contents'),
          headers: { 'x-api-key': apiKey },
          json: { urls: [request.url.href], text: true },
          secrets: [apiKey],
        }),
      );
      const status = records(body.statuses)[0];
      const error = asRecord(status?.error);
      if (status?.status === 'error') {
        const originStatus = optionalNumber(error?.httpStatusCode);
        const tag = optionalText(error?.tag) ?? 'error';
        throw new PeriscopeError(
          'HTTP_STATUS',
          `${ID}: could not read ${request.url.href} (${tag}${originStatus ? `, HTTP ${originStatus}` : ''})`,
          {
            retryable: originStatus === undefined || originStatus >= 500 || originStatus === 429,
            details: {
              provider: ID,
              reason: 'reader-failed',
              ...(originStatus ? { status: originStatus } : {}),
            },
          },
        );
      }
      const result = records(body.results)[0];
      if (result === undefined || typeof result.text !== 'string') {
        throw new PeriscopeError('HTTP_STATUS', `${ID}: no results[0].text in the answer`, {
          retryable: true,
          details: { provider: ID, reason: 'unexpected-response' },
        });
      }
      return readerPage({
        backend: ID,
        url: request.url,
        body: { markdown: result.text },
        mode: request.mode,
        title: optionalText(result.title),
        finalUrl: optionalText(result.url),
        publishedAt: optionalText(result.publishedDate),
      });
    },
  };
}
