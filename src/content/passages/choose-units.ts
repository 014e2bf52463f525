import { measureTokens, TWELFTHS_PER_TOKEN } from '../token-estimate.ts';
import type { Segmentation } from './segment-document.ts';
import { PASSAGE_SEPARATOR } from './types.ts';

/** A run of consecutive chosen units of one block: one passage (`end`: where it ends when cut short). */
export interface Run {
  first: number;
  last: number;
  end?: number;
}

export interface ChooseOptions {
  maxChars: number;
  maxTokens?: number | undefined;
}

/** The separator's cost in twelfths of a token when it follows text (the first newline is a piece). */
const SEPARATOR_TWELFTHS = measureTokens(PASSAGE_SEPARATOR).twelfths;

/**
 * Units taken best first while they fit both budgets: a unit next to a chosen one joins its passage (the
 * whitespace between them counted), a table or list is taken whole when it fits, and each chosen unit brings the
 * context around it that still fits. Returns the passages as runs, in document order.
 */
export function chooseUnits(
  document: string,
  segmentation: Segmentation,
  scores: Float64Array,
  options: ChooseOptions,
): Run[] {
  const { units, blocks } = segmentation;
  const chosen = new Uint8Array(units.length);
  const maxTwelfths =
    options.maxTokens === undefined ? Number.POSITIVE_INFINITY : options.maxTokens * TWELFTHS_PER_TOKEN;
  const separator = PASSAGE_SEPARATOR.length;
  let runs = 0;
  let runChars = 0; // the runs' characters, separators not included
  let runTwelfthsTotal = 0; // the runs' twelfths, each measured as a text of its own
  const runTwelfths = new Map<number, number>(); // run's first unit → its twelfths

  const sameBlock = (left: number, right: number) => units[left]!.block === units[right]!.block;
  const runStart = (unit: number) => {
    let first = unit;
    while (first > 0 && chosen[first - 1] && sameBlock(first - 1, unit)) first--;
    return first;
  };
  const runEnd = (unit: number) => {
    let last = unit;
    while (last + 1 < units.length && chosen[last + 1] && sameBlock(last + 1, unit)) last++;
    return last;
  };
  /** Add units[from..to] (one block) when the passages still fit both budgets; true when they are in. */
  const tryAdd = (from: number, to: number): boolean => {
    while (from <= to && chosen[from]) from++;
    while (to >= from && chosen[to]) to--;
    if (from > to) return true;
    for (let unit = from; unit <= to; unit++) if (chosen[unit]) return false;
    const joinsBefore = from > 0 && chosen[from - 1] === 1 && sameBlock(from - 1, from);
    const joinsAfter = to + 1 < units.length && chosen[to + 1] === 1 && sameBlock(to + 1, to);
    const first = joinsBefore ? runStart(from - 1) : from;
    const last = joinsAfter ? runEnd(to + 1) : to;
    const start = units[first]!.start;
    const end = units[last]!.end;
    let oldChars = 0;
    let oldTwelfths = 0;
    let oldRuns = 0;
    for (const [joins, runFirst, runLast] of [
      [joinsBefore, first, from - 1],
      [joinsAfter, to + 1, last],
    ] as const) {
      if (!joins) continue;
      oldRuns++;
      oldChars += units[runLast]!.end - units[runFirst]!.start;
      oldTwelfths += runTwelfths.get(runFirst) ?? 0;
    }
    const newRuns = runs - oldRuns + 1;
    const newChars = runChars - oldChars + (end - start);
    if (newChars + separator * (newRuns - 1) > options.maxChars) return false;
    let twelfths = 0;
    if (maxTwelfths !== Number.POSITIVE_INFINITY) {
      const budget = maxTwelfths - (runTwelfthsTotal - oldTwelfths) - SEPARATOR_TWELFTHS * (newRuns - 1);
      if (budget < 0) return false;
      const measured = measureTokens(document, start, end, budget);
      if (measured.end < end) return false;
      twelfths = measured.twelfths;
      if (joinsBefore) runTwelfths.delete(first);
      if (joinsAfter) runTwelfths.delete(to + 1);
      runTwelfths.set(first, twelfths);
      runTwelfthsTotal += twelfths - oldTwelfths;
    }
    for (let unit = from; unit <= to; unit++) chosen[unit] = 1;
    runs = newRuns;
    runChars = newChars;
    return true;
  };
  const order = rankedUnits(document, segmentation, scores);
  const taken: number[] = [];
  // Nothing matched: the document's beginning, as a read without a query would give.
  const anyMatch = order.length > 0 && scores[order[0]!]! > 0;
  for (const unit of order) {
    if (anyMatch && scores[unit]! <= 0) break;
    if (chosen[unit]) continue;
    const block = blocks[units[unit]!.block]!;
    if ((block.kind === 'table' || block.kind === 'list') && tryAdd(block.firstUnit, block.lastUnit)) {
      taken.push(unit);
      continue;
    }
    if (tryAdd(unit, unit)) taken.push(unit);
    // The best unit does not fit: its beginning (below), never a lesser unit in its place (a neighbour ranked by
    // the best one's words may share none with the query). Nothing matched: the opening units, up to this one.
    else if (taken.length === 0 || !anyMatch) break;
  }
  // Budget left once every matching unit is in: the sentences around the best ones, best first.
  for (let round = 1, grew = true; grew && round <= 3; round++) {
    grew = false;
    for (const unit of taken) {
      const block = blocks[units[unit]!.block]!;
      const first = runStart(unit);
      const last = runEnd(unit);
      if (first > block.firstUnit && tryAdd(first - 1, first - 1)) grew = true;
      if (last < block.lastUnit && tryAdd(last + 1, last + 1)) grew = true;
    }
  }
  const result: Run[] = [];
  for (let unit = 0; unit < units.length; unit++) {
    if (!chosen[unit]) continue;
    const last = runEnd(unit);
    result.push({ first: unit, last });
    unit = last;
  }
  if (result.length === 0 && order.length > 0) {
    // Not even the best unit fits: its beginning, up to a word boundary.
    const best = order[0]!;
    const end = cutToFit(document, units[best]!.start, units[best]!.end, options.maxChars, maxTwelfths);
    if (end > units[best]!.start) result.push({ first: best, last: best, end });
  }
  return result;
}

