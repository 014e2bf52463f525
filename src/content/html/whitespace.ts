/**
 * Characters between which a line break in the source is not a word space (CSS Text 3 segment-break
 * transformation): Han, kana, CJK punctuation and full-width forms. Hangul is left out: Korean uses spaces.
 */
const WIDE =
  '\\u2e80-\\u2fff\\u3000-\\u303f\\u3040-\\u30ff\\u3100-\\u312f\\u31a0-\\u31ff\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff\\ufe30-\\ufe4f\\uff00-\\uffef\\u{20000}-\\u{3ffff}';
const BREAK_BETWEEN_WIDE = new RegExp(
  `(?<=[${WIDE}])[\\t\\n\\f\\r ]*[\\n\\r][\\t\\n\\f\\r ]*(?=[${WIDE}])`,
  'gu',
);
const HTML_WHITESPACE = /[\t\n\f\r \u00a0]+/g;
const INVISIBLE = /[\u00ad\u200b\ufeff]/g;

/** Collapse a text node's whitespace to single spaces, as rendered; line breaks inside CJK text vanish. */
export function collapseWhitespace(text: string): string {
  let result = text;
  if (result.includes('\n') || result.includes('\r')) result = result.replace(BREAK_BETWEEN_WIDE, '');
  return result.replace(HTML_WHITESPACE, ' ').replace(INVISIBLE, '');
}

/** Tidy assembled inline text: one space between words, no spaces around line breaks, no blank edges. */
export function tidyLines(text: string): string {
  return text
    .replace(/ {2,}/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
