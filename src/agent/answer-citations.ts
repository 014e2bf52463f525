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
