import { headingsFrom, type OutlineEntry } from '../content/outline.ts';
import type { PageWindow } from '../content/paginate.ts';

// The parts of web_fetch's output around the page text: the header and section list (page-written, inside the
// untrusted envelope) and our own sentences after it, each built from `data` alone so a surface that speaks to
// people (the CLI) can tell them apart and say the same in its own terms.

/** Headings named in the "read on" hint. */
const HINT_HEADINGS = 5;

/** What the header shows: the page's metadata, all of it in `data`. */
export interface PageHeaderFields {
  title?: string | undefined;
  finalUrl: string;
  byline?: string | undefined;
  publishedAt?: string | undefined;
  siteName?: string | undefined;
  pageCount?: number | undefined;
}

/** Title, address and the metadata the page declares: inside the envelope, since the page wrote them. */
export function pageHeader(data: PageHeaderFields): string {
  const lines = [
    data.title ? `Title: ${data.title}` : undefined,
    `URL: ${data.finalUrl}`,
    data.byline ? `By: ${data.byline}` : undefined,
    data.publishedAt ? `Published: ${data.publishedAt}` : undefined,
    data.siteName ? `Site: ${data.siteName}` : undefined,
    data.pageCount === undefined ? undefined : `Pages: ${data.pageCount}`,
  ];
  return lines.filter((line) => line !== undefined).join('\n');
}

/** The sections that come after this window, with their offsets: page headings, so inside the envelope. */
export function sectionsAfter(window: PageWindow, outline: readonly OutlineEntry[]): string | undefined {
  const next = headingsFrom(outline, window.startIndex + window.length, HINT_HEADINGS)
    .map((entry) => `"${entry.title}" (startIndex=${entry.offset})`)
    .join(', ');
  return next ? `[Sections after this point: ${next}.]` : undefined;
}

/** What the read-on sentence is made of: the window's place in the document, all of it in `data`. */
export interface ReadOnPosition {
  startIndex: number;
  length: number;
  totalLength: number;
  nextStartIndex?: number | undefined;
  outline?: readonly OutlineEntry[] | undefined;
}

/** Whether the content lists the sections that come after this window (`sectionsAfter`). */
export function listsSectionsAfter(position: ReadOnPosition): boolean {
  return (
    headingsFrom(position.outline ?? [], position.startIndex + position.length, HINT_HEADINGS).length > 0
  );
}

/**
 * Where this window ends and how to go on, for the model: numbers only, no page text, so it can follow the
 * envelope. The last line of a truncated result's output; built from `data` alone, so a surface that speaks to
 * people (the CLI) can tell it apart and say the same in its own terms.
 */
export function readOnHint(position: ReadOnPosition): string {
  const end = position.startIndex + position.length;
  return (
    `[Showing characters ${position.startIndex}–${end} of ${position.totalLength}. ` +
    (listsSectionsAfter(position)
      ? 'The sections after this point are listed at the end of the content above. '
      : '') +
    `To read on, call web_fetch with the same url and startIndex=${position.nextStartIndex}.]`
  );
}

/**
 * Said before the page when a query matched no passage: what follows is the page's opening sentences (to read and
 * to cite with their offsets), not an answer.
 */
export const NO_MATCH_NOTE =
  "[No passage of this page matched the query; here are the page's opening sentences instead, with their offsets.]";

/** Said before the page when a query was asked of a page without a sentence to pass (only headings or marks). */
export const NO_PASSAGE_NOTE =
  '[No passage of this page matched the query; here is the start of the page instead, as without query.]';

/** What the passages sentence is made of, all of it in `data`. */
export interface PassagesPosition {
  length: number;
  totalLength: number;
  passages?: ReadonlyArray<{ start: number; end: number; score: number }> | undefined;
  /** False when no passage matched the query (the passages are the page's opening sentences). */
  queryMatched?: boolean | undefined;
}

/** Where the best-scoring passage starts (the first of equals), to read on from; undefined without passages. */
export function bestPassageStart(position: PassagesPosition): number | undefined {
  let best: { start: number; score: number } | undefined;
  for (const passage of position.passages ?? []) if (!best || passage.score > best.score) best = passage;
  return best?.start;
}

/**
 * How much of the document the passages leave out and how to read any part in full: numbers only, after the
 * envelope; the last line of a focused read that left text out.
 */
export function passagesHint(position: PassagesPosition): string {
  const count = position.passages?.length ?? 0;
  if (position.queryMatched === false) {
    return (
      `[${count} opening passage${count === 1 ? '' : 's'}, none matching the query: ${position.length} of ` +
      `${position.totalLength} characters. To read on, call web_fetch with the same url, without query, and ` +
      `startIndex=${openingEnd(position)}.]`
    );
  }
  const best = bestPassageStart(position);
  return (
    `[${count} passage${count === 1 ? '' : 's'} for the query: ${position.length} of ` +
    `${position.totalLength} characters; the rest of the page was left out. To read any part in full, call ` +
    'web_fetch with the same url, without query, and startIndex set to where to begin' +
    `${best === undefined ? '' : ` (startIndex=${best} reads on from the best-matching passage)`}.]`
  );
}

/** Where the opening passages end: the offset to read on from when none matched the query. */
export function openingEnd(position: PassagesPosition): number {
  return position.passages?.reduce((end, passage) => Math.max(end, passage.end), 0) ?? 0;
}
