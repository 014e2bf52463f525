import type { LanguageTools } from './language-tools.ts';
import { isIdeographic, normalizeWord, type QueryTerms, TOKEN } from './query-terms.ts';
import type { Segmentation } from './segment-document.ts';

/** BM25's usual constants. */
const K1 = 1.2;
const B = 0.75;

export interface ScoreWeights {
  /** Weight of the unit's own BM25 (units as documents). */
  unit: number;
  /** Weight of its block's BM25 (blocks as documents): a sentence in a relevant paragraph. */
  block: number;
  /** Weight of the neighbouring units' BM25 (the sentence before and after). */
  neighbour: number;
  /** Extra weight of a number term's idf. */
  number: number;
  /** Bonus per quoted phrase found verbatim in the unit, times the phrase's idf. */
  phrase: number;
  /** Bonus when query terms sit close together: weight × (terms within the window) / (all terms). */
  proximity: number;
  /** Window of the proximity bonus, in tokens. */
  proximityTokens: number;
  /** Weight of the terms of the section heading before the unit (the title counts as the first heading). */
  heading: number;
}

export const DEFAULT_WEIGHTS: ScoreWeights = {
  unit: 1,
  block: 0.5,
  neighbour: 0.25,
  number: 0.5,
  phrase: 1,
  proximity: 0,
  proximityTokens: 8,
  heading: 0,
};

/** Where the query's terms occur: per unit, its length in tokens and its hits (term id and token position). */
export interface TermHits {
  unitLength: Int32Array;
  /** Hits in document order: parallel arrays. */
  hitUnit: number[];
  hitTerm: number[];
  hitPosition: number[];
}

/** Scan the document once, matching each token against the query's terms (stemming only plausible words). */
export function findTermHits(
  document: string,
  segmentation: Segmentation,
  query: QueryTerms,
  tools: LanguageTools,
): TermHits {
  const { units } = segmentation;
  const ids = new Map(query.terms.map((term, index) => [term, index]));
  const prefixes = new Set(query.terms.map((term) => fold(term.slice(0, 2))));
  const known = new Map<string, number>();
  const unitLength = new Int32Array(units.length);
  const hitUnit: number[] = [];
  const hitTerm: number[] = [];
  const hitPosition: number[] = [];
  let unit = 0;
  let position = 0;
  for (const match of document.matchAll(TOKEN)) {
    const token = match[0];
    while (unit < units.length - 1 && match.index >= units[unit]!.end) unit++;
    if (isIdeographic(token)) {
      const characters = [...token];
      for (let index = 0; index < characters.length; index++) {
        const single = ids.get(characters[index]!);
        const pair = index + 1 < characters.length ? ids.get(characters[index]! + characters[index + 1]!) : undefined;
        for (const id of [single, pair])
          if (id !== undefined) {
            hitUnit.push(unit);
            hitTerm.push(id);
            hitPosition.push(position);
          }
        position++;
      }
      unitLength[unit]! += characters.length;
      continue;
    }
    unitLength[unit]!++;
    let id = known.get(token);
    if (id === undefined) {
      const lower = token.toLowerCase();
      id = prefixes.has(fold(lower.slice(0, 2))) ? (ids.get(normalizeWord(token, tools)) ?? -1) : -1;
      known.set(token, id);
    }
    if (id >= 0) {
      hitUnit.push(unit);
      hitTerm.push(id);
      hitPosition.push(position);
    }
    position++;
  }
  return { unitLength, hitUnit, hitTerm, hitPosition };
}

/** Lower case without diacritics (ä → a, ß → ss): stemmers fold them, so a prefix test must too. */
function fold(text: string): string {
  if (!/[^\x00-\x7f]/.test(text)) return text;
  return text.normalize('NFD').replace(/\p{M}/gu, '').replace(/ß/g, 'ss').slice(0, 2);
}

/** Each unit's score: its BM25, its block's, its neighbours', numbers, phrases, proximity and heading terms. */
export function scoreUnits(
  segmentation: Segmentation,
  query: QueryTerms,
  hits: TermHits,
  weights: ScoreWeights = DEFAULT_WEIGHTS,
): Float64Array {
  const { units, blocks } = segmentation;
  const termCount = query.terms.length;
  const unitCounts = new Map<number, Map<number, number>>();
  const blockCounts = new Map<number, Map<number, number>>();
  for (let index = 0; index < hits.hitUnit.length; index++) {
    const unit = hits.hitUnit[index]!;
    const term = hits.hitTerm[index]!;
    increment(unitCounts, unit, term);
    increment(blockCounts, units[unit]!.block, term);
  }
  const blockLength = new Int32Array(blocks.length);
  for (let unit = 0; unit < units.length; unit++) blockLength[units[unit]!.block]! += hits.unitLength[unit]!;
  const unitScore = bm25(unitCounts, hits.unitLength, termCount, query, weights);
  const blockScore = bm25(blockCounts, blockLength, termCount, query, weights);
  const scores = new Float64Array(units.length);
  for (let unit = 0; unit < units.length; unit++) {
    const own = unitScore.get(unit) ?? 0;
    const block = units[unit]!.block;
    const sameBlock = (other: number) => (units[other]?.block === block ? (unitScore.get(other) ?? 0) : 0);
    const around = sameBlock(unit - 1) + sameBlock(unit + 1);
    scores[unit] =
      weights.unit * own + weights.block * (blockScore.get(block) ?? 0) + weights.neighbour * around;
  }
  return scores;
}

function increment(counts: Map<number, Map<number, number>>, key: number, term: number): void {
  let terms = counts.get(key);
  if (!terms) counts.set(key, (terms = new Map()));
  terms.set(term, (terms.get(term) ?? 0) + 1);
}

function bm25(
  counts: Map<number, Map<number, number>>,
  lengths: Int32Array,
  termCount: number,
  query: QueryTerms,
  weights: ScoreWeights,
): Map<number, number> {
  const documents = lengths.length;
  let total = 0;
  for (const length of lengths) total += length;
  const averageLength = Math.max(1, total / Math.max(1, documents));
  const frequency = new Float64Array(termCount);
  for (const terms of counts.values()) for (const term of terms.keys()) frequency[term]!++;
  const idf = Array.from(frequency, (n, term) => {
    const base = Math.log(1 + (documents - n + 0.5) / (n + 0.5));
    return query.isNumber[term] ? base * (1 + weights.number) : base;
  });
  const scores = new Map<number, number>();
  for (const [key, terms] of counts) {
    const norm = K1 * (1 - B + (B * lengths[key]!) / averageLength);
    let score = 0;
    for (const [term, tf] of terms) score += (idf[term]! * tf * (K1 + 1)) / (tf + norm);
    scores.set(key, score);
  }
  return scores;
}
