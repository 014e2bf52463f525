import type { LanguageTools } from './language-tools.ts';
import { scanWords } from './word-scanner.ts';

/**
 * How a word is compared: lower case, composed, stemmed, then without the Latin diacritics the stemmer left
 * (`vipāka` is `vipaka`, `stūpas` is `stupas`: pages transliterate with them, questions without). Only the
 * combining marks U+0300–U+036F go, so Hangul, Devanagari or Arabic words keep every letter.
 */
export function normalizeWord(word: string, tools: LanguageTools): string {
  const lower = tools.language === 'en' ? americanSpelling(word.toLowerCase()) : word.toLowerCase();
  if (!NON_ASCII.test(lower)) return tools.stem(lower);
  const stem = tools.stem(lower.normalize('NFC'));
  return NON_ASCII.test(stem) ? stem.normalize('NFD').replace(LATIN_MARKS, '').normalize('NFC') : stem;
}

/**
 * British `-ise` spellings as American `-ize` (`baptised` is `baptized`, `organisation` is `organization`), on
 * both sides, so a question in one spelling finds a page in the other. Words of 7 letters or more only, which
 * leaves `raise`, `wise`, `prise` alone; a word that is `-ise` in both spellings (`promise`) changes on both sides
 * alike.
 */
function americanSpelling(lower: string): string {
  return lower.length >= 7 ? lower.replace(BRITISH_ISE, 'iz$1') : lower;
}

const BRITISH_ISE = /is(ation|ations|e|es|ed|ing|er|ers)$/;
const NON_ASCII = /[^\x00-\x7f]/;
const LATIN_MARKS = /[\u0300-\u036f]/g;

export interface QueryTerms {
  /** The distinct terms: stems, numbers, ideographic characters and pairs of them. */
  terms: string[];
  /** Quoted phrases, as sequences of term ids. */
  phrases: number[][];
  /** Terms that are numbers (years, quantities): they rarely match by chance. */
  isNumber: boolean[];
  /** Terms only there to find a phrase (its stop words), not scored on their own. */
  phraseOnly: boolean[];
  /** The query's word each scored term came from, lower-cased ('' for ideographs and phrase-only terms). */
  words: string[];
}

/** The query's terms: stop words left out (unless the query has nothing else), each term once. */
export function queryTerms(query: string, tools: LanguageTools): QueryTerms {
  const terms: string[] = [];
  const isNumber: boolean[] = [];
  const phraseOnly: boolean[] = [];
  const termWords: string[] = [];
  const ids = new Map<string, number>();
  const idOf = (term: string, scored: boolean, word = '') => {
    let id = ids.get(term);
    if (id === undefined) {
      id = terms.length;
      ids.set(term, id);
      terms.push(term);
      isNumber.push(/^\p{N}+$/u.test(term));
      phraseOnly.push(!scored);
      termWords.push(word);
    }
    return id;
  };
  const words = queryWords(query, tools);
  const content = words.filter(
    (word) => word.ideographic || (!tools.isStopWord(word.text.toLowerCase()) && !isLoneLetter(word.text)),
  );
  for (const word of content.length > 0 ? content : words)
    idOf(word.term, true, word.ideographic ? '' : word.text.toLowerCase());
  const phrases: number[][] = [];
  for (const quoted of query.matchAll(/["“«„]([^"”»“]{3,})["”»“]/g)) {
    const sequence = queryWords(quoted[1] ?? '', tools).map((word) => idOf(word.term, false));
    if (sequence.length > 1) phrases.push(sequence);
  }
  return { terms, phrases, isNumber, phraseOnly, words: termWords };
}

/** A single letter ("a", the "s" of "Whitehead's"): never what a question is about. */
function isLoneLetter(word: string): boolean {
  return word.length === 1 && !/\p{N}/u.test(word);
}

interface QueryWord {
  text: string;
  term: string;
  ideographic: boolean;
}

/**
 * The query's words as terms: stems, and in ideographic text each pair of adjacent characters (a character alone
 * when it has no ideographic neighbour), the way a document's characters are matched.
 */
function queryWords(query: string, tools: LanguageTools): QueryWord[] {
  const words: QueryWord[] = [];
  let runStart = -1;
  let runEnd = -1;
  let lastStart = -1;
  const closeRun = () => {
    if (runStart >= 0 && lastStart === runStart) {
      const text = query.slice(runStart, runEnd);
      words.push({ text, term: text, ideographic: true });
    }
    runStart = -1;
  };
  scanWords(query, {
    word(start, end) {
      closeRun();
      const text = query.slice(start, end);
      words.push({ text, term: normalizeWord(text, tools), ideographic: false });
    },
    ideograph(start, end) {
      if (runStart >= 0 && start === runEnd) {
        const text = query.slice(lastStart, end);
        words.push({ text, term: text, ideographic: true });
      } else {
        closeRun();
        runStart = start;
      }
      lastStart = start;
      runEnd = end;
    },
  });
  closeRun();
  return words;
}
