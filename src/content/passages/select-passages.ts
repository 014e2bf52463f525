import type { OutlineEntry } from '../outline.ts';
import { chooseUnits } from './choose-units.ts';
import { guessLanguage } from './guess-language.ts';
import { languageTools } from './language-tools.ts';
import { oneEditTerms } from './one-edit.ts';
import { queryTerms } from './query-terms.ts';
import { DEFAULT_WEIGHTS, findTermHits, type ScoreWeights, scoreUnits } from './score-units.ts';
import { type Segmentation, segmentDocument } from './segment-document.ts';
import type { Passage, PassageQuery, PassageSelection } from './types.ts';

/**
 * The passages of `document` that best answer `request.query`, verbatim and in document order, within
 * `request.maxChars` (separators included) and `request.maxTokens`. Local and deterministic: no model, no network.
 * docs/decisions/0014-focused-reading.md
 */
export function selectPassages(
  document: string,
  request: PassageQuery,
  /** The ranker's weights (bench/passages tunes them; callers leave the default). */
  weights: ScoreWeights = DEFAULT_WEIGHTS,
): PassageSelection {
  const tools = languageTools(request.language ?? guessLanguage(document));
  const segmentation = segmentDocument(document);
  const query = queryTerms(request.query, tools);
  const oneEdit = oneEditTerms(query.words, weights.oneEditMinLength);
  const hits = findTermHits(document, segmentation, query, tools, oneEdit);
  const scores = scoreUnits(document, request.query, segmentation, query, hits, weights);
  const runs = chooseUnits(document, segmentation, scores, {
    maxChars: request.maxChars,
    maxTokens: request.maxTokens,
  });
  const headings = request.outline ?? markdownHeadings(document, segmentation);
  const passages: Passage[] = runs.map(({ first, last, end: cut }) => {
    const start = segmentation.units[first]!.start;
    const end = cut ?? segmentation.units[last]!.end;
    let score = 0;
    for (let unit = first; unit <= last; unit++) score = Math.max(score, scores[unit]!);
    const heading = headingBefore(headings, start);
    return { text: document.slice(start, end), start, end, ...(heading ? { heading } : {}), score };
  });
  return {
    passages,
    matched: passages.some((passage) => passage.score > 0),
    coveredChars: passages.reduce((sum, passage) => sum + passage.end - passage.start, 0),
    totalLength: document.length,
  };
}

/** Headings of a Markdown document when no outline came with it: its `#` blocks. */
function markdownHeadings(document: string, segmentation: Segmentation): OutlineEntry[] {
  return segmentation.blocks
    .filter((block) => block.kind === 'heading')
    .map((block) => {
      const line = document.slice(block.start, block.end).split('\n')[0] ?? '';
      const level = /^#+/.exec(line)?.[0].length ?? 1;
      return { level, title: line.replace(/^#+\s*/, '').replace(/\s*#*\s*$/, ''), offset: block.start };
    });
}

/** The title of the last heading that starts at or before `offset`. */
function headingBefore(outline: readonly OutlineEntry[], offset: number): string | undefined {
  let low = 0;
  let high = outline.length - 1;
  let found: OutlineEntry | undefined;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const entry = outline[middle]!;
    if (entry.offset <= offset) {
      found = entry;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found?.title;
}
