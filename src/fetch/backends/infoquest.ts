import { jsonObject } from '../../search/provider-http.ts';
import { optionalText } from '../../search/provider-text.ts';
import type { FetchBackend } from '../fetch-backend.ts';
import {
  missingKeyReason,
  postReaderJson,
  type ReaderSettings,
  readerEndpoint,
  readerPage,
} from '../reader-http.ts';

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
  return {
    id: ID,
    kind: 'reader',
    rendersJavaScript: true,
    unavailableReason: () =>
      settings.apiKey === undefined ? missingKeyReason(ID, INFOQUEST_KEY_ENV) : undefined,
    async fetchPage(request, context) {
      const apiKey = settings.apiKey ?? '';
      const body = jsonObject(
        ID,
        await postReaderJson(context, settings, {
          backend: ID,
          url: readerEndpoint(ID, settings, DEFAULT_BASE_URL),
          headers: { authorization: `Bearer ${apiKey}` },
          json: {
            url: request.url.href,
            format: 'HTML',
            timeout: Math.max(1, Math.floor(settings.timeoutMs / 1000) - 1),
          },
          secrets: [apiKey],
        }),
      );
      const html = optionalText(body.reader_result) ?? optionalText(body.content) ?? '';
      return readerPage({ backend: ID, url: request.url, body: { html }, mode: request.mode });
    },
  };
}
