import type { LanguageTools } from './language-tools.ts';
import { mayBeOneEdit, type OneEditTerms, oneEditTerm } from './one-edit.ts';
import { normalizeWord, type QueryTerms } from './query-terms.ts';
import type { Segmentation } from './segment-document.ts';
import { prefixKey, scanWords } from './word-scanner.ts';

/** BM25's usual constants. */
const K1 = 1.2;
const B = 0.75;

export interface ScoreWeights {
  /** Weight of the unit's own BM25 (units as documents). */
  unit: number;
  /** Weight of its block's BM25 (blocks as documents): a sentence in a relevant paragraph. */
  block: number;
  /** Weight of the neighbouring units' BM25: the sentence before, and the one after. */
  before: number;
  after: number;
  /** Extra weight of a number term's idf. */
  number: number;
  /** Bonus per quoted phrase found verbatim in the unit, times the phrase's idf. */
  phrase: number;
  /** Bonus when the unit holds what the question asks for: a number for "how many", a year for "when". */
  answerType: number;
  /** BM25's k1 and b for units (blocks use 1.2 and 0.75). */
  unitK1: number;
  unitB: number;
  /** Query words of at least this many letters the page lacks match its words one edit away; 0: off. */
  oneEditMinLength: number;
}

export const DEFAULT_WEIGHTS: ScoreWeights = {
  unit: 1,
  block: 1,
  before: 0.1,
  after: 0.1,
  number: 0.5,
  phrase: 1,
  answerType: 4,
  unitK1: K1,
  unitB: 0.45,
  oneEditMinLength: 7,
};

/** Where the query's terms occur: per unit, its length in tokens and its hits (term id and token position). */
export interface TermHits {
  unitLength: Int32Array;
  /** Hits in document order: parallel arrays. */
  hitUnit: number[];
  hitTerm: number[];
  hitPosition: number[];
}

/**
 * Scan the document once, matching each word against the query's terms (stemming only plausible words); with
 * `oneEdit`, a long query word the page does not hold as typed also matches the page's words one edit from it.
 */
export function findTermHits(
  document: string,
  segmentation: Segmentation,
  query: QueryTerms,
  tools: LanguageTools,
  oneEdit?: OneEditTerms,
): TermHits {
  const { units } = segmentation;
  const termCount = query.terms.length;
  const ids = new Map(query.terms.map((term, index) => [term, index]));
  const prefixes = new Set(query.terms.map((term) => prefixKey(term, 0, term.length)));
  /** A word → its term id, termCount + id for a match at one edit, -1 for none. */
  const known = new Map<string, number>();
  const exactHits = new Int32Array(termCount);
  const editHits: number[] = []; // indices of the hits made at one edit
  const unitLength = new Int32Array(units.length);
  const hitUnit: number[] = [];
  const hitTerm: number[] = [];
  const hitPosition: number[] = [];
  let unit = 0;
  let position = 0;
  const hit = (term: number | undefined) => {
    if (term === undefined || term < 0) return;
    if (term >= termCount) editHits.push(hitTerm.length);
    else exactHits[term]!++;
    hitUnit.push(unit);
    hitTerm.push(term % termCount);
    hitPosition.push(position);
  };
  const lookUp = (start: number, end: number, samePrefix: boolean): number => {
    const word = document.slice(start, end);
    let id = known.get(word);
    if (id === undefined) {
      id = (samePrefix ? ids.get(normalizeWord(word, tools)) : undefined) ?? -1;
      const near = id < 0 && oneEdit ? oneEditTerm(oneEdit, word) : undefined;
      if (near !== undefined) id = termCount + near;
      known.set(word, id);
    }
    return id;
  };
  const advance = (start: number) => {
    while (unit < units.length - 1 && start >= units[unit]!.end) unit++;
  };
  scanWords(document, {
    word(start, end) {
      advance(start);
      unitLength[unit]!++;
      const samePrefix = prefixes.has(prefixKey(document, start, end));
      if (samePrefix || (oneEdit && mayBeOneEdit(oneEdit, document, start, end)))
        hit(lookUp(start, end, samePrefix));
      position++;
    },
    ideograph(start, end) {
      advance(start);
      unitLength[unit]!++;
      hit(ids.get(document.slice(start, end)));
      const next = document.codePointAt(end);
      if (next !== undefined) hit(ids.get(document.slice(start, end + (next > 0xffff ? 2 : 1))));
      position++;
    },
  });
  const result = { unitLength, hitUnit, hitTerm, hitPosition };
  if (editHits.length > 0) dropEditHits(result, editHits, exactHits);
  return result;
}

/** Matches at one edit stand in only for a term the page does not hold as typed: the others' are dropped. */
function dropEditHits(hits: TermHits, editHits: readonly number[], exactHits: Int32Array): void {
  const drop = new Set(editHits.filter((index) => exactHits[hits.hitTerm[index]!]! > 0));
  if (drop.size === 0) return;
  for (const column of [hits.hitUnit, hits.hitTerm, hits.hitPosition]) {
    let kept = 0;
    for (let index = 0; index < column.length; index++) if (!drop.has(index)) column[kept++] = column[index]!;
    column.length = kept;
  }
}

