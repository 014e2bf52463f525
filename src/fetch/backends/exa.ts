import { PeriscopeError } from '../../errors.ts';
import { asRecord, optionalNumber, optionalText, records } from '../../services/provider-text.ts';
import type { FetchBackend } from '../fetch-backend.ts';
import { createKeyedReader, type ReaderSettings, readerPage } from '../reader-http.ts';

const ID = 'exa';
export const EXA_KEY_ENV = ['EXA_API_KEY'] as const;
const DEFAULT_BASE_URL = 'https://api.exa.ai';

/**
 * Exa contents: `POST /contents` with `{urls: [url], text: true}` and `x-api-key`; the page is `results[0].text`
 * (with `title`, `url`, `publishedDate`), and `statuses[0]` says when Exa could not read it
 * (`{status: "error", error: {tag, httpStatusCode}}`).
 */
export function createExaBackend(settings: ReaderSettings): FetchBackend {
  return createKeyedReader(
    {
      id: ID,
      keyEnv: EXA_KEY_ENV,
      rendersJavaScript: false,
      defaultBaseUrl: DEFAULT_BASE_URL,
      path: '/contents',
      keyHeader: (apiKey) => ({ 'x-api-key': apiKey }),
      requestBody: (request) => ({ urls: [request.url.href], text: true }),
      async readAnswer(body, request) {
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
    },
    settings,
  );
}
