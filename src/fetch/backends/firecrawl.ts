import { PeriscopeError } from '../../errors.ts';
import { asRecord, optionalNumber, optionalText } from '../../services/provider-text.ts';
import type { FetchBackend } from '../fetch-backend.ts';
import { createKeyedReader, type ReaderSettings, readerPage } from '../reader-http.ts';

const ID = 'firecrawl';
export const FIRECRAWL_KEY_ENV = ['FIRECRAWL_API_KEY'] as const;
const DEFAULT_BASE_URL = 'https://api.firecrawl.dev';

/**
 * Firecrawl scrape (v2): `POST /v2/scrape` with `{url, formats: ["markdown"], onlyMainContent: true, timeout}` and
 * `Authorization: Bearer fc-…`; the answer is `{success, data: {markdown, metadata: {title, sourceURL, url,
 * statusCode, …}}}`. Errors are `{success: false, error}` with 401, 402 (credits: quota), 429 and 5xx.
 */
export function createFirecrawlBackend(settings: ReaderSettings): FetchBackend {
  return createKeyedReader(
    {
      id: ID,
      keyEnv: FIRECRAWL_KEY_ENV,
      rendersJavaScript: true,
      defaultBaseUrl: DEFAULT_BASE_URL,
      path: '/v2/scrape',
      requestBody: (request) => ({
        url: request.url.href,
        formats: ['markdown'],
        onlyMainContent: true,
        timeout: Math.max(1_000, settings.timeoutMs - 1_000),
      }),
      async readAnswer(body, request) {
        const data = asRecord(body.data);
        if (body.success === false || data === undefined || typeof data.markdown !== 'string') {
          const said = optionalText(body.error) ?? 'no data.markdown in the answer';
          throw new PeriscopeError('HTTP_STATUS', `${ID}: ${said}`, {
            retryable: true,
            details: { provider: ID, reason: 'unexpected-response' },
          });
        }
        const metadata = asRecord(data.metadata);
        return readerPage({
          backend: ID,
          url: request.url,
          body: { markdown: data.markdown },
          mode: request.mode,
          title: optionalText(metadata?.title),
          finalUrl: optionalText(metadata?.url) ?? optionalText(metadata?.sourceURL),
          status: optionalNumber(metadata?.statusCode),
          publishedAt: optionalText(metadata?.publishedTime),
        });
      },
    },
    settings,
  );
}
