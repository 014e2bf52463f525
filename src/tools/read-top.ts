import type { ErrorCode, ToolErrorData } from '../errors.ts';
import type { SearchResult } from '../search/types.ts';
import type { ToolResult } from '../tool-call.ts';
import { type CitedPassage, passagesText } from './focused-read.ts';
import type { ToolExecuteOptions } from './tool.ts';
import type { WebFetchData } from './web-fetch-schema.ts';

/** Characters of passages per page read when `readMaxChars` is not given. */
export const DEFAULT_READ_CHARS_PER_PAGE = 2000;

export interface ReadPageRequest {
  url: string;
  /** The search query: the question the page is read for. */
  query: string;
  /** This page's share of the budget. */
  maxChars: number;
  /** The search's `maxAgeSeconds`: a page read from a cache is no older (web_fetch's rule). */
  maxAgeSeconds?: number;
}

/**
 * Reads one result's page with `query`: web_fetch as the deployment guards it (createPeriscope injects it, so
 * each read is a call under the usual credits, rate limits, repeat throttle and network rules).
 */
export type ReadPage = (
  request: ReadPageRequest,
  options: ToolExecuteOptions,
) => Promise<ToolResult<WebFetchData | { error: ToolErrorData }>>;

/** What `readTop` adds to a result. */
export interface ReadResultFields {
  /** The page's passages that answer the query, with citations (the opening sentences when none matched). */
  passages?: CitedPassage[];
  /** With `passages`: false when none matched the query (they are the page's opening sentences). */
  queryMatched?: boolean;
  /** Why the page could not be read (the search itself succeeded). */
  readError?: { code: ErrorCode; message: string };
}

export type WebSearchResult = SearchResult & ReadResultFields;

export interface ReadTopRequest {
  query: string;
  readTop: number;
  /** All pages together; split evenly. Default DEFAULT_READ_CHARS_PER_PAGE per page. */
  readMaxChars?: number | undefined;
  /** The search's `maxAgeSeconds`, passed on to every page read. */
  maxAgeSeconds?: number | undefined;
}

/**
 * The top `readTop` results read in parallel for the query, each within an even share of one budget, their
 * passages (or the reason they could not be read) attached; the other results as they were.
 */
export async function readTopResults(
  results: readonly SearchResult[],
  request: ReadTopRequest,
  readPage: ReadPage | undefined,
  options: ToolExecuteOptions,
): Promise<{ results: WebSearchResult[]; summary?: string }> {
  const count = Math.min(request.readTop, results.length);
  if (count === 0) return { results: [...results] };
  const budget = request.readMaxChars ?? DEFAULT_READ_CHARS_PER_PAGE * count;
  const maxChars = Math.floor(budget / count);
  const callOptions: ToolExecuteOptions = {
    ...(options.agentId === undefined ? {} : { agentId: options.agentId }),
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.egress === undefined ? {} : { egress: options.egress }),
    ...(options.admittedCall === undefined ? {} : { parentCall: options.admittedCall }),
  };
  const read = await Promise.all(
    results.slice(0, count).map(async (result): Promise<WebSearchResult> => {
      if (!readPage) {
        const message = 'reading results needs web_fetch, which this deployment does not offer';
        return { ...result, readError: { code: 'NOT_CONFIGURED', message } };
      }
      // A result URL is one the task saw (egress.seenUrlsOnly), though this search has not finished recording it.
      const egress = {
        ...callOptions.egress,
        seenUrls: [...(callOptions.egress?.seenUrls ?? []), result.url],
      };
      const { maxAgeSeconds } = request;
      const page = await readPage(
        {
          url: result.url,
          query: request.query,
          maxChars,
          ...(maxAgeSeconds === undefined ? {} : { maxAgeSeconds }),
        },
        { ...callOptions, egress },
      );
      if (page.isError || page.data === undefined || 'error' in page.data) {
        const error = page.data && 'error' in page.data ? page.data.error : undefined;
        return {
          ...result,
          readError: { code: error?.code ?? 'INTERNAL', message: error?.message ?? page.output },
        };
      }
      const { passages = [], queryMatched } = page.data;
      return { ...result, passages, ...(queryMatched === undefined ? {} : { queryMatched }) };
    }),
  );
  const failed = read.filter((result) => result.readError !== undefined).length;
  const pages = `read ${count - failed} page${count - failed === 1 ? '' : 's'}`;
  return {
    results: [...read, ...results.slice(count)],
    summary: failed ? `${pages}, ${failed} failed` : pages,
  };
}

/**
 * What reading added under a result, for the model, inside the results' untrusted envelope (formatWebResults): the
 * passages, page-written, after a line naming the page they were read from; or one line saying none matched or
 * why the page was not read (an error may quote the site). Empty when it was not read.
 */
export function readLines(result: WebSearchResult): string[] {
  if (result.readError) return [`   [Not read: ${result.readError.code}: ${result.readError.message}]`];
  if (!result.passages) return [];
  if (result.passages.length === 0) return ['   [Read: no passage of this page matched the query.]'];
  const source = result.passages[0]?.citation.finalUrl ?? result.url;
  const what =
    result.queryMatched === false
      ? 'no passage matched the query; its opening sentences'
      : 'the passages that answer the query';
  return [`   [Read from ${source}; ${what}:]`, passagesText(result.passages)];
}

/** The closing sentence when results were read: how to read one in full. Undefined when none was. */
export function readTopNote(results: readonly WebSearchResult[]): string | undefined {
  const read = results.filter((result) => result.passages !== undefined || result.readError !== undefined);
  if (read.length === 0) return undefined;
  return (
    `[The top ${read.length} result${read.length === 1 ? ' was' : 's were'} read for the passages that answer the ` +
    "query. To read one in full, call web_fetch with its url (and startIndex set to a passage's start to read on " +
    'from there).]'
  );
}
