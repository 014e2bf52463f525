/** Where a quote sits in a document: `document.slice(start, end)` is the quote, or differs from it in whitespace only. */
export interface QuoteLocation {
  start: number;
  end: number;
  /** `exact`: the same characters; `whitespace`: the same once every run of whitespace counts as one space. */
  match: 'exact' | 'whitespace';
}

/** The offsets a citation gives (UTF-16 code units into the full extracted text, as `startIndex` uses). */
export interface QuoteRange {
  start: number;
  end: number;
}

/** Occurrences looked at before the nearest one is chosen (a quote of one common word may occur thousands of times). */
const MAX_OCCURRENCES = 10_000;

/**
 * Find `quote` in `document`: exactly first (at the cited range when it is there, else the occurrence nearest to
 * it, else the first), then tolerant of whitespace differences only (a line break for a space, two spaces for one,
 * whitespace around the quote). Undefined when it is not there either way.
 */
export function locateQuote(document: string, quote: string, cited?: QuoteRange): QuoteLocation | undefined {
  if (quote === '') return undefined;
  if (cited && document.slice(cited.start, cited.end) === quote)
    return { start: cited.start, end: cited.end, match: 'exact' };
  const exact = nearest(occurrences(document, quote), cited);
  if (exact !== undefined) return { start: exact, end: exact + quote.length, match: 'exact' };
  return locateIgnoringWhitespace(document, quote, cited);
}

function occurrences(text: string, part: string): number[] {
  const found: number[] = [];
  for (
    let at = text.indexOf(part);
    at !== -1 && found.length < MAX_OCCURRENCES;
    at = text.indexOf(part, at + 1)
  )
    found.push(at);
  return found;
}

/** The occurrence whose start is nearest to the cited one (the first on a tie), or the first when none is cited. */
function nearest(starts: readonly number[], cited: QuoteRange | undefined): number | undefined {
  if (starts.length === 0) return undefined;
  if (!cited) return starts[0];
  let best = starts[0] as number;
  for (const start of starts) if (Math.abs(start - cited.start) < Math.abs(best - cited.start)) best = start;
  return best;
}

function locateIgnoringWhitespace(
  document: string,
  quote: string,
  cited: QuoteRange | undefined,
): QuoteLocation | undefined {
  const words = quote.trim().split(/\s+/);
  if (words[0] === '') return undefined;
  // The quote's words, each literal, with any run of whitespace between them: matched on the document itself.
  const pattern = new RegExp(
    words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+'),
    'g',
  );
  const ranges: QuoteRange[] = [];
  for (
    let match = pattern.exec(document);
    match && ranges.length < MAX_OCCURRENCES;
    match = pattern.exec(document)
  ) {
    ranges.push({ start: match.index, end: match.index + match[0].length });
    pattern.lastIndex = match.index + 1;
  }
  if (ranges.length === 0) return undefined;
  const atCited = cited && ranges.find((range) => range.start === cited.start && range.end === cited.end);
  const nearestStart = nearest(
    ranges.map((range) => range.start),
    cited,
  );
  const chosen = atCited ?? ranges.find((range) => range.start === nearestStart);
  return chosen ? { ...chosen, match: 'whitespace' } : undefined;
}
