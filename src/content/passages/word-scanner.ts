/**
 * Words as the ranker sees them, found in one pass over UTF-16 code units (a Unicode-property regex over a long
 * document costs several times more). A word is a run of letters, marks and digits; Han and kana characters
 * (scripts written without spaces) are words of one character each, and their pairs are compared too.
 */
const OTHER = 0;
const WORD = 1;
const IDEOGRAPH = 2;

const UNKNOWN = 255;
/** Per BMP code unit: OTHER, WORD or IDEOGRAPH, filled in as characters are met (a document uses few). */
const classes = new Uint8Array(0x10000).fill(UNKNOWN);
for (let code = 0; code < 0x80; code++)
  classes[code] = /[A-Za-z0-9]/.test(String.fromCharCode(code)) ? WORD : OTHER;
/** Per BMP code unit, lower case without diacritics (0 until met). */
const folded = new Uint16Array(0x10000);

function classify(character: string): number {
  if (/[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/u.test(character)) return IDEOGRAPH;
  return /[\p{L}\p{M}\p{N}]/u.test(character) ? WORD : OTHER;
}

/** The class of the character at `index` (a surrogate pair is classed as its code point). */
function classAt(text: string, index: number, table: Uint8Array): number {
  const code = text.charCodeAt(index);
  if (code < 0xd800 || code >= 0xe000) {
    const known = table[code]!;
    if (known !== UNKNOWN) return known;
    const found = classify(text[index]!);
    table[code] = found;
    return found;
  }
  const point = text.codePointAt(index)!;
  return point < 0x10000 ? OTHER : classify(String.fromCodePoint(point));
}

export interface WordVisitor {
  /** A word of letters and digits at text[start, end). */
  word(start: number, end: number): void;
  /** One ideographic character at text[start, end) (two code units for a surrogate pair). */
  ideograph(start: number, end: number): void;
}

/** Visit the words of text[start, end) in order. */
export function scanWords(text: string, visitor: WordVisitor, start = 0, end = text.length): void {
  const table = classes;
  let index = start;
  while (index < end) {
    const kind = classAt(text, index, table);
    const width = isHighSurrogate(text.charCodeAt(index)) ? 2 : 1;
    if (kind === OTHER) {
      index += width;
    } else if (kind === IDEOGRAPH) {
      visitor.ideograph(index, index + width);
      index += width;
    } else {
      const wordStart = index;
      index += width;
      while (index < end) {
        const code = text.charCodeAt(index);
        if (code < 0x80) {
          if (table[code] !== WORD) break;
          index++;
        } else {
          if (classAt(text, index, table) !== WORD) break;
          index += isHighSurrogate(code) ? 2 : 1;
        }
      }
      visitor.word(wordStart, index);
    }
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code < 0xdc00;
}

/** The code unit lower-cased and without diacritics (ä → a, ß → s, Σ → σ). */
function fold(code: number): number {
  const known = folded[code]!;
  if (known !== 0) return known;
  const base = String.fromCharCode(code).toLowerCase().normalize('NFD').charCodeAt(0);
  folded[code] = base;
  return base;
}

/** A number naming the first two characters of a word, folded: stems keep them, so they pre-select words to stem. */
export function prefixKey(text: string, start: number, end: number): number {
  const first = fold(text.charCodeAt(start));
  const second = start + 1 < end ? fold(text.charCodeAt(start + 1)) : 0;
  return first * 0x10000 + second;
}
