import { z } from 'zod';
import type { OutlineEntry } from '../content/outline.ts';
import type { ImageBlock } from '../content/types.ts';
import type { FetchAttempt, ToolErrorData } from '../errors.ts';
import { cacheInputFields } from './cache-age.ts';
import type { CitedPassage } from './focused-read.ts';

// web_fetch's input (what the model may pass) and its success `data`.

/** web_fetch's input fields, a plain object schema (related inputs pick from it). */
export const webFetchInputFields = z.object({
  url: z.string().min(1).describe('The http(s) URL to read, e.g. one returned by web_search.'),
  extractMode: z
    .enum(['markdown', 'text'])
    .optional()
    .describe('markdown (default) keeps headings, lists, tables and links; text drops all markup.'),
  maxChars: z
    .number()
    .int()
    .min(100)
    .max(1_000_000)
    .optional()
    .describe('Most characters to return in this call.'),
  startIndex: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Character offset to continue reading from: pass the nextStartIndex of the previous call.'),
  query: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .optional()
    .describe(
      'The question you are trying to answer from this page. With it, you get only the passages of the page that answer it (verbatim, in page order, each with its character offsets) instead of the first part of the page. Leave it out to read the page in order.',
    ),
  ...cacheInputFields,
});

/** The most URLs one web_fetch call reads (`urls`). */
export const MAX_FETCH_URLS = 20;

/**
 * What web_fetch accepts: its fields with `url` or `urls` (exactly one), `startIndex` (beyond 0) only without
 * `query` and without `urls`.
 */
export const webFetchInputSchema = webFetchInputFields
  .extend({
    url: webFetchInputFields.shape.url.optional(),
    urls: z
      .array(z.string().min(1))
      .min(1)
      .max(MAX_FETCH_URLS)
      .optional()
      .describe(
        `Instead of url: up to ${MAX_FETCH_URLS} URLs read in parallel in one call, one result each, in order, sharing maxChars.`,
      ),
  })
  .refine((input) => (input.url === undefined) !== (input.urls === undefined), {
    path: ['url'],
    message: 'give exactly one of url (one page) and urls (several pages)',
  })
  .refine((input) => input.query === undefined || !input.startIndex, {
    path: ['startIndex'],
    params: { excludes: 'query' },
    message:
      'cannot be combined with query: query picks passages from the whole page; to read on from an offset, call again without query',
  })
  .refine((input) => input.urls === undefined || !input.startIndex, {
    path: ['startIndex'],
    params: { excludes: 'urls' },
    message: 'cannot be combined with urls: to read on in one page, call again with its url and startIndex',
  });

export type WebFetchInput = z.infer<typeof webFetchInputSchema>;

/** One URL of a `urls` call: its page's usual data, or its own error. */
export type WebFetchUrlResult =
  | ({ ok: true } & WebFetchData)
  | { ok: false; url: string; error: ToolErrorData };

/** web_fetch's data for a `urls` call: one result per URL, in input order. */
export interface WebFetchManyData {
  urls: string[];
  results: WebFetchUrlResult[];
  /** URLs read / failed. */
  succeeded: number;
  failed: number;
  /** The call's shared budget (`maxChars`) and the characters returned in all. */
  maxChars: number;
  length: number;
  untrusted: true;
}

export interface WebFetchData {
  url: string;
  finalUrl: string;
  status: number;
  contentType: string;
  charset: string;
  title?: string | undefined;
  byline?: string | undefined;
  publishedAt?: string | undefined;
  language?: string | undefined;
  siteName?: string | undefined;
  /** PDF: pages in the document. */
  pageCount?: number | undefined;
  extractor: string;
  /** The back-end that returned the page (`local`, `browser`, `jina-reader`, …). */
  backend: string;
  /** Every back-end's part: `ok`, `failed` (code, status, why) or `skipped` (why), with its time. */
  attempts?: FetchAttempt[];
  /** What the back-end left out or refused (a browser's blocked sub-requests, a refused download). */
  warnings?: string[];
  /** Text of the document left out of this result (after this window; with `query`, outside the passages). */
  truncated: boolean;
  /** Characters of `text`. */
  length: number;
  totalLength: number;
  /** Where this window starts; 0 with `query`. */
  startIndex: number;
  nextStartIndex?: number;
  untrusted: true;
  /** Served from a cache (the store's, or the in-process one for continuation reads), not downloaded again. */
  cached: boolean;
  /** With `cached`: how long ago the document was fetched from its origin, in whole seconds. */
  cacheAgeSeconds?: number;
  /** The headings of a document longer than one window, with the `startIndex` each starts at. */
  outline?: OutlineEntry[];
  /** An image: the multimodal block the surfaces send (then `text` describes it). */
  image?: ImageBlock;
  /** The `query` asked (not for an image, which has no text of its own to ask). */
  query?: string;
  /**
   * With `query`: the passages that answer it, verbatim and in document order, each with its heading and its
   * citation. When none matched (`queryMatched` false), the page's opening sentences, scored 0; `[]` only for a
   * page without a sentence to pass (then `text` is the first window, as without query).
   */
  passages?: CitedPassage[];
  /** With `query`: whether a passage matched it (false: `passages` are the page's opening sentences). */
  queryMatched?: boolean;
  /** With `query`: characters of the document the passages cover. */
  coveredChars?: number;
  /** With `query`: `sha256:<hex>` of the full extracted document text (what citations name). */
  contentHash?: string;
  /** With `query`: when the document was fetched from its origin (a cached document keeps its first time). */
  retrievedAt?: string;
  /** The window, or with `query` the passages joined by a blank line (PASSAGE_SEPARATOR). */
  text: string;
}
