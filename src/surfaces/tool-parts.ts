// What every surface takes from a tool or a ToolResult before putting it in its own wire format.

import type { Citation, CitedPassage } from '../content/passages/types.ts';

export interface ResultImage {
  mimeType: string;
  base64: string;
  [key: string]: unknown;
}

/** The image a web_fetch result carries (`data.image`), if any. */
export function imageOf(data: unknown): ResultImage | undefined {
  const image = (data as { image?: unknown } | undefined)?.image as Partial<ResultImage> | undefined;
  if (typeof image?.base64 !== 'string' || typeof image.mimeType !== 'string') return undefined;
  return image as ResultImage;
}

export type { CitedPassage } from '../content/passages/types.ts';

/**
 * The passages `data` carries (`data.passages` of web_fetch with `query`, or of one web_search result), with their
 * citations, in order; none when there are none. Guarded: an entry without its offsets, text or citation is skipped.
 */
export function passagesOf(data: unknown): CitedPassage[] {
  const passages = (data as { passages?: unknown } | undefined)?.passages;
  return Array.isArray(passages) ? passages.filter(isCitedPassage) : [];
}

/** Where a passage is, without what the page wrote (its text, heading and quote). */
export interface PassageLocation {
  start: number;
  end: number;
  score?: number;
  citation: Omit<Citation, 'quote'>;
}

/** The passage's location: what a view that may reach a model outside the envelope can carry (MCP). */
export function passageLocation(passage: CitedPassage): PassageLocation {
  const { quote: _pageWritten, ...citation } = passage.citation;
  const score = typeof passage.score === 'number' ? { score: passage.score } : {};
  return { start: passage.start, end: passage.end, ...score, citation };
}

function isCitedPassage(value: unknown): value is CitedPassage {
  const passage = value as Partial<CitedPassage> | null;
  const citation = passage?.citation as Partial<Citation> | undefined;
  return (
    typeof passage?.text === 'string' &&
    typeof passage.start === 'number' &&
    typeof passage.end === 'number' &&
    typeof citation?.url === 'string' &&
    typeof citation.finalUrl === 'string' &&
    typeof citation.contentHash === 'string'
  );
}
