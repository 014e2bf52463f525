/**
 * An upper bound on the tokens a text costs a model, in one pass over its UTF-16 code units, with no tokenizer at
 * run time: the output budget (`fetch.maxTokens`) must hold for whatever a page holds, or clients that reject
 * results over 25 000 tokens (Claude Code, Claude Desktop, Cursor) reject the whole call.
 *
 * Why per character class, with a little state: a flat characters-per-token figure is either far too pessimistic
 * for English or far too optimistic for hex, base64, digits and most non-Latin scripts. Byte-pair tokenizers first
 * split text into pieces (a word with its leading space, up to three digits, a run of punctuation, a run of
 * newlines) and every piece is at least one token, so the estimate charges a token where a piece starts and
 * little for letters inside a word, more for long words, capital runs and consonant clusters (identifiers,
 * base64), and a flat amount per character for the other scripts, up to their UTF-8 bytes (a token is at least
 * one byte).
 *
 * Calibrated against o200k_base and cl100k_base (js-tiktoken) in 6 000-character pieces of the 130 readability-corpus
 * pages (markdown, text and raw HTML), 351 multilingual pages, 132 source, JSON, CSS, SVG and README files,
 * paragraphs in 46 languages and synthetic hex, base64, JWTs, UUIDs, digits, CSV, URLs, markdown tables and emoji:
 * the estimate is at least 1.08 × the larger of the two counts in every piece, except pieces made almost only of
 * one-character tokens (number arrays in minified code, SVG path data), where it is at least 1.03 ×. The price is
 * English prose, over-counted about 1.7× by both (2.3 characters per estimated token against 3.9 per o200k token on
 * 59 English pages), because Finnish, German and code pay for the same long words: with the default budget an
 * English window ends near 46 000 characters rather than at `maxChars` (50 000). Not covered: text made only of
 * rare Han characters (cl100k spends up to 2.4 tokens on each) and random lowercase "words". token-estimate.test.ts
 * keeps the bound against both tokenizers.
 *
 * Costs are in twelfths of a token, so sums stay exact integers.
 */
export const TWELFTHS_PER_TOKEN = 12;

/** Where a piece starts: a word, a 1–3 digit group, a punctuation run, a newline run, a tab or control. */
const PIECE = 12;
/** The fifth and later letters of a word (long words split into sub-words). */
const LONG_WORD_LETTER = 8;
/** The third and later consonants in a row (identifiers, base64, abbreviations). */
const CONSONANT_CLUSTER = 5;
/** A capital after a capital: acronyms and random mixed-case strings tokenize badly. */
const CAPITAL_RUN = 12;
/** A digit inside a 1–3 digit group. */
const GROUP_DIGIT = 5;
/** A space before a digit is a token of its own. */
const SPACE_BEFORE_DIGIT = 4;
/** Indentation and other runs of spaces. */
const SPACE_RUN = 5;
/** Punctuation after punctuation (`://`, `();`, `---`). */
const PUNCTUATION_RUN = 5;
/** Newlines after a newline. */
const NEWLINE_RUN = 2;
/** Latin-1 and Latin Extended letters (é, ß, ł): charged on top of the word they are in. */
const LATIN_EXTENDED = 15;

/** What the previous code unit was. */
const OTHER = 0;
const LETTER = 1;
const CAPITAL = 2;
const DIGIT = 3;
const SPACE = 4;
const PUNCTUATION = 5;
const NEWLINE = 6;

/** Non-ASCII code units that are not Latin letters: a flat cost per block, ordered by the block's first code unit. */
const BLOCK_STARTS = [
  0x0080, 0x0250, 0x0300, 0x0370, 0x0400, 0x0530, 0x0590, 0x0600, 0x0700, 0x0750, 0x0780, 0x08a0, 0x0900,
  0x0980, 0x0a00, 0x0e00, 0x0e80, 0x1100, 0x1200, 0x1e00, 0x1f00, 0x2000, 0x2070, 0x2e80, 0x3000, 0x3040,
  0x3100, 0x3400, 0xa000, 0xac00, 0xd7b0, 0xd800, 0xe000, 0xf900, 0xfb00, 0xff00, 0xfff0,
];
const BLOCK_TWELFTHS = [
  15, // Latin-1 symbols and punctuation (no-break space, ©, «, °)
  27, // IPA, spacing modifiers
  33, // combining diacritics
  15, // Greek
  12, // Cyrillic
  30, // Armenian
  15, // Hebrew
  15, // Arabic
  36, // Syriac, Thaana
  15, // Arabic supplement
  36, // Thaana, NKo, Samaritan, Mandaic
  15, // Arabic extended
  18, // Devanagari
  21, // Bengali
  30, // Gurmukhi, Gujarati, Oriya, Tamil, Telugu, Kannada, Malayalam, Sinhala
  15, // Thai
  30, // Lao, Tibetan, Myanmar, Georgian
  36, // Hangul Jamo
  39, // Ethiopic, Cherokee, Canadian syllabics, Khmer, Mongolian, …
  15, // Latin Extended Additional (Vietnamese)
  36, // Greek Extended
  12, // general punctuation (dashes, curly quotes)
  21, // symbols, arrows, maths, box drawing, dingbats
  30, // CJK radicals
  12, // CJK punctuation
  15, // hiragana, katakana
  30, // bopomofo, CJK compatibility
  24, // CJK unified ideographs (common ones cost 1–2 tokens in cl100k)
  39, // Yi and other syllabaries
  18, // Hangul syllables
  36, // Hangul Jamo extended
  24, // surrogate halves: emoji, rare ideographs (4 UTF-8 bytes a pair)
  36, // private use (icon fonts)
  30, // CJK compatibility ideographs
  36, // presentation forms, variation selectors, byte-order mark
  12, // full-width forms
  36, // specials
];

