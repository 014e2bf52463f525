import { optionalText } from '../../services/provider-text.ts';
import type { FetchBackend } from '../fetch-backend.ts';
import { createKeyedReader, type ReaderSettings, readerPage } from '../reader-http.ts';

const ID = 'infoquest';
export const INFOQUEST_KEY_ENV = ['INFOQUEST_API_KEY'] as const;
const DEFAULT_BASE_URL = 'https://reader.infoquest.bytepluses.com';

/**
 * BytePlus InfoQuest reader: `POST /` with `{url, format: "HTML", timeout}` and `Authorization: Bearer`; the answer
 * is `{reader_result: "<html>…"}` (fallback field `content`), which goes through the local HTML pipeline (main
 * content, Markdown, the shell and challenge verdicts). An empty answer means "no result": EMPTY_CONTENT.
 * The shapes come from DeerFlow's client and its test mocks (no public recording exists).
 */
export function createInfoquestBackend(settings: ReaderSettings): FetchBackend {
  return createKeyedReader(
    {
      id: ID,
      keyEnv: INFOQUEST_KEY_ENV,
      rendersJavaScript: true,
      defaultBaseUrl: DEFAULT_BASE_URL,
      requestBody: (request) => ({
        url: request.url.href,
        format: 'HTML',
        timeout: Math.max(1, Math.floor(settings.timeoutMs / 1000) - 1),
      }),
      async readAnswer(body, request) {
        const html = optionalText(body.reader_result) ?? optionalText(body.content) ?? '';
        return readerPage({ backend: ID, url: request.url, body: { html }, mode: request.mode });
      },
    },
    settings,
  );
}
