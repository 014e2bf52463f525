import { PeriscopeError } from '../errors.ts';
import { measureTokens, TWELFTHS_PER_TOKEN } from './token-estimate.ts';

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
  /** Estimated-token budget for the window (an upper bound for common tokenizers, see token-estimate.ts). */
  maxTokens: number;
}

/**
 * Cut the window [startIndex, startIndex + n) out of `text`, with n bounded by characters and estimated tokens,
 * ending on a paragraph, line or word boundary when one is near, so reading on never splits a word.
 */
export function paginate(text: string, options: PaginateOptions): PageWindow {
  const totalLength = text.length;
  // A caller's startIndex inside a surrogate pair starts at the pair, so the window never opens on half a character.
  const startIndex =
    options.startIndex > 0 &&
    options.startIndex < totalLength &&
    isLowSurrogate(text.charCodeAt(options.startIndex)) &&
    isHighSurrogate(text.charCodeAt(options.startIndex - 1))
      ? options.startIndex - 1
      : options.startIndex;
  if (startIndex > 0 && startIndex >= totalLength) {
    throw new PeriscopeError(
      'INVALID_INPUT',
      `startIndex ${startIndex} is past the end of the document (${totalLength} characters); use a smaller startIndex`,
    );
  }
  const hardEnd = Math.min(totalLength, startIndex + options.maxChars);
  let { end } = measureTokens(text, startIndex, hardEnd, options.maxTokens * TWELFTHS_PER_TOKEN);
  // A budget smaller than one character still moves on by a character (a whole surrogate pair), never by none.
  if (end === startIndex && end < totalLength) end += isHighSurrogate(text.charCodeAt(end)) ? 2 : 1;
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

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code < 0xe000;
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
