import {
  type CitationDocument,
  type VerifyCitationResult,
  verifyCitation,
} from '../citations/verify-citation.ts';
import type { ExtractMode } from '../content/types.ts';
import { isPeriscopeError, PeriscopeError, type ToolErrorData } from '../errors.ts';
import { parseCallerUrl } from '../net/caller-url.ts';
import type { DocumentFetchData, DocumentFetchInput } from './document-fetch-tool.ts';
import type { DocumentReader } from './document-reader.ts';
import type { Tool, ToolExecuteOptions } from './tool.ts';

export interface CitationCheckerSettings {
  /** web_fetch's read path: its caches and chain (src/tools/document-reader.ts). */
  reader: DocumentReader;
  /** The same reads as a web_fetch call, behind the call policy: for every read that may reach the network. */
  fetchDocument: Tool<DocumentFetchInput, DocumentFetchData>;
  /** `tools.web_fetch.enabled`: when off, only cached pages can be checked. */
  isFetchEnabled: boolean;
  /** `fetch.extractMode`: the mode offsets count in when the citation names none. */
  extractMode: ExtractMode;
}

export type CitationChecker = (
  input: Parameters<typeof verifyCitation>[0],
  options?: ToolExecuteOptions,
) => Promise<VerifyCitationResult>;

/**
 * verifyCitation as a Periscope runs it: cache first, free (the in-process documents, then the store's page cache);
 * a miss, or `refetch`, is a web_fetch call under the policy (network rules, limits, credits, usage); `cacheOnly`
 * never fetches.
 */
export function createCitationChecker(settings: CitationCheckerSettings): CitationChecker {
  async function read(
    url: string,
    mode: ExtractMode,
    source: { refetch: boolean; cacheOnly: boolean },
    options: ToolExecuteOptions,
  ): Promise<CitationDocument> {
    const parsed = parseCallerUrl(url);
    if (!source.refetch) {
      try {
        const { page } = await settings.reader.read(parsed, mode, {
          source: 'cache',
          signal: options.signal,
          agentId: options.agentId,
        });
        return { text: page.content.text, finalUrl: page.finalUrl, fromCache: true };
      } catch (error) {
        if (source.cacheOnly || !isPeriscopeError(error) || error.details.reason !== 'not-cached')
          throw error;
      }
    }
    if (!settings.isFetchEnabled) {
      throw new PeriscopeError(
        'NOT_CONFIGURED',
        'web_fetch is switched off in this deployment (tools.web_fetch.enabled), so a page not in the cache cannot be read',
      );
    }
    const input: DocumentFetchInput = {
      url,
      extractMode: mode,
      ...(source.refetch ? { refetch: true } : {}),
    };
    const result = await settings.fetchDocument.execute(input, options);
    if (result.isError) throw fromErrorData((result.data as { error: ToolErrorData }).error);
    const data = result.data as DocumentFetchData;
    return { text: data.text, finalUrl: data.finalUrl, fromCache: data.cached };
  }
  return (input, options = {}) =>
    verifyCitation(input, (url, mode, source) => read(url, mode, source, options), {
      extractMode: settings.extractMode,
    });
}

/** A failed tool call's error, as the error it was (verifyCitation reports it as the page's). */
function fromErrorData(error: ToolErrorData): PeriscopeError {
  return new PeriscopeError(error.code, error.message, {
    retryable: error.retryable,
    retryAfterMs: error.retryAfterMs,
    ...(error.details ? { details: error.details } : {}),
  });
}
