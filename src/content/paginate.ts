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
  /** Estimated-token budget for the window (see `tokenCost`). */
  maxTokens: number;
}

/**
 * A conservative estimate of what one UTF-16 code unit costs in tokens, so a window never exceeds a
 * client's token limit: Latin text runs about four characters a token, but code, URLs and numbers run
 * closer to three; Cyrillic, Greek, Arabic, Hebrew, Indic and Thai about two; CJK, kana and Hangul up to
 * one a character; a surrogate pair (emoji, rare ideographs) is counted as a token per half.
 */
export function tokenCost(code: number): number {
  return tokenSixths(code) / 6;
}

/** `tokenCost` in sixths of a token, so sums stay exact integers. */
function tokenSixths(code: number): number {
  if (code < 0x0370) return 2;
  if (code < 0x1100) return 3; // Greek … Thai, Tibetan, Georgian
  if (code < 0x1200) return 6; // Hangul Jamo
  if (code < 0x2e80) return 3; // other scripts, punctuation, symbols
  if (code < 0xa000) return 6; // CJK radicals, kana, CJK unified ideographs
  if (code >= 0xac00 && code < 0xd7b0) return 6; // Hangul syllables
  if (code >= 0xd800 && code < 0xe000) return 6; // surrogate halves
  if (code >= 0xf900 && code < 0xfb00) return 6; // CJK compatibility ideographs
  if (code >= 0xff00 && code < 0xfff0) return 6; // full-width forms
  return 3;
}

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
  let sixths = 0;
  const budget = options.maxTokens * 6;
  const hardEnd = Math.min(totalLength, startIndex + options.maxChars);
  while (end < hardEnd) {
    sixths += tokenSixths(text.charCodeAt(end));
    if (sixths > budget) break;
    end++;
  }
  if (end < totalLength) end = backOffToBoundary(text, startIndex, end);
  // Never split a surrogate pair: a window ending on a high surrogate gives it to the next window.
  if (end < totalLength && end > startIndex + 1 && isHighSurrogate(text.charCodeAt(end - 1))) end--;
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

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code < 0xdc00;
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
