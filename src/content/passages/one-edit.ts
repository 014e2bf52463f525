/**
 * Long query words matched at one edit (a misspelt question: `mathmatical` finds `mathematical`), for the terms
 * the page does not hold as typed. docs/decisions/0014-focused-reading.md
 */

/**
 * Words of Latin letters only (no digits: `1611` is not `1612`; not Arabic, where words one letter apart are as a
 * rule other words, and where it lost on held-out questions), lower-cased, of at least `minLength` characters.
 */
export interface OneEditTerms {
  /** Per candidate: the query's word and its term id. */
  words: string[];
  ids: number[];
  minLength: number;
  maxLength: number;
  /** The words' first letters, both cases, as code units: a page word starting otherwise is not compared. */
  firstLetters: Set<number>;
}

const LETTERS = /^\p{Script=Latin}+$/u;

/** The query words long enough to be matched at one edit; undefined when there is none (or `minLength` is 0). */
export function oneEditTerms(words: readonly string[], minLength: number): OneEditTerms | undefined {
  if (minLength <= 0) return undefined;
  const candidates: OneEditTerms = {
    words: [],
    ids: [],
    minLength: Infinity,
    maxLength: 0,
    firstLetters: new Set(),
  };
  words.forEach((word, id) => {
    if (word.length < minLength || !LETTERS.test(word)) return;
    candidates.words.push(word);
    candidates.ids.push(id);
    candidates.minLength = Math.min(candidates.minLength, word.length - 1);
    candidates.maxLength = Math.max(candidates.maxLength, word.length + 1);
    for (const letter of [word[0]!, word[0]!.toUpperCase()])
      candidates.firstLetters.add(letter.charCodeAt(0));
  });
  return candidates.words.length > 0 ? candidates : undefined;
}

/**
 * Whether the page word at document[start, end) is worth comparing: its length within one of a candidate's and its
 * first letter a candidate's (a misspelling keeps the first letter far more often than not; checking it first
 * keeps a 50 000-word page from being compared word by word).
 */
export function mayBeOneEdit(terms: OneEditTerms, document: string, start: number, end: number): boolean {
  const length = end - start;
  return (
    length >= terms.minLength &&
    length <= terms.maxLength &&
    terms.firstLetters.has(document.charCodeAt(start))
  );
}

/** The term a document word is one edit from (lower-cased before comparing), else undefined. */
export function oneEditTerm(terms: OneEditTerms, word: string): number | undefined {
  if (word.length < terms.minLength || word.length > terms.maxLength) return undefined;
  const lower = word.toLowerCase();
  for (let index = 0; index < terms.words.length; index++)
    if (isOneEdit(lower, terms.words[index]!)) return terms.ids[index];
  return undefined;
}

/**
 * Whether `a` becomes `b` by exactly one edit: a character inserted, deleted or replaced, or two adjacent
 * characters swapped (Damerau–Levenshtein distance 1). Equal words are not one edit apart.
 */
export function isOneEdit(a: string, b: string): boolean {
  if (a.length > b.length) [a, b] = [b, a];
  if (b.length - a.length > 1) return false;
  let head = 0;
  while (head < a.length && a[head] === b[head]) head++;
  if (head === b.length) return false; // equal
  let tail = 0;
  while (tail < a.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  if (a.length < b.length) return head + tail >= a.length; // one inserted into the shorter
  const differing = a.length - head - tail;
  if (differing === 1) return true; // one replaced
  return differing === 2 && a[head] === b[head + 1] && a[head + 1] === b[head]; // two swapped
}
