/**
 * The tags of an HTML string exactly as htmlparser2 10's tokenizer (HTML mode, which linkedom uses) finds
 * them, quirks included: comments end at the first `-->` counting the dashes of `<!--` (so `<!-->` is a
 * whole comment), `<!>` runs to the next `>`, `<![CDATA[` to `]]>`, an end tag's name runs to `>` or a space
 * (`</div/>` closes nothing), attributes follow the tokenizer's states (`<a ="x>` ends at that `>`), only
 * ASCII whitespace separates, and raw text (`<script>`, `<style>`, `<title>`, `<textarea>`, `<xmp>`, and
 * the parser's look-alikes `<xitle>`, `<xextarea>`, `<tmp>`) runs to its end tag, but not after `<script/>`.
 * Any difference from the parser would let markup hide nesting from `limitNesting`.
 */
export type Tag = StartTag | EndTag;

export interface StartTag {
  kind: 'start';
  /** Lower-cased, as the parser names the element. */
  name: string;
  start: number;
  /** Just after the `>` of the tag itself. */
  end: number;
  /** Ended by `/>` (the parser closes the element only in SVG and MathML). */
  selfClosing: boolean;
  /** Raw-text elements: where the text and its end tag end, and the name that end tag closes. */
  rawText?: { end: number; endTagName: string | undefined } | undefined;
}

export interface EndTag {
  kind: 'end';
  name: string;
  start: number;
  end: number;
}

const TAB = 0x09;
const LF = 0x0a;
const FF = 0x0c;
const CR = 0x0d;
const SPACE = 0x20;
const BANG = 0x21;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;
const DASH = 0x2d;
const SLASH = 0x2f;
const LT = 0x3c;
const EQUALS = 0x3d;
const GT = 0x3e;
const QUESTION_MARK = 0x3f;
const OPEN_BRACKET = 0x5b;

/** Start tags (ASCII case-insensitive) whose content the tokenizer reads as text, and the end tag it waits for. */
const RAW_TEXT_END_TAGS = new Map([
  ['script', 'script'],
  ['style', 'style'],
  ['title', 'title'],
  ['xitle', 'title'],
  ['textarea', 'textarea'],
  ['xextarea', 'textarea'],
  ['xmp', 'xmp'],
  ['tmp', 'xmp'],
]);

/** Every tag of `html` in document order. */
export function* scanTags(html: string): Generator<Tag> {
  let position = 0;
  for (;;) {
    const start = html.indexOf('<', position);
    if (start === -1) return;
    const next = html.charCodeAt(start + 1);
    let read: Tag | number;
    if (next === BANG) read = skipDeclaration(html, start);
    else if (next === QUESTION_MARK) read = after(html, '>', start + 2);
    else if (next === SLASH) read = readEndTag(html, start);
    else if (isAsciiAlpha(next)) read = readStartTag(html, start);
    else read = start + 1;
    if (typeof read === 'number') {
      if (read >= html.length) return;
      position = read;
      continue;
    }
    yield read;
    position = read.kind === 'start' ? (read.rawText?.end ?? read.end) : read.end;
  }
}

function isSpace(code: number): boolean {
  return code === SPACE || code === LF || code === TAB || code === FF || code === CR;
}

function isEndOfTagSection(code: number): boolean {
  return code === SLASH || code === GT || isSpace(code);
}

