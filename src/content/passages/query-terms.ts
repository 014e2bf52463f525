import type { LanguageTools } from './language-tools.ts';

/**
 * Words as the ranker compares them. A token is a run of letters, marks and digits; a run of Han, kana or
 * other ideographic characters is compared by characters and pairs of characters instead (those scripts do not
 * put spaces between words).
 */
export const TOKEN = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]+|[[\p{L}\p{M}\p{N}]--[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]]+/gv;
const IDEOGRAPHIC = /^[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/v;

export function isIdeographic(token: string): boolean {
  return IDEOGRAPHIC.test(token);
}

/** How a word is compared: lower case, composed, stemmed. */
export function normalizeWord(word: string, tools: LanguageTools): string {
  const lower = word.toLowerCase();
  const composed = /[^\x00-\x7f]/.test(lower) ? lower.normalize('NFC') : lower;
  return tools.stem(composed);
}

export interface QueryTerms {
  /** The distinct terms (stems, numbers, ideographic characters and pairs) and how much each weighs. */
  terms: string[];
  /** Quoted phrases, as term-id sequences, found verbatim when their terms are adjacent. */
  phrases: number[][];
  /** Terms that are numbers (years, quantities): weighted up, they rarely match by chance. */
  isNumber: boolean[];
}

/** The query's terms: stop words left out (unless the query has nothing else), each term once. */
export function queryTerms(query: string, tools: LanguageTools): QueryTerms {
  const terms: string[] = [];
  const isNumber: boolean[] = [];
  const ids = new Map<string, number>();
  const idOf = (term: string) => {
    let id = ids.get(term);
    if (id === undefined) {
      id = terms.length;
      ids.set(term, id);
      terms.push(term);
      isNumber.push(/^\p{N}+$/u.test(term));
    }
    return id;
  };
  const words = [...query.matchAll(TOKEN)].map((match) => match[0]);
  const content = words.filter((word) => isIdeographic(word) || !tools.isStopWord(word.toLowerCase()));
  for (const word of content.length > 0 ? content : words)
    for (const term of termsOf(word, tools)) idOf(term);
  const phrases: number[][] = [];
  for (const quoted of query.matchAll(/["“«„]([^"”»“]{3,})["”»“]/g)) {
    const sequence = [...(quoted[1] ?? '').matchAll(TOKEN)].flatMap((match) => termsOf(match[0], tools).map(idOf));
    if (sequence.length > 1) phrases.push(sequence);
  }
  return { terms, phrases, isNumber };
}

/** The terms a token stands for: its stem, or for an ideographic run its characters' pairs (or the character). */
export function termsOf(token: string, tools: LanguageTools): string[] {
  if (!isIdeographic(token)) return [normalizeWord(token, tools)];
  const characters = [...token];
  if (characters.length === 1) return characters;
  const pairs: string[] = [];
  for (let index = 0; index + 1 < characters.length; index++) pairs.push(characters[index]! + characters[index + 1]!);
  return pairs;
}
