import { stripInvisible } from '../content/invisible-unicode.ts';

/** Named entities that search providers put in titles and snippets; numeric references cover the rest. */
const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ensp: ' ',
  emsp: ' ',
  thinsp: ' ',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  lsquo: '‘',
  rsquo: '’',
  sbquo: '‚',
  ldquo: '“',
  rdquo: '”',
  bdquo: '„',
  laquo: '«',
  raquo: '»',
  middot: '·',
  bull: '•',
  copy: '©',
  reg: '®',
  trade: '™',
  deg: '°',
  times: '×',
  divide: '÷',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
  sect: '§',
  para: '¶',
  shy: '',
  zwnj: '',
  zwj: '',
  iexcl: '¡',
  iquest: '¿',
  agrave: 'à',
  aacute: 'á',
  acirc: 'â',
  auml: 'ä',
  aring: 'å',
  ccedil: 'ç',
  egrave: 'è',
  eacute: 'é',
  ecirc: 'ê',
  euml: 'ë',
  iacute: 'í',
  iuml: 'ï',
  ntilde: 'ñ',
  oacute: 'ó',
  ocirc: 'ô',
  ouml: 'ö',
  oslash: 'ø',
  uacute: 'ú',
  uuml: 'ü',
  szlig: 'ß',
  Auml: 'Ä',
  Eacute: 'É',
  Ouml: 'Ö',
  Uuml: 'Ü',
};

const ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z][a-zA-Z0-9]{1,31}));?/g;

/** Decode HTML character references; unknown names are kept as written. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(ENTITY, (whole, decimal?: string, hex?: string, name?: string) => {
    if (name !== undefined) return NAMED_ENTITIES[name] ?? whole;
    const codePoint = Number.parseInt(decimal ?? hex ?? '', decimal === undefined ? 16 : 10);
    if (codePoint === 0 || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff))
      return '\uFFFD';
    return String.fromCodePoint(codePoint);
  });
}

const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)[^<>]*>|<!--[\s\S]*?-->/g;
/** Tags that separate words: replaced by a space. Inline ones (`<b>`, `<span>`) vanish: `<b>Go</b>lang` → `Golang`. */
const BREAKING_TAG =
  /^(?:br|p|div|li|ul|ol|tr|td|th|h[1-6]|hr|section|article|header|footer|blockquote|dd|dt)$/i;
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\u200B\uFEFF]/g;
const HAS_CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\u200B\uFEFF]/;
/** Anything `\s+ → ' '` and trim would change. */
const MESSY_SPACE = /^\s|\s$|\s\s|[^\S ]/;

/**
 * Tags stripped, entities decoded, invisible characters (zero-width, tag characters, bidi overrides:
 * `stripInvisible`, as for fetched pages) and control characters removed, whitespace folded to single spaces.
 */
export function cleanText(value: unknown): string {
  if (typeof value !== 'string' || value === '') return '';
  let text = value;
  if (text.includes('<')) {
    text = text.replace(TAG, (_whole, _slash, name?: string) => (name && BREAKING_TAG.test(name) ? ' ' : ''));
  }
  if (text.includes('&')) text = decodeEntities(text);
  text = stripInvisible(text);
  if (HAS_CONTROL.test(text)) text = text.replace(CONTROL, '');
  return MESSY_SPACE.test(text) ? text.replace(/\s+/g, ' ').trim() : text;
}
