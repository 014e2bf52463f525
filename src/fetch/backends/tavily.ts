import { PeriscopeError } from '../../errors.ts';
import type { ProviderErrorRules } from '../../services/provider-errors.ts';
import { optionalText, records } from '../../services/provider-text.ts';
import type { FetchBackend } from '../fetch-backend.ts';
import { createKeyedReader, type ReaderSettings, readerPage } from '../reader-http.ts';

const ID = 'tavily';
export const TAVILY_KEY_ENV = ['TAVILY_API_KEY'] as const;
const DEFAULT_BASE_URL = 'https://api.tavily.com';

/** 432 (plan limit) and 433 (pay-as-you-go limit) are quota statuses. */
const ERRORS: ProviderErrorRules = {
  classify: ({ status }) => (status === 432 || status === 433 ? 'quota' : undefined),
};

/**
 * Tavily extract: `POST /extract` with `{urls: [url], extract_depth: "basic", format: "markdown"|"text",
 * include_images: false}` and `Authorization: Bearer tvly-…`; the page is `results[0].raw_content`, a page Tavily
 * could not read is in `failed_results[0].error`.
 */
export function createTavilyBackend(settings: ReaderSettings): FetchBackend {
  return createKeyedReader(
    {
      id: ID,
      keyEnv: TAVILY_KEY_ENV,
      rendersJavaScript: false,
      defaultBaseUrl: DEFAULT_BASE_URL,
      path: '/extract',
      errors: ERRORS,
      requestBody: (request) => ({
        urls: [request.url.href],
        extract_depth: 'basic',
        format: request.mode === 'text' ? 'text' : 'markdown',
        include_images: false,
      }),
      async readAnswer(body, request) {
        const result = records(body.results)[0];
        const rawContent = result?.raw_content;
        if (result === undefined || typeof rawContent !== 'string') {
          const failed = records(body.failed_results)[0];
          const said = optionalText(failed?.error) ?? 'no results[0].raw_content in the answer';
          throw new PeriscopeError('HTTP_STATUS', `${ID}: could not extract ${request.url.href}: ${said}`, {
            retryable: true,
            details: { provider: ID, reason: failed ? 'reader-failed' : 'unexpected-response' },
          });
        }
        return readerPage({
          backend: ID,
          url: request.url,
          body: { markdown: rawContent },
          mode: request.mode,
          finalUrl: optionalText(result.url),
        });
      },
    },
    settings,
  );
}
