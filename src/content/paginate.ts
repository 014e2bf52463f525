import { PeriscopeError } from '../errors.ts';

export interface PageWindow {
  text: string;
  startIndex: number;
  /** Characters in this window. */
  length: number;
  totalLength: number;
  truncated: boolean;
  /** Where the next call should start; present when truncated. */
  nextStartIndex?: number;
}

export interface PaginateOptions {
  startIndex: number;
  maxChars: number;
  /** Estimated-token budget for the window (CJK characters cost about one token each, other text about four characters a token). */
  maxTokens: number;
}

const WIDE = /[\u1100-\u11ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/;

/**
 * Cut the window [startIndex, startIndex + n) out of `text`, with n bounded by characters and estimated tokens,
 * ending on a paragraph, line or word boundary when one is near, so reading on never splits a word.
 */
export function paginate(text: string, options: PaginateOptions): PageWindow {
  const totalLength = text.length;
  const { startIndex } = options;
  if (startIndex > 0 && startIndex >= totalLength) {
    throw new PeriscopeError(
      'INVALID_INPUT',
      `startIndex ${startIndex} is past the end of the document (${totalLength} characters); use a smaller startIndex`,
    );
  }
  let end = startIndex;
  let tokens = 0;
  const hardEnd = Math.min(totalLength, startIndex + options.maxChars);
  while (end < hardEnd) {
    tokens += WIDE.test(text[end] as string) ? 1 : 0.25;
    if (tokens > options.maxTokens) break;
    end++;
  }
  if (end < totalLength) end = backOffToBoundary(text, startIndex, end);
  const window: PageWindow = {
    text: text.slice(startIndex, end),
    startIndex,
    length: end - startIndex,
    totalLength,
    truncated: end < totalLength,
  };
  if (window.truncated) window.nextStartIndex = end;
  return window;
}

/** Move `end` back to the last paragraph break, line break or space within the last tenth of the window. */
function backOffToBoundary(text: string, startIndex: number, end: number): number {
  const floor = end - Math.floor((end - startIndex) / 10);
  for (const separator of ['\n\n', '\n', ' ']) {
    const at = text.lastIndexOf(separator, end - separator.length);
    if (at >= floor && at > startIndex) return at + separator.length;
  }
  return end;
}
