import type { OutlineEntry } from '../outline.ts';

/**
 * One passage of a document, verbatim: `text === document.slice(start, end)`, with the offsets `startIndex`
 * uses (UTF-16 code units into the full extracted text).
 */
export interface Passage {
  text: string;
  start: number;
  end: number;
  /** The nearest section heading before the passage, when the document has headings. */
  heading?: string;
  /** How well it answers the query; comparable only within one selection. */
  score: number;
}

export interface PassageQuery {
  /** The question the agent is trying to answer. */
  query: string;
  /** Most characters of passage text, separators included (`PASSAGE_SEPARATOR` between two passages). */
  maxChars: number;
  /** Most estimated tokens of the same text (token-estimate.ts), when bounded. */
  maxTokens?: number | undefined;
  /** The document's headings with their offsets (outline.ts), for `heading` and heading context. */
  outline?: readonly OutlineEntry[] | undefined;
  /** The document's title, as context for every passage. */
  title?: string | undefined;
  /** BCP 47 language of the document (`en`, `de`, …), for stemming and stop words. */
  language?: string | undefined;
}

/** The chosen passages, in document order, and how much of the document they leave out. */
export interface PassageSelection {
  passages: Passage[];
  /**
   * Whether a word of the query is on the page: false, the passages are the document's opening sentences (an
   * answer cannot be told from the page's words; they are there to read and to cite), each scored 0.
   */
  matched: boolean;
  /** Characters of the document the passages cover. */
  coveredChars: number;
  totalLength: number;
}

/** Between two passages in the joined text (`data.text`). */
export const PASSAGE_SEPARATOR = '\n\n';

/**
 * Where a passage can be checked: the page, the offsets and the quote, and a digest of the whole document as
 * extracted, so anyone can tell later whether the quote is still there (`periscope.verifyCitation`).
 */
export interface Citation {
  url: string;
  finalUrl: string;
  start: number;
  end: number;
  quote: string;
  /** `sha256:<hex>` of the full extracted document text (content-hash.ts). */
  contentHash: string;
  /** ISO 8601 instant the document was fetched (or read from cache). */
  retrievedAt: string;
}

/** A passage as web_fetch (and web_search's `readTop`) returns it: where to check it travels with it. */
export type CitedPassage = Passage & { citation: Citation };