/** Each unit's score: its BM25, its block's, its neighbours', numbers, quoted phrases and the answer's kind. */
export function scoreUnits(
  document: string,
  question: string,
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
  const unitScore = bm25(
    unitCounts,
    hits.unitLength,
    termCount,
    query,
    weights,
    weights.unitK1,
    weights.unitB,
  );
  const blockScore = bm25(blockCounts, blockLength, termCount, query, weights, K1, B);
  const answerTypeOf = weights.answerType > 0 ? expectedAnswer(question) : undefined;
  const unitIdfs = unitIdf(unitCounts, hits.unitLength.length, termCount);
  const phraseScores = query.phrases.length > 0 ? phraseBonus(hits, query, unitIdfs) : undefined;
  const scores = new Float64Array(units.length);
  for (let unit = 0; unit < units.length; unit++) {
    const own = unitScore.get(unit) ?? 0;
    const block = units[unit]!.block;
    const sameBlock = (other: number) => (units[other]?.block === block ? (unitScore.get(other) ?? 0) : 0);
    const around = weights.before * sameBlock(unit - 1) + weights.after * sameBlock(unit + 1);
    // A unit without the query's terms, nor next to them, is not ranked: it can only come as context.
    if (own === 0 && around === 0) continue;
    const typed =
      own > 0 &&
      answerTypeOf !== undefined &&
      answerTypeOf.test(document.slice(units[unit]!.start, units[unit]!.end));
    scores[unit] =
      (typed ? weights.answerType : 0) +
      weights.unit * own +
      weights.block * (blockScore.get(block) ?? 0) +
      around +
      weights.phrase * (phraseScores?.get(unit) ?? 0);
  }
  return scores;
}

function increment(counts: Map<number, Map<number, number>>, key: number, term: number): void {
  const terms = counts.get(key) ?? new Map<number, number>();
  counts.set(key, terms);
  terms.set(term, (terms.get(term) ?? 0) + 1);
}

function bm25(
  counts: Map<number, Map<number, number>>,
  lengths: Int32Array,
  termCount: number,
  query: QueryTerms,
  weights: ScoreWeights,
  k1: number,
  b: number,
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
    const norm = k1 * (1 - b + (b * lengths[key]!) / averageLength);
    let score = 0;
    for (const [term, tf] of terms)
      if (!query.phraseOnly[term]) score += (idf[term]! * tf * (k1 + 1)) / (tf + norm);
    scores.set(key, score);
  }
  return scores;
}

function unitIdf(
  counts: Map<number, Map<number, number>>,
  documents: number,
  termCount: number,
): Float64Array {
  const frequency = new Float64Array(termCount);
  for (const terms of counts.values()) for (const term of terms.keys()) frequency[term]!++;
  return frequency.map((n) => Math.log(1 + (documents - n + 0.5) / (n + 0.5)));
}

const NUMBER =
  /\p{N}|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|hundred|thousand|million|billion|dozen|half)\b/iu;
const TIME =
  /\b(?:1\d{3}|20\d{2}|\d{1,2}(?:st|nd|rd|th)? century|january|february|march|april|may|june|july|august|september|october|november|december|spring|summer|autumn|fall|winter)\b|\d{3,4}s\b/iu;

/** What kind of words the answer is made of, from the question's first words (en, de, fr, es). */
function expectedAnswer(question: string): RegExp | undefined {
  const text = question.toLowerCase();
  if (
    /\b(?:how (?:many|much|long|old|far|large|big|tall|high|often)|what (?:percentage|percent|number|amount)|wie (?:viele?|lange|alt)|combien|cu[aá]nt[oa]s?)\b/u.test(
      text,
    )
  )
    return NUMBER;
  if (
    /\b(?:when|what (?:years?|dates?|decades?|century|centuries|time)|which (?:years?|dates?|decades?|century|centuries)|wann|quand|cu[aá]ndo|en qu[eé] a[nñ]o)\b/u.test(
      text,
    )
  )
    return TIME;
  return undefined;
}

/** Per unit, the summed idf of the scored terms of each quoted phrase found there word for word. */
function phraseBonus(hits: TermHits, query: QueryTerms, idf: Float64Array): Map<number, number> {
  const bonus = new Map<number, number>();
  const termsAt = new Map<number, number[]>(); // position → terms hit there, for the current unit
  const flush = (unit: number) => {
    for (const phrase of query.phrases) {
      for (const [position, terms] of termsAt) {
        if (!terms.includes(phrase[0]!)) continue;
        if (!phrase.every((term, offset) => termsAt.get(position + offset)?.includes(term))) continue;
        let weight = 0;
        for (const term of phrase) if (!query.phraseOnly[term]) weight += idf[term]!;
        bonus.set(unit, (bonus.get(unit) ?? 0) + weight);
        break;
      }
    }
    termsAt.clear();
  };
  for (let index = 0; index < hits.hitUnit.length; index++) {
    const unit = hits.hitUnit[index]!;
    if (index > 0 && hits.hitUnit[index - 1] !== unit) flush(hits.hitUnit[index - 1]!);
    const position = hits.hitPosition[index]!;
    const terms = termsAt.get(position);
    if (terms) terms.push(hits.hitTerm[index]!);
    else termsAt.set(position, [hits.hitTerm[index]!]);
  }
  if (hits.hitUnit.length > 0) flush(hits.hitUnit[hits.hitUnit.length - 1]!);
  return bonus;
}
