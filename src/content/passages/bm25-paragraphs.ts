import { PASSAGE_SEPARATOR, type Passage, type PassageQuery, type PassageSelection } from './types.ts';

/** BM25's usual constants. */
const K1 = 1.2;
const B = 0.75;
const TOKEN = /[\p{L}\p{N}]+/gu;

/** Lowercase `[\p{L}\p{N}]+` runs: no stop words, no stemming. */
export function plainTokens(text: string): string[] {
  return text.toLowerCase().match(TOKEN) ?? [];
}

/** The document's paragraphs (runs of text between blank lines), with their offsets. */
export function paragraphSpans(document: string): Array<{ start: number; end: number }> {
  const spans: Array<{ start: number; end: number }> = [];
  const breaks = /\n[ \t]*\n+/g;
  let start = 0;
  for (const match of document.matchAll(breaks)) {
    pushTrimmed(document, start, match.index, spans);
    start = match.index + match[0].length;
  }
  pushTrimmed(document, start, document.length, spans);
  return spans;
}

function pushTrimmed(
  document: string,
  start: number,
  end: number,
  spans: Array<{ start: number; end: number }>,
): void {
  while (start < end && /\s/.test(document[start] ?? '')) start++;
  while (end > start && /\s/.test(document[end - 1] ?? '')) end--;
  if (end > start) spans.push({ start, end });
}

/**
 * The reference ranker: plain BM25 (k1 1.2, b 0.75, idf ln(1 + (N − n + 0.5) / (n + 0.5))) over the document's
 * paragraphs, query terms de-duplicated; paragraphs taken best first while they fit the budget (one that does not
 * fit is cut at a word boundary when nothing was taken yet), returned in document order. What the focused reader
 * (select-passages.ts) is measured against in bench/passages.
 */
export function bm25Paragraphs(document: string, request: PassageQuery): PassageSelection {
  const spans = paragraphSpans(document);
  const terms = [...new Set(plainTokens(request.query))];
  const documents = spans.map((span) => plainTokens(document.slice(span.start, span.end)));
  const averageLength =
    documents.reduce((sum, tokens) => sum + tokens.length, 0) / Math.max(1, documents.length);
  const documentFrequency = new Map<string, number>();
  for (const tokens of documents)
    for (const term of new Set(tokens)) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  const scored = spans.map((span, index) => {
    const tokens = documents[index] ?? [];
    const counts = new Map<string, number>();
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    let score = 0;
    for (const term of terms) {
      const frequency = counts.get(term) ?? 0;
      if (frequency === 0) continue;
      const n = documentFrequency.get(term) ?? 0;
      const idf = Math.log(1 + (spans.length - n + 0.5) / (n + 0.5));
      score +=
        (idf * frequency * (K1 + 1)) / (frequency + K1 * (1 - B + (B * tokens.length) / averageLength));
    }
    return { ...span, score, index };
  });
  const ranked = [...scored].sort((left, right) => right.score - left.score || left.index - right.index);
  const chosen: Passage[] = [];
  let used = 0;
  for (const candidate of ranked) {
    if (candidate.score <= 0 && chosen.length > 0) break;
    const separator = chosen.length === 0 ? 0 : PASSAGE_SEPARATOR.length;
    const room = request.maxChars - used - separator;
    if (room <= 0) break;
    let end = candidate.end;
    if (end - candidate.start > room) {
      if (chosen.length > 0) continue;
      end = wordBoundaryBefore(document, candidate.start, candidate.start + room);
    }
    chosen.push({
      text: document.slice(candidate.start, end),
      start: candidate.start,
      end,
      score: candidate.score,
    });
    used += separator + (end - candidate.start);
  }
  chosen.sort((left, right) => left.start - right.start);
  return {
    passages: chosen,
    matched: chosen.some((passage) => passage.score > 0),
    coveredChars: chosen.reduce((sum, passage) => sum + passage.end - passage.start, 0),
    totalLength: document.length,
  };
}

/** The last space at or before `limit` (never splitting a surrogate pair), else `limit`. */
function wordBoundaryBefore(document: string, start: number, limit: number): number {
  const space = document.lastIndexOf(' ', limit);
  let end = space > start ? space : limit;
  const code = document.charCodeAt(end - 1);
  if (code >= 0xd800 && code < 0xdc00) end--;
  return end;
}
