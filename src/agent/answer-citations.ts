/** One numbered source an answer lists: `[2] https://example.com/page "the passage, verbatim" (120–171)`. */
export interface AnswerSource {
  n: number;
  url: string;
  /** The passage, as the model quoted it; absent when the line gives none. */
  quote?: string;
  /** The passage's offsets into the whole extracted text, when the line gives them. */
  start?: number;
  end?: number;
}

export interface AnswerSources {
  sources: AnswerSource[];
  /** Where the sources section starts (its heading, or its first source line); the answer's length when none. */
  sectionStart: number;
  /** The answer before the sources section, without trailing whitespace. */
  body: string;
}

/** `Sources:`, `## Sources`, `**Sources:**`, `References:` alone on a line. */
const SOURCES_HEADING =
  /^[ \t]*(?:#{1,6}[ \t]*)?(?:\*\*|__)?[ \t]*(?:sources|references)[ \t]*:?[ \t]*(?:\*\*|__)?[ \t]*:?[ \t]*$/i;

/** `[2] https://…`, `- [2]: <https://…>`: a line that names a numbered source. */
const SOURCE_LINE =
  /^[ \t]*(?:[-*][ \t]+)?(?:\*\*)?\[(\d{1,3})\](?:\*\*)?:?[ \t]+<?(https?:\/\/[^\s<>"“”]+)>?(.*)$/;

/** The first quoted text on a line: straight or curly double quotes, to the last closing one. */
const QUOTED = /["“](.+)["”]/;

/** `(120–171)`, `(chars 120-171)`, `(characters 120–171)`, `[120–171]`. */
const OFFSETS = /[([](?:chars?\.?|characters)?[ \t]*(\d+)[ \t]*[–—-][ \t]*(\d+)[ \t]*[)\]]/;

/** Whether a whole line is a sources heading. */
export function isSourcesHeading(line: string): boolean {
  return SOURCES_HEADING.test(line.replace(/\r?\n$/, ''));
}

/** Whether a line (or the start of one) names a numbered source: `[2] https://…`. */
export function isSourceLine(line: string): boolean {
  return SOURCE_LINE.test(line.replace(/\r?\n$/, ''));
}

/**
 * The numbered sources an answer ends with (the format the system prompt asks for), and the answer without them.
 * A number listed twice keeps its first line. Lines that name no URL are not sources.
 */
export function parseAnswerSources(answer: string): AnswerSources {
  const sources: AnswerSource[] = [];
  let sectionStart = answer.length;
  /** The last heading line, while only blank lines follow it. */
  let headingAt: number | undefined;
  let offset = 0;
  for (const line of answer.split('\n')) {
    const lineStart = offset;
    offset += line.length + 1;
    if (isSourcesHeading(line)) {
      headingAt = lineStart;
      continue;
    }
    const match = SOURCE_LINE.exec(line);
    if (!match) {
      if (line.trim() !== '') headingAt = undefined;
      continue;
    }
    if (sources.length === 0) sectionStart = headingAt ?? lineStart;
    const n = Number(match[1]);
    if (sources.some((source) => source.n === n)) continue;
    const url = (match[2] as string).replace(/[.,;:!?)\]]+$/, '');
    const rest = match[3] ?? '';
    const quote = QUOTED.exec(rest)?.[1]?.trim();
    const offsets = OFFSETS.exec(rest.replace(QUOTED, ''));
    const start = offsets ? Number(offsets[1]) : undefined;
    const end = offsets ? Number(offsets[2]) : undefined;
    sources.push({
      n,
      url,
      ...(quote ? { quote } : {}),
      ...(start !== undefined && end !== undefined && end > start ? { start, end } : {}),
    });
  }
  if (sources.length === 0) return { sources, sectionStart: answer.length, body: answer.trimEnd() };
  return { sources, sectionStart, body: answer.slice(0, sectionStart).trimEnd() };
}

/**
 * A citation marker in the answer's text: `[2]`, `[1, 3]`, `[2–4]`; not `a[1]` (an index) nor `[1](…)` (a link).
 * The numbers are group 1.
 */
const CITATION_MARKER = /(?<![\p{L}\p{N}_\\])\[(\d{1,3}(?:[ \t]*[,–—-][ \t]*\d{1,3})*)\](?!\()/gu;

/** The end of a text that may still become a citation marker, or a link: `[`, `[1`, `[1, 2–`, `[2]`. */
const PARTIAL_MARKER = /(?<![\p{L}\p{N}_\\])\[(?:\d{1,3}(?:[ \t]*[,–—-][ \t]*\d{0,3})*[ \t]*\]?)?$/u;

/** Code spans and fenced blocks: their brackets are code, never citations. */
const CODE = /```[\s\S]*?(?:```|$)|`[^`\n]+`/g;

/** Where the first citation marker of `text` (at or after `from`) starts, or -1. */
export function citationMarkerAt(text: string, from = 0): number {
  CITATION_MARKER.lastIndex = from;
  return CITATION_MARKER.exec(text)?.index ?? -1;
}

/** Where a citation marker that `text` may end in the middle of starts, or -1. */
export function partialCitationMarkerAt(text: string): number {
  return PARTIAL_MARKER.exec(text)?.index ?? -1;
}

/** How an unverified citation reads in the answer: `[2 unverified]`. */
export const UNVERIFIED_MARK = 'unverified';

/**
 * The answer's text with every citation marker that names an unverified source saying so itself: `[2]` becomes
 * `[2 unverified]`, and a group holding one is split, one marker per number (`[1, 2]` → `[1][2 unverified]`), so
 * the mark cannot be read as the group's. A number the sources do not list names no passage: unverified too.
 * Markers of verified sources and brackets in code are left as they are.
 */
export function markUnverifiedCitations(
  text: string,
  citations: ReadonlyArray<{ n: number; verified: boolean }>,
): string {
  const verified = new Map(citations.map((citation) => [citation.n, citation.verified]));
  const mark = (prose: string) =>
    prose.replace(CITATION_MARKER, (marker, group: string) => {
      const numbers = markerNumbers(group);
      if (numbers === undefined || numbers.every((n) => verified.get(n) === true)) return marker;
      return numbers.map((n) => (verified.get(n) === true ? `[${n}]` : `[${n} ${UNVERIFIED_MARK}]`)).join('');
    });
  let out = '';
  let last = 0;
  for (const code of text.matchAll(CODE)) {
    out += mark(text.slice(last, code.index)) + code[0];
    last = code.index + code[0].length;
  }
  return out + mark(text.slice(last));
}

/** `1, 3` → [1, 3]; `2–4` → [2, 3, 4]; undefined for a range that runs backwards or over more than 20 numbers. */
function markerNumbers(group: string): number[] | undefined {
  const numbers: number[] = [];
  for (const item of group.split(',')) {
    const parts = item.split(/[–—-]/).map((part) => Number(part.trim()));
    const [from, to] = parts;
    if (from === undefined || parts.length > 2) return undefined;
    if (to === undefined) numbers.push(from);
    else if (to > from && to - from <= 20) for (let n = from; n <= to; n++) numbers.push(n);
    else return undefined;
  }
  return numbers;
}
