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

/** Tags stripped, entities decoded, control characters removed, whitespace folded to single spaces. */
export function cleanText(value: unknown): string {
  if (typeof value !== 'string' || value === '') return '';
  let text = value;
  if (text.includes('<')) {
    text = text.replace(TAG, (_whole, _slash, name?: string) => (name && BREAKING_TAG.test(name) ? ' ' : ''));
  }
  if (text.includes('&')) text = decodeEntities(text);
  if (HAS_CONTROL.test(text)) text = text.replace(CONTROL, '');
  return MESSY_SPACE.test(text) ? text.replace(/\s+/g, ' ').trim() : text;
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const RELATIVE = /^(?:about\s+)?(\d+|an?|one)\s+(second|minute|hour|day|week|month|year)s?\s+ago$/i;
const UNIT_MS: Record<string, number> = {
  second: 1_000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 604_800_000,
  month: 2_592_000_000,
  year: 31_536_000_000,
};

/**
 * A provider's date as ISO 8601: a date alone stays `YYYY-MM-DD`, anything with a time becomes UTC
 * `YYYY-MM-DDTHH:mm:ss.sssZ`. Understands ISO forms, RFC 2822 (`Tue, 05 Mar 2024 10:00:00 GMT`), `Mar 5, 2024`,
 * epoch seconds or milliseconds, `yesterday` and `3 days ago`. Undefined when the value cannot be read.
 */
export function normaliseDate(value: unknown, nowMs = Date.now()): string | undefined {
  if (typeof value === 'number') return fromEpoch(value);
  if (typeof value !== 'string') return undefined;
  const iso = ISO_DATE_TIME.exec(value);
  if (iso) {
    // No zone: read as UTC (JavaScript would read it as local time, which depends on the machine).
    const parsed = Date.parse(iso[1] === undefined ? `${value}Z` : value);
    return Number.isNaN(parsed) ? undefined : new Date(parsed).toISOString();
  }
  const text = cleanText(value);
  if (text === '') return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return Number.isNaN(Date.parse(text)) ? undefined : text;
  if (/^\d{9,13}$/.test(text)) return fromEpoch(Number(text));
  const lower = text.toLowerCase();
  if (lower === 'today' || lower === 'just now') return new Date(nowMs).toISOString();
  if (lower === 'yesterday') return new Date(nowMs - UNIT_MS.day!).toISOString();
  const relative = RELATIVE.exec(text);
  if (relative) {
    const amount = /^\d+$/.test(relative[1]!) ? Number(relative[1]) : 1;
    return new Date(nowMs - amount * UNIT_MS[relative[2]!.toLowerCase()]!).toISOString();
  }
  const parsed = Date.parse(text);
  if (Number.isNaN(parsed)) return undefined;
  const year = new Date(parsed).getUTCFullYear();
  return year < 1990 || year > 2200 ? undefined : new Date(parsed).toISOString();
}

function fromEpoch(value: number): string | undefined {
  if (!Number.isFinite(value) || value <= 0) return undefined;
  const ms = value < 1e11 ? value * 1000 : value;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
