import type { Heading } from './html/sink.ts';

/** A heading of the document and where it starts in the text, so a reader can jump there with `startIndex`. */
export interface OutlineEntry {
  level: number;
  title: string;
  offset: number;
}

/** Longest outline kept (a long reference page can have thousands of headings). */
export const MAX_OUTLINE_ENTRIES = 200;
const MAX_TITLE_CHARS = 120;

/**
 * Find the written headings in the final text, in order: each is searched for at a line start after
 * the previous one, so repeated titles get their own offsets. A heading that cannot be found is left out.
 */
export function locateHeadings(
  text: string,
  headings: readonly Heading[],
  markdown: boolean,
): OutlineEntry[] {
  const outline: OutlineEntry[] = [];
  let from = 0;
  for (const heading of headings) {
    if (outline.length >= MAX_OUTLINE_ENTRIES) break;
    const line = markdown ? `${'#'.repeat(heading.level)} ${heading.text}` : heading.text;
    const offset = indexOfLine(text, line, from);
    if (offset === -1) continue;
    outline.push({ level: heading.level, title: plainTitle(heading.text), offset });
    from = offset + line.length;
  }
  return outline;
}

const ATX_HEADING = /^(#{1,6})[ \t]+(.+?)[ \t#]*$/;
const FENCE = /^[ \t]{0,3}(`{3,}|~{3,})/;

/** The ATX headings (`## Title`) of a Markdown document, skipping fenced code blocks. */
export function markdownOutline(text: string): OutlineEntry[] {
  const outline: OutlineEntry[] = [];
  let fence: string | undefined;
  let offset = 0;
  for (const line of text.split('\n')) {
    const fenceMatch = FENCE.exec(line);
    if (fenceMatch) {
      const marker = fenceMatch[1]!;
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
    } else if (fence === undefined) {
      const heading = ATX_HEADING.exec(line);
      if (heading) outline.push({ level: heading[1]!.length, title: plainTitle(heading[2]!), offset });
      if (outline.length >= MAX_OUTLINE_ENTRIES) break;
    }
    offset += line.length + 1;
  }
  return outline;
}

/** The headings that start at or after `offset` (for the "read on" hint). */
export function headingsFrom(
  outline: readonly OutlineEntry[],
  offset: number,
  limit: number,
): OutlineEntry[] {
  return outline.filter((entry) => entry.offset >= offset).slice(0, limit);
}

function indexOfLine(text: string, line: string, from: number): number {
  let at = text.indexOf(line, from);
  while (at > 0 && text[at - 1] !== '\n') at = text.indexOf(line, at + 1);
  return at;
}

/** Markdown links and emphasis reduced to their text, bounded in length. */
function plainTitle(title: string): string {
  const plain = title
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`]+/g, '')
    .replace(/\\(.)/g, '$1')
    .trim();
  return plain.length > MAX_TITLE_CHARS ? `${plain.slice(0, MAX_TITLE_CHARS - 1)}…` : plain;
}
