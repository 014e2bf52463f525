import { createRequire } from 'node:module';

/** How a language's words are compared: a stemmer and a stop-word test, both on lower-cased words. */
export interface LanguageTools {
  /** The primary subtag the tools are for (`en`, `de`, …), or `und` when the language has none. */
  language: string;
  stem(word: string): string;
  isStopWord(word: string): boolean;
}

/** BCP 47 primary subtag → the @orama subpath of its Snowball stemmer and stop-word list. */
const ORAMA_NAMES: Readonly<Record<string, string>> = {
  en: 'english',
  de: 'german',
  fr: 'french',
  es: 'spanish',
  it: 'italian',
  pt: 'portuguese',
  nl: 'dutch',
  sv: 'swedish',
  da: 'danish',
  no: 'norwegian',
  nb: 'norwegian',
  nn: 'norwegian',
  fi: 'finnish',
  ru: 'russian',
  uk: 'ukrainian',
  tr: 'turkish',
  hu: 'hungarian',
  ro: 'romanian',
  lt: 'lithuanian',
  ga: 'irish',
  id: 'indonesian',
  ar: 'arabic',
  hy: 'armenian',
  bg: 'bulgarian',
  el: 'greek',
  ne: 'nepali',
  sr: 'serbian',
  ta: 'tamil',
};

const IDENTITY: LanguageTools = { language: 'und', stem: (word) => word, isStopWord: () => false };
const loaded = new Map<string, LanguageTools>();
// Loaded on first use, synchronously (selectPassages is synchronous): a fetch without a query loads nothing.
const require = createRequire(import.meta.url);

/** The stemmer and stop words for a BCP 47 tag (`en-GB` → English); unknown languages compare words as written. */
export function languageTools(tag: string): LanguageTools {
  const language = tag.toLowerCase().split(/[-_]/)[0] ?? '';
  const cached = loaded.get(language);
  if (cached) return cached;
  const name = ORAMA_NAMES[language];
  const tools = name ? load(language, name) : IDENTITY;
  loaded.set(language, tools);
  return tools;
}

function load(language: string, name: string): LanguageTools {
  const { stemmer } = require(`@orama/stemmers/${name}`) as { stemmer: (word: string) => string };
  const { stopwords } = require(`@orama/stopwords/${name}`) as { stopwords: string[] };
  const stopWords = new Set(stopwords.map((word) => word.toLowerCase()));
  return { language, stem: stemmer, isStopWord: (word) => stopWords.has(word) };
}
