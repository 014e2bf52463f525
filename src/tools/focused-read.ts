import { MAX_OUTLINE_ENTRIES, type OutlineEntry } from '../content/outline.ts';
import { contentHash } from '../content/passages/content-hash.ts';
import { selectPassages } from '../content/passages/select-passages.ts';
import {
  type CitedPassage,
  PASSAGE_SEPARATOR,
  type Passage,
  type PassageQuery,
} from '../content/passages/types.ts';

export type { CitedPassage } from '../content/passages/types.ts';

/** The focused read of one document: its best passages for a query, each with its citation. */
export interface FocusedRead {
  passages: CitedPassage[];
  /** Whether a passage matched the query; false: the passages are the document's opening sentences. */
  matched: boolean;
  /** The passages' text joined with PASSAGE_SEPARATOR. */
  text: string;
  coveredChars: number;
  totalLength: number;
  /** Whether text of the document (anything but white space) lies outside the passages. */
  leftOut: boolean;
  contentHash: string;
}

export interface FocusedReadSource {
  url: string;
  finalUrl: string;
  /** ISO 8601: when the document was fetched from its origin. */
  retrievedAt: string;
}

/**
 * The passages of `document` that answer `request.query` (selectPassages), each with its heading (the ranker's,
 * else the nearest outline heading before it) and its citation. When no passage matched the query at all (every
 * score zero), the document's opening sentences with `matched` false, so the caller says so instead of passing
 * them off as an answer, and they can still be cited. Undefined when the document has no text to pass.
 */
export function focusedRead(
  document: string,
  request: PassageQuery,
  source: FocusedReadSource,
): FocusedRead | undefined {
  const selection = selectPassages(document, request);
  if (selection.passages.length === 0) return undefined;
  const hash = contentHash(document);
  const passages = selection.passages.map((passage): CitedPassage => {
    const heading = passage.heading ?? headingBefore(request.outline ?? [], passage.start);
    return {
      ...passage,
      ...(heading === undefined ? {} : { heading }),
      citation: {
        url: source.url,
        finalUrl: source.finalUrl,
        start: passage.start,
        end: passage.end,
        quote: passage.text,
        contentHash: hash,
        retrievedAt: source.retrievedAt,
      },
    };
  });
  return {
    passages,
    matched: selection.matched,
    text: passages.map((passage) => passage.text).join(PASSAGE_SEPARATOR),
    coveredChars: selection.coveredChars,
    totalLength: selection.totalLength,
    leftOut: hasTextOutside(document, passages),
    contentHash: hash,
  };
}

/**
 * The passages as the model reads them, each under a line with its offsets and heading (`[chars 1200–1650]
 * under "History"`). Headings and text are page-written: this goes inside the untrusted envelope.
 */
export function passagesText(passages: readonly Passage[]): string {
  return passages
    .map((passage) => {
      const under = passage.heading ? ` under "${passage.heading}"` : '';
      return `[chars ${passage.start}–${passage.end}]${under}\n${passage.text}`;
    })
    .join('\n\n');
}

/** The title of the last heading at or before `offset`; none past the end of a capped outline (unknown). */
function headingBefore(outline: readonly OutlineEntry[], offset: number): string | undefined {
  let found: OutlineEntry | undefined;
  for (const entry of outline) {
    if (entry.offset > offset) return found?.title;
    found = entry;
  }
  return outline.length >= MAX_OUTLINE_ENTRIES ? undefined : found?.title;
}

function hasTextOutside(document: string, passages: readonly Passage[]): boolean {
  let from = 0;
  for (const passage of passages) {
    if (/\S/.test(document.slice(from, passage.start))) return true;
    from = Math.max(from, passage.end);
  }
  return /\S/.test(document.slice(from));
}
