/**
 * Characters a reader never sees but a model reads: the carriers of "ASCII smuggling" and hidden
 * instructions. Zero-width space and joiners, word joiner and invisible operators, deprecated format controls,
 * BOM, the whole tag block, bidi embeddings/overrides/isolates, soft hyphen, the invisible musical and shorthand
 * format controls, and runs of variation selectors.
 */
const INVISIBLE =
  /[\u00ad\u200b\u2060-\u206f\ufeff\ufff0-\ufff8\u202a-\u202e\u{1bca0}-\u{1bca3}\u{1d173}-\u{1d17a}]|[\u200c\u200d]|\u{1f3f4}(?:\u{e0067}\u{e0062}(?:\u{e0065}\u{e006e}\u{e0067}|\u{e0073}\u{e0063}\u{e0074}|\u{e0077}\u{e006c}\u{e0073}))\u{e007f}|[\u{e0000}-\u{e00ff}\u{e01f0}-\u{e0fff}]|[\ufe00-\ufe0f\u{e0100}-\u{e01ef}]+/gu;

/** A character a zero-width (non-)joiner legitimately sits after: a non-Latin letter or mark, an emoji. */
const JOINABLE_BEFORE =
  /\p{Extended_Pictographic}|\p{Emoji_Modifier}|\ufe0f|(?!\p{Script=Latin})[\p{L}\p{M}]/u;
const JOINABLE_AFTER = /\p{Extended_Pictographic}|(?!\p{Script=Latin})[\p{L}\p{M}]/u;
const HAN = /\p{Script=Han}/u;
const EMOJI = /\p{Emoji}/u;
const LATIN_OR_ASCII = /[\p{ASCII}\p{Script=Latin}]/u;

/**
 * Remove invisible characters from text that will reach the model. Kept where they carry meaning and
 * cannot carry a message: a zero-width (non-)joiner between two emoji or two letters of a script that
 * uses it (Persian, Devanagari, …), the three subdivision flags in Unicode's recommended set (England,
 * Scotland, Wales: 🏴 + their tag letters + cancel tag; any other tag character goes, since a run of tags
 * spells ASCII that a model reads and a browser does not show), and a single variation selector where one
 * selects a glyph: emoji/text presentation (U+FE0E/FE0F) after an emoji, U+FE00–FE0D after a non-Latin
 * character (maths symbols, CJK compatibility ideographs, Myanmar, …), an ideographic variant after a Han
 * character. A selector after a Latin letter or ASCII selects nothing a reader sees, and is dropped.
 */
export function stripInvisible(text: string): string {
  if (!hasCandidate(text)) return text;
  return text.replace(INVISIBLE, (match, offset: number, whole: string) => {
    const first = match.codePointAt(0) ?? 0;
    if (first === 0x1f3f4) return match;
    if (first === 0x200c || first === 0x200d) {
      const before = lastCodePoint(whole, offset);
      const after = String.fromCodePoint(whole.codePointAt(offset + 1) ?? 0x20);
      return JOINABLE_BEFORE.test(before) && JOINABLE_AFTER.test(after) ? match : '';
    }
    if (isVariationSelector(first)) {
      if ([...match].length > 1) return '';
      const before = lastCodePoint(whole, offset);
      if (first >= 0xe0100) return HAN.test(before) ? match : '';
      if (first >= 0xfe0e) return EMOJI.test(before) ? match : '';
      return LATIN_OR_ASCII.test(before) ? '' : match;
    }
    return '';
  });
}

/** A cheap pre-check: most text has none of these, and the regex replace is then skipped. */
function hasCandidate(text: string): boolean {
  return /[\u00ad\u200b-\u200d\u202a-\u202e\u2060-\u206f\ufeff\ufff0-\ufff8]|[\u{fe00}-\u{fe0f}]|[\u{1bca0}-\u{1bca3}\u{1d173}-\u{1d17a}]|[\u{e0000}-\u{e0fff}]/u.test(
    text,
  );
}

function isVariationSelector(code: number): boolean {
  return (code >= 0xfe00 && code <= 0xfe0f) || (code >= 0xe0100 && code <= 0xe01ef);
}

/** The code point that ends just before `offset` (a surrogate pair counts as one). */
function lastCodePoint(text: string, offset: number): string {
  if (offset === 0) return ' ';
  const low = text.charCodeAt(offset - 1);
  const start = low >= 0xdc00 && low < 0xe000 && offset >= 2 ? offset - 2 : offset - 1;
  return String.fromCodePoint(text.codePointAt(start) ?? 0x20);
}
