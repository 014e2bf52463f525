/**
 * The document cut into the pieces a passage is made of: blocks (the runs between blank lines) and, inside them,
 * units (a sentence of prose, a row of a table, an item of a list, a line of code). Offsets are UTF-16 code units
 * into the document; a unit never starts or ends inside a word or a surrogate pair, and never includes the
 * whitespace around it.
 */
export type BlockKind = 'heading' | 'table' | 'list' | 'code' | 'prose';

export interface Block {
  kind: BlockKind;
  start: number;
  end: number;
  /** Its units are units[firstUnit .. lastUnit]. */
  firstUnit: number;
  lastUnit: number;
}

export interface Unit {
  start: number;
  end: number;
  block: number;
}

export interface Segmentation {
  blocks: Block[];
  units: Unit[];
}

/** Longest unit, in characters: a longer sentence (or a text without sentence ends) is cut at word boundaries. */
export const MAX_UNIT_CHARS = 400;

const BLOCK_BREAK = /\n[ \t]*\n+/g;
const TABLE_ROW = /^[ \t]*\|/;
const LIST_ITEM = /^[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]+/;
const FENCE = /^[ \t]*(?:```|~~~)/;
const HEADING = /^#{1,6}[ \t]/;

export function segmentDocument(document: string): Segmentation {
  const blocks: Block[] = [];
  const units: Unit[] = [];
  let start = 0;
  let fenceOpen = false;
  const pushBlock = (from: number, to: number) => {
    const [blockStart, blockEnd] = trim(document, from, to);
    if (blockEnd <= blockStart) return;
    const first = document.slice(blockStart, Math.min(blockEnd, blockStart + 8));
    const kind: BlockKind =
      fenceOpen || FENCE.test(first)
        ? 'code'
        : HEADING.test(first)
          ? 'heading'
          : TABLE_ROW.test(first)
            ? 'table'
            : LIST_ITEM.test(document.slice(blockStart, blockStart + 12))
              ? 'list'
              : 'prose';
    if (kind === 'code')
      fenceOpen = countFences(document, blockStart, blockEnd) % 2 === 1 ? !fenceOpen : fenceOpen;
    const index = blocks.length;
    const firstUnit = units.length;
    if (kind === 'prose') pushSentences(document, blockStart, blockEnd, index, units);
    else if (kind === 'heading') units.push({ start: blockStart, end: blockEnd, block: index });
    else pushLines(document, blockStart, blockEnd, index, kind, units);
    blocks.push({ kind, start: blockStart, end: blockEnd, firstUnit, lastUnit: units.length - 1 });
  };
  for (const match of document.matchAll(BLOCK_BREAK)) {
    pushBlock(start, match.index);
    start = match.index + match[0].length;
  }
  pushBlock(start, document.length);
  return { blocks, units };
}

function countFences(document: string, start: number, end: number): number {
  let count = 0;
  for (const line of document.slice(start, end).split('\n')) if (FENCE.test(line)) count++;
  return count;
}

/** Lines of a table, list or code block; a list item's continuation lines stay with it. */
function pushLines(
  document: string,
  start: number,
  end: number,
  block: number,
  kind: BlockKind,
  units: Unit[],
): void {
  let unitStart = start;
  let lineStart = start;
  while (lineStart < end) {
    let lineEnd = document.indexOf('\n', lineStart);
    if (lineEnd === -1 || lineEnd > end) lineEnd = end;
    const next = lineEnd + 1;
    const nextLine = document.slice(next, Math.min(end, next + 12));
    const continues = kind === 'list' && next < end && !LIST_ITEM.test(nextLine);
    if (!continues) {
      pushCapped(document, unitStart, lineEnd, block, units);
      unitStart = next;
    }
    lineStart = next;
  }
}

/** A mark that may end a sentence, with the closing quotes and brackets that stay with it. */
const TERMINAL = /[.!?…。！？][.!?…。！？"'”’»)\]]*/g;
/** Words that a period does not end a sentence after (lower case, without the period). */
const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'st',
  'sr',
  'jr',
  'vs',
  'etc',
  'e.g',
  'i.e',
  'no',
  'nos',
  'vol',
  'fig',
  'figs',
  'approx',
  'ca',
  'cf',
  'al',
  'inc',
  'ltd',
  'co',
  'corp',
  'gen',
  'col',
  'lt',
  'sgt',
  'capt',
  'gov',
  'sen',
  'rep',
  'rev',
  'fr',
  'mt',
  'ft',
  'jan',
  'feb',
  'mar',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
  'z.b',
  'bzw',
  'usw',
  'vgl',
  'ggf',
  'nr',
  'mme',
  'mlle',
  'sra',
  'dra',
  'pág',
  'núm',
]);

/** Sentences of a prose block: a terminal mark (and closing quotes) followed by whitespace, or a CJK full stop. */
function pushSentences(document: string, start: number, end: number, block: number, units: Unit[]): void {
  let sentenceStart = start;
  TERMINAL.lastIndex = start;
  for (let match = TERMINAL.exec(document); match && match.index < end; match = TERMINAL.exec(document)) {
    const close = Math.min(end, match.index + match[0].length);
    const mark = match[0][0]!;
    const wide = mark === '。' || mark === '！' || mark === '？';
    if (close < end && !wide && !isSpace(document.charCodeAt(close))) continue;
    if (mark === '.' && !endsSentence(document, sentenceStart, match.index, close, end)) continue;
    pushCapped(document, sentenceStart, close, block, units);
    sentenceStart = close;
  }
  if (sentenceStart < end) pushCapped(document, sentenceStart, end, block, units);
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d || code === 0xa0 || code === 0x3000;
}

/** Letters joined by periods (`U.S`, `H.R`, `D.C`): an abbreviation, whatever its letters. */
const DOTTED_INITIALS = /^(?:\p{L}\.)+\p{L}$/u;

/** A period ends a sentence unless it follows an abbreviation or an initial, or a lower-case word follows it. */
function endsSentence(
  document: string,
  sentenceStart: number,
  period: number,
  close: number,
  end: number,
): boolean {
  let wordStart = period;
  while (wordStart > sentenceStart && /[\p{L}.]/u.test(document[wordStart - 1]!)) wordStart--;
  const word = document.slice(wordStart, period).toLowerCase();
  if (word.length === 1 && /\p{L}/u.test(word)) return false;
  if (DOTTED_INITIALS.test(word)) return false;
  if (ABBREVIATIONS.has(word)) return false;
  let next = close;
  while (next < end && /\s/.test(document[next]!)) next++;
  return next >= end || !/\p{Ll}/u.test(document[next]!);
}

/** A unit, cut into pieces of at most MAX_UNIT_CHARS at whitespace (or, in a text without any, between characters). */
function pushCapped(document: string, start: number, end: number, block: number, units: Unit[]): void {
  [start, end] = trim(document, start, end);
  while (end - start > MAX_UNIT_CHARS) {
    let cut = document.lastIndexOf(' ', start + MAX_UNIT_CHARS);
    if (cut <= start + MAX_UNIT_CHARS / 2) cut = characterBoundary(document, start + MAX_UNIT_CHARS);
    const [pieceStart, pieceEnd] = trim(document, start, cut);
    if (pieceEnd > pieceStart) units.push({ start: pieceStart, end: pieceEnd, block });
    start = cut;
    while (start < end && /\s/.test(document[start]!)) start++;
  }
  if (end > start) units.push({ start, end, block });
}

/**
 * Where to cut a run without whitespace near `index`: at or before it, never between a surrogate pair, before a
 * combining mark or a joiner, and after a CJK character or punctuation when there is one close by.
 */
export function characterBoundary(document: string, index: number): number {
  for (let cut = index; cut > index - 40 && cut > 0; cut--)
    if (/[\p{P}\u3000-\u9fff\uac00-\ud7af]/u.test(document[cut - 1]!) && isCharacterBoundary(document, cut))
      return cut;
  let cut = index;
  while (cut > 1 && !isCharacterBoundary(document, cut)) cut--;
  return cut;
}

function isCharacterBoundary(document: string, index: number): boolean {
  const before = document.charCodeAt(index - 1);
  const after = document.charCodeAt(index);
  if (before >= 0xd800 && before < 0xdc00) return false;
  if (before === 0x200d) return false;
  if (after >= 0xdc00 && after < 0xe000) return false;
  const point = document.codePointAt(index) ?? 0;
  const isModifier = point === 0x200d || point === 0xfe0f || (point >= 0x1f3fb && point <= 0x1f3ff);
  return !isModifier && !/\p{M}/u.test(String.fromCodePoint(point));
}

function trim(document: string, start: number, end: number): [number, number] {
  while (start < end && /\s/.test(document[start]!)) start++;
  while (end > start && /\s/.test(document[end - 1]!)) end--;
  return [start, end];
}
