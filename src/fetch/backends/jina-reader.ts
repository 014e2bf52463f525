import { PeriscopeError } from '../../errors.ts';
import { jsonObject } from '../../services/provider-http.ts';
import { asRecord, optionalText } from '../../services/provider-text.ts';
import type { FetchBackend } from '../fetch-backend.ts';
import { postReaderJson, type ReaderSettings, readerEndpoint, readerPage } from '../reader-http.ts';

const ID = 'jina-reader';
export const JINA_READER_KEY_ENV = ['JINA_API_KEY'] as const;
const DEFAULT_BASE_URL = 'https://r.jina.ai';

/**
 * Jina Reader (r.jina.ai): `POST /` with `{url}`, `Accept: application/json` for the JSON envelope
 * `{code, status, data: {title, url, content, publishedTime?, warning?}}`, `X-Return-Format: markdown` (`text` in
 * text mode). The key is optional: without one r.jina.ai serves at its lower anonymous rate. Its other header
 * controls (`X-Engine`, `X-Target-Selector`, `X-Wait-For-Selector`, `X-Timeout`, `X-No-Cache`, …) go in
 * `fetch.backends.jina-reader.headers`. A target error is reported in `data.warning` ("Target URL returned error
 * 404: Not Found").
 */
export function createJinaReaderBackend(settings: ReaderSettings): FetchBackend {
  return {
    id: ID,
    kind: 'reader',
    rendersJavaScript: true,
    unavailableReason: () => undefined,
    async fetchPage(request, context) {
      const apiKey = settings.apiKey;
      const body = await postReaderJson(context, settings, {
        backend: ID,
        url: readerEndpoint(ID, settings, DEFAULT_BASE_URL, '/'),
        headers: {
          accept: 'application/json',
          'x-return-format': request.mode === 'text' ? 'text' : 'markdown',
          ...(apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }),
        },
        json: { url: request.url.href },
        secrets: [apiKey],
      });
      const data = asRecord(jsonObject(ID, body).data);
      const content = optionalText(data?.content);
      if (data === undefined || (content === undefined && typeof data.content !== 'string')) {
        throw new PeriscopeError('HTTP_STATUS', `${ID}: the answer has no data.content`, {
          retryable: true,
          details: { provider: ID, reason: 'unexpected-response' },
        });
      }
      const warning = optionalText(data.warning);
      const status = Number(/returned error (\d{3})/i.exec(warning ?? '')?.[1] ?? 200);
      return readerPage({
        backend: ID,
        url: request.url,
        body: { markdown: content ?? '' },
        mode: request.mode,
        title: optionalText(data.title),
        finalUrl: optionalText(data.url),
        status,
        publishedAt: optionalText(data.publishedTime),
      });
    },
  };
}