/** The longest beginning of document[start, end) that fits both budgets and ends at a word boundary (or 0 length). */
function cutToFit(
  document: string,
  start: number,
  end: number,
  maxChars: number,
  maxTwelfths: number,
): number {
  let limit = Math.min(end, start + maxChars);
  if (maxTwelfths !== Number.POSITIVE_INFINITY)
    limit = measureTokens(document, start, limit, maxTwelfths).end;
  if (limit >= end) return end;
  let cut = limit;
  while (cut > start && !/\s/.test(document[cut]!)) cut--;
  while (cut > start && /\s/.test(document[cut - 1]!)) cut--;
  return cut;
}

/** A letter or a digit: a unit without one (`...`, `—`, `*`) is no passage of its own, only context. */
const WORDY = /[\p{L}\p{N}]/u;

/**
 * Units that can be chosen (not headings, not bare punctuation), best first, ties in document order; none
 * scored → document order.
 */
function rankedUnits(document: string, segmentation: Segmentation, scores: Float64Array): number[] {
  const { units, blocks } = segmentation;
  const eligible: number[] = [];
  for (let unit = 0; unit < units.length; unit++) {
    const { start, end, block } = units[unit]!;
    if (blocks[block]!.kind !== 'heading' && WORDY.test(document.slice(start, end))) eligible.push(unit);
  }
  return eligible.sort((left, right) => scores[right]! - scores[left]! || left - right);
}
