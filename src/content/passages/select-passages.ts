import { bm25Paragraphs } from './bm25-paragraphs.ts';
import type { PassageQuery, PassageSelection } from './types.ts';

/**
 * The passages of `document` that best answer `request.query`, verbatim and in document order, within
 * `request.maxChars` (separators included). Local and deterministic: no model, no network.
 */
export function selectPassages(document: string, request: PassageQuery): PassageSelection {
  return bm25Paragraphs(document, request);
}
