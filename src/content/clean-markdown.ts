import { stripInvisible } from './invisible-unicode.ts';

/**
 * Markdown as a server or a reader service wrote it → the same Markdown, with the hygiene a page gets and
 * nothing else: invisible characters removed (zero-width, tag characters, bidi overrides: `stripInvisible`), and
 * every `data:` URI in an image or link position replaced by what a reader sees of it: `![alt](data:…)` and
 * `<img alt="alt" src="data:…">` by their alt text (nothing when there is none), `[text](data:…)` by its text,
 * and reference definitions pointing at a `data:` URI dropped with their uses. All other bytes stay as they are.
 */
export function cleanMarkdown(markdown: string): string {
  const text = stripInvisible(markdown);
  if (!/data:/i.test(text)) return text;
  return replaceHtmlImages(replaceReferences(replaceInline(text)));
}

/** `![alt](` or `[text](` whose destination is a `data:` URI (optionally in angle brackets). */
const INLINE_DATA = /(!?)\[((?:[^[\]\\]|\\.|\[(?:[^[\]\\]|\\.)*\])*)\]\(\s*(<?)\s*data:/gi;

function replaceInline(text: string): string {
  let result = '';
  let from = 0;
  const pattern = new RegExp(INLINE_DATA);
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const end = closingParen(text, pattern.lastIndex, match[3] === '<');
    // The alt or link text may itself hold an image (`[![logo](data:…)](data:…)`).
    result += text.slice(from, match.index) + replaceInline((match[2] ?? '').trim());
    from = end;
    pattern.lastIndex = end;
  }
  return result + text.slice(from);
}

/**
 * Where an inline destination (and its optional title) ends: just after the `)` that closes it on the same line.
 * Parentheses nest, a backslash escapes, an angle-bracketed destination runs to its `>`. Unclosed, it runs to the
 * end of the line, so a broken data URI is dropped rather than passed on.
 */
function closingParen(text: string, start: number, angled: boolean): number {
  const newline = text.indexOf('\n', start);
  const lineEnd = newline < 0 ? text.length : newline;
  let index = start;
  if (angled) {
    const close = text.indexOf('>', index);
    if (close >= 0 && close < lineEnd) index = close + 1;
  }
  let depth = 0;
  for (; index < text.length; index++) {
    const char = text[index];
    if (char === '\\') index++;
    else if (char === '(') depth++;
    else if (char === ')') {
      if (depth === 0) return index + 1;
      depth--;
    } else if (char === '\n') break;
  }
  return lineEnd;
}

/** `[label]: data:…` (up to three spaces of indent), with its line break. */
const DATA_DEFINITION = /^ {0,3}\[((?:[^[\]\\]|\\.)+)\]:[ \t]*(?:\r?\n[ \t]*)?<?data:[^\n]*(?:\n|$)/gim;
/** A full (`![alt][label]`), collapsed (`![label][]`) or shortcut (`![label]`) reference. */
const REFERENCE = /(!?)\[((?:[^[\]\\]|\\.)*)\](?:\[((?:[^[\]\\]|\\.)*)\]|(?![(:]))/g;

function replaceReferences(text: string): string {
  const labels = new Set<string>();
  const kept = text.replace(DATA_DEFINITION, (_definition, label: string) => {
    labels.add(normalizeLabel(label));
    return '';
  });
  if (labels.size === 0) return text;
  return kept.replace(REFERENCE, (reference, _bang: string, content: string, label: string | undefined) => {
    const target = label === undefined || label === '' ? content : label;
    return labels.has(normalizeLabel(target)) ? content.trim() : reference;
  });
}

/** Reference labels match case-insensitively, with runs of whitespace as one space (CommonMark). */
function normalizeLabel(label: string): string {
  return label.trim().replace(/\s+/g, ' ').toLowerCase();
}

/**
 * `<img … src="data:…">` → its alt text. Scanned, not matched with one regex: a quoted value can run for megabytes
 * (the data URI itself), and a quote left open ends the scan instead of being retried from every later `<img`.
 */
function replaceHtmlImages(text: string): string {
  const pattern = /<img\b/gi;
  let result = '';
  let from = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const end = tagEnd(text, pattern.lastIndex);
    if (end < 0) break;
    const tag = text.slice(match.index, end);
    if (/\ssrc\s*=\s*["']?\s*data:/i.test(tag)) {
      result += text.slice(from, match.index) + altOf(tag);
      from = end;
    }
    pattern.lastIndex = end;
  }
  return result + text.slice(from);
}

/** Just after the `>` that closes a tag (quoted values may hold `>`), or -1 when nothing closes it. */
function tagEnd(text: string, start: number): number {
  for (let index = start; index < text.length; index++) {
    const char = text[index];
    if (char === '>') return index + 1;
    if (char === '"' || char === "'") {
      const close = text.indexOf(char, index + 1);
      if (close < 0) return -1;
      index = close;
    }
  }
  return -1;
}

function altOf(tag: string): string {
  const match = /\salt\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i.exec(tag);
  return (match?.[1] ?? match?.[2] ?? match?.[3] ?? '').trim();
}
