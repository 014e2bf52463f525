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

const WHITESPACE = /\s/;

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

/**
 * The document with every run of whitespace as one space, and for each of its characters where it came from:
 * `from[i]` is the offset of character i in the document, `to[i]` the offset just after what it stands for.
 */
function collapseWhitespace(text: string): { collapsed: string; from: Int32Array; to: Int32Array } {
  const from = new Int32Array(text.length);
  const to = new Int32Array(text.length);
  const parts: string[] = [];
  let length = 0;
  let index = 0;
  while (index < text.length) {
    const start = index;
    if (WHITESPACE.test(text[index] as string)) {
      while (index < text.length && WHITESPACE.test(text[index] as string)) index += 1;
      parts.push(' ');
    } else {
      parts.push(text[index] as string);
      index += 1;
    }
    from[length] = start;
    to[length] = index;
    length += 1;
  }
  return { collapsed: parts.join(''), from: from.subarray(0, length), to: to.subarray(0, length) };
}

function locateIgnoringWhitespace(
  document: string,
  quote: string,
  cited: QuoteRange | undefined,
): QuoteLocation | undefined {
  const wanted = quote.trim().replace(/\s+/g, ' ');
  if (wanted === '') return undefined;
  const { collapsed, from, to } = collapseWhitespace(document);
  const ranges = occurrences(collapsed, wanted).map((at) => ({
    start: from[at] as number,
    end: to[at + wanted.length - 1] as number,
  }));
  if (ranges.length === 0) return undefined;
  const atCited = cited && ranges.find((range) => range.start === cited.start && range.end === cited.end);
  const chosen =
    atCited ??
    ranges.find(
      (range) =>
        range.start ===
        nearest(
          ranges.map((item) => item.start),
          cited,
        ),
    );
  return chosen ? { ...chosen, match: 'whitespace' } : undefined;
}