function isAsciiAlpha(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/** Index just after the next `marker` at or after `from`, or the end of the text. */
function after(html: string, marker: string, from: number): number {
  const found = html.indexOf(marker, from);
  return found === -1 ? html.length : found + marker.length;
}

/** `<!…`: a comment, CDATA section or declaration; the index where text resumes. */
function skipDeclaration(html: string, start: number): number {
  const next = html.charCodeAt(start + 2);
  if (next === OPEN_BRACKET) {
    return html.startsWith('CDATA[', start + 3) ? after(html, ']]>', start + 9) : after(html, '>', start + 3);
  }
  if (next === DASH) {
    return html.charCodeAt(start + 3) === DASH ? after(html, '-->', start + 2) : after(html, '>', start + 4);
  }
  // The character after `<!` is consumed unread, even a `>`.
  return after(html, '>', start + 3);
}

/** `</…`: an end tag, or the index where text resumes (`</>`, `</1…>`); the end when the input ends inside. */
function readEndTag(html: string, start: number): EndTag | number {
  let index = start + 2;
  while (isSpace(html.charCodeAt(index))) index += 1;
  if (index >= html.length) return html.length;
  const first = html.charCodeAt(index);
  if (first === GT) return index + 1;
  if (!isAsciiAlpha(first)) return after(html, '>', index);
  let nameEnd = index;
  while (nameEnd < html.length) {
    const code = html.charCodeAt(nameEnd);
    if (code === GT || isSpace(code)) break;
    nameEnd += 1;
  }
  if (nameEnd >= html.length) return html.length;
  const name = html.slice(index, nameEnd).toLowerCase();
  const end = html.charCodeAt(nameEnd) === GT ? nameEnd + 1 : after(html, '>', nameEnd);
  return { kind: 'end', name, start, end };
}

/** `<x…>`: a start tag (with its raw text), or the end when the input ends inside the tag. */
function readStartTag(html: string, start: number): StartTag | number {
  let nameEnd = start + 1;
  while (nameEnd < html.length && !isEndOfTagSection(html.charCodeAt(nameEnd))) nameEnd += 1;
  const close = readAttributes(html, nameEnd);
  if (close === undefined) return html.length;
  const rawName = html.slice(start + 1, nameEnd);
  const tag: StartTag = {
    kind: 'start',
    name: rawName.toLowerCase(),
    start,
    end: close.end,
    selfClosing: close.selfClosing,
  };
  // The tokenizer compares ASCII letters only; `<script/>` leaves raw-text mode.
  const endTagName = /^[a-z]+$/i.test(rawName) ? RAW_TEXT_END_TAGS.get(rawName.toLowerCase()) : undefined;
  if (endTagName !== undefined && !close.selfClosing) tag.rawText = readRawText(html, close.end, endTagName);
  return tag;
}

/** The tokenizer's attribute states. */
const State = {
  beforeName: 0,
  name: 1,
  afterName: 2,
  beforeValue: 3,
  doubleQuoted: 4,
  singleQuoted: 5,
  unquoted: 6,
  selfClosing: 7,
} as const;

/** The tokenizer's attribute states from the end of the tag name to the `>`; `undefined` at the end of input. */
function readAttributes(html: string, from: number): { end: number; selfClosing: boolean } | undefined {
  let state: number = State.beforeName;
  for (let index = from; index < html.length; index += 1) {
    const code = html.charCodeAt(index);
    switch (state) {
      case State.beforeName:
        if (code === GT) return { end: index + 1, selfClosing: false };
        if (code === SLASH) state = State.selfClosing;
        else if (!isSpace(code)) state = State.name;
        break;
      case State.name:
        if (code === EQUALS || isEndOfTagSection(code)) {
          state = State.afterName;
          index -= 1;
        }
        break;
      case State.afterName:
        if (code === EQUALS) state = State.beforeValue;
        else if (code === SLASH || code === GT) {
          state = State.beforeName;
          index -= 1;
        } else if (!isSpace(code)) state = State.name;
        break;
      case State.beforeValue:
        if (code === DOUBLE_QUOTE) state = State.doubleQuoted;
        else if (code === SINGLE_QUOTE) state = State.singleQuoted;
        else if (!isSpace(code)) {
          state = State.unquoted;
          index -= 1;
        }
        break;
      case State.doubleQuoted:
      case State.singleQuoted: {
        const closing = html.indexOf(state === State.doubleQuoted ? '"' : "'", index);
        if (closing === -1) return undefined;
        index = closing;
        state = State.beforeName;
        break;
      }
      case State.unquoted:
        if (isSpace(code) || code === GT) {
          state = State.beforeName;
          index -= 1;
        }
        break;
      default:
        if (code === GT) return { end: index + 1, selfClosing: true };
        if (!isSpace(code)) {
          state = State.beforeName;
          index -= 1;
        }
    }
  }
  return undefined;
}

/**
 * Raw text up to `</name` followed by a space or `>`, matched the tokenizer's way: it compares
 * `code | 0x20` (so U+001C counts as `<` and U+000F as `/`) and, except in `<title>`, jumps from one
 * `<` to the next after a mismatch at the start.
 */
function readRawText(
  html: string,
  from: number,
  name: string,
): { end: number; endTagName: string | undefined } {
  const sequence = `</${name}`;
  const jumps = name !== 'title';
  let matched = 0;
  for (let index = from; index < html.length; index += 1) {
    const code = html.charCodeAt(index);
    if (matched === sequence.length) {
      if (code === GT || isSpace(code)) {
        return { end: code === GT ? index + 1 : after(html, '>', index), endTagName: name };
      }
      matched = 0;
    }
    if ((code | 0x20) === sequence.charCodeAt(matched)) matched += 1;
    else if (matched === 0) {
      if (!jumps) continue;
      const next = html.indexOf('<', index + 1);
      if (next === -1) break;
      index = next;
      matched = 1;
    } else matched = code === LT ? 1 : 0;
  }
  return { end: html.length, endTagName: undefined };
}
