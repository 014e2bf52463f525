/** Indentation stops growing here, so a deeply nested document cannot blow up the output. */
const MAX_INDENT_LEVELS = 16;
/** A document with at least one line break per this many characters is already laid out: kept as it is. */
const LAID_OUT_CHARS_PER_LINE = 300;

interface Line {
  depth: number;
  text: string;
  kind: 'open' | 'close' | 'text' | 'other';
}

/**
 * XML as readable text: a document that already has line breaks is returned unchanged; a minified one is
 * laid out one tag per line, indented by depth, an element holding only text on one line. Only whitespace
 * between tags changes, so broken XML comes out as broken as it came in, never worse.
 */
export function formatXml(source: string): string {
  const text = source.trim();
  const lineBreaks = text.split('\n').length - 1;
  if (lineBreaks * LAID_OUT_CHARS_PER_LINE >= text.length) return text;
  const lines: Line[] = [];
  let depth = 0;
  for (const token of tokens(text)) {
    const trimmed = token.trim();
    if (trimmed === '') continue;
    if (!trimmed.startsWith('<') || trimmed.startsWith('<![CDATA[')) {
      lines.push({ depth, text: trimmed, kind: 'text' });
    } else if (/^<\/[A-Za-z_]/.test(trimmed)) {
      depth = Math.max(0, depth - 1);
      lines.push({ depth, text: trimmed, kind: 'close' });
    } else if (/^<[A-Za-z_]/.test(trimmed) && !trimmed.endsWith('/>')) {
      lines.push({ depth, text: trimmed, kind: 'open' });
      depth += 1;
    } else {
      lines.push({ depth, text: trimmed, kind: 'other' });
    }
  }
  return joinInline(lines)
    .map((line) => `${'  '.repeat(Math.min(line.depth, MAX_INDENT_LEVELS))}${line.text}`)
    .join('\n');
}

/** `<a>`, `text`, `</a>` → `<a>text</a>`; `<a>`, `</a>` → `<a></a>`. */
function joinInline(lines: Line[]): Line[] {
  const joined: Line[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as Line;
    const next = lines[index + 1];
    const after = lines[index + 2];
    if (line.kind === 'open' && next?.kind === 'text' && after?.kind === 'close') {
      joined.push({ depth: line.depth, text: `${line.text}${next.text}${after.text}`, kind: 'other' });
      index += 2;
    } else if (line.kind === 'open' && next?.kind === 'close') {
      joined.push({ depth: line.depth, text: `${line.text}${next.text}`, kind: 'other' });
      index += 1;
    } else {
      joined.push(line);
    }
  }
  return joined;
}

/**
 * Tags (with comments and CDATA sections whole) and the text between them, in one linear pass: every search
 * for a closing `>`, `-->` or `]]>` is remembered, so malformed input cannot make it quadratic.
 */
function* tokens(text: string): Generator<string> {
  let index = 0;
  let nextGreater = -2;
  while (index < text.length) {
    const open = text.indexOf('<', index);
    if (open < 0) {
      yield text.slice(index);
      return;
    }
    if (open > index) yield text.slice(index, open);
    const terminator = text.startsWith('<![CDATA[', open)
      ? ']]>'
      : text.startsWith('<!--', open)
        ? '-->'
        : '>';
    let end: number;
    if (terminator === '>') {
      if (nextGreater !== -1 && nextGreater <= open) nextGreater = text.indexOf('>', open);
      end = nextGreater;
      const nextOpen = text.indexOf('<', open + 1);
      // `<` with another `<` before its `>` is text, not a tag.
      if (end >= 0 && nextOpen >= 0 && nextOpen < end) {
        yield text.slice(open, nextOpen);
        index = nextOpen;
        continue;
      }
    } else {
      end = text.indexOf(terminator, open);
    }
    if (end < 0) {
      yield text.slice(open);
      return;
    }
    const after = end + terminator.length;
    yield text.slice(open, after);
    index = after;
  }
}