function blockTwelfths(code: number): number {
  let low = 0;
  let high = BLOCK_STARTS.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (BLOCK_STARTS[middle]! <= code) low = middle;
    else high = middle - 1;
  }
  return BLOCK_TWELFTHS[low]!;
}

/** Vowels (and y), by lower-cased ASCII code. */
const isVowel = (lower: number) =>
  lower === 0x61 || lower === 0x65 || lower === 0x69 || lower === 0x6f || lower === 0x75 || lower === 0x79;

export interface TokenEstimate {
  /** Estimated tokens of text[start, end), in twelfths of a token. */
  twelfths: number;
  /** Where the scan stopped: `end`, or the first code unit that would have taken the sum over the budget. */
  end: number;
}

/**
 * Estimate text[start, end) in twelfths of a token, stopping before the code unit that would take the sum over
 * `budgetTwelfths`. The scan starts as if at the start of a text (the most expensive assumption).
 */
export function measureTokens(
  text: string,
  start = 0,
  end = text.length,
  budgetTwelfths = Number.POSITIVE_INFINITY,
): TokenEstimate {
  let twelfths = 0;
  let previous = OTHER;
  let letters = 0; // letters so far in the current word
  let consonants = 0; // consonants in a row in the current word
  let digits = 0; // digits so far in the current number
  let index = start;
  for (; index < end; index++) {
    const code = text.charCodeAt(index);
    let cost: number;
    let kind: number;
    if ((code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (code >= 0xc0 && code < 0x250)) {
      kind = code <= 0x5a ? CAPITAL : LETTER;
      if (letters === 0 || (kind === CAPITAL && previous === LETTER)) {
        cost = PIECE;
        letters = 1;
      } else {
        letters++;
        if (kind === CAPITAL && previous === CAPITAL) cost = CAPITAL_RUN;
        else cost = letters <= 4 ? 0 : LONG_WORD_LETTER;
      }
      if (code >= 0xc0) {
        cost += LATIN_EXTENDED;
        consonants = 0;
        kind = LETTER;
      } else if (isVowel(code | 0x20)) consonants = 0;
      else if (++consonants >= 3) cost += CONSONANT_CLUSTER;
      digits = 0;
    } else {
      letters = 0;
      consonants = 0;
      if (code >= 0x30 && code <= 0x39) {
        kind = DIGIT;
        cost = (digits % 3 === 0 ? PIECE : GROUP_DIGIT) + (previous === SPACE ? SPACE_BEFORE_DIGIT : 0);
        digits++;
      } else {
        digits = 0;
        if (code === 0x20) {
          kind = SPACE;
          cost = previous === SPACE ? SPACE_RUN : 0;
        } else if (code === 0x0a || code === 0x0d) {
          kind = NEWLINE;
          cost = previous === NEWLINE ? NEWLINE_RUN : PIECE;
        } else if (code > 0x20 && code < 0x7f) {
          kind = PUNCTUATION;
          cost = previous === PUNCTUATION ? PUNCTUATION_RUN : PIECE;
        } else {
          kind = OTHER;
          cost = code < 0x80 ? PIECE : blockTwelfths(code);
        }
      }
    }
    if (twelfths + cost > budgetTwelfths) break;
    twelfths += cost;
    previous = kind;
  }
  return { twelfths, end: index };
}

/** Estimated tokens of a whole text (an upper bound for o200k and cl100k, see above). */
export function estimateTokens(text: string): number {
  return Math.ceil(measureTokens(text).twelfths / TWELFTHS_PER_TOKEN);
}
