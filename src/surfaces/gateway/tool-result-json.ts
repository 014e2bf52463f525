import { randomBytes } from 'node:crypto';
import type { ToolResult } from '../../tool-call.ts';

/** Stand-ins for the two copies of the text while the rest is serialised: a page cannot guess them. */
const OUTPUT_MARK = `\u0000periscope-output-${randomBytes(8).toString('hex')}`;
const TEXT_MARK = `\u0000periscope-text-${randomBytes(8).toString('hex')}`;

/** Shorter texts are not worth the splicing. */
const MIN_SHARED_CHARS = 1_024;

/**
 * `JSON.stringify(result)`, byte for byte, with a page's text escaped once. A web_fetch result carries the text
 * twice (`output`, inside the untrusted-content envelope, and `data.text`, as DESIGN's contract has it); escaping
 * a 9 KB text with one character past Latin-1 is ~20 µs of a cached call's ~250 µs of CPU. The text is escaped
 * once and spliced into both places; anything unexpected (no `data.text`, `output` not holding it, a mark found
 * twice) falls back to `JSON.stringify`.
 */
export function toolResultJson(result: ToolResult): string {
  const data = result.data as Record<string, unknown> | undefined;
  const text = data?.text;
  if (typeof text !== 'string' || text.length < MIN_SHARED_CHARS || typeof result.output !== 'string') {
    return JSON.stringify(result);
  }
  const at = result.output.indexOf(text);
  if (at < 0) return JSON.stringify(result);
  const escaped = JSON.stringify(text);
  const before = JSON.stringify(result.output.slice(0, at));
  const after = JSON.stringify(result.output.slice(at + text.length));
  const output = `${before.slice(0, -1)}${escaped.slice(1, -1)}${after.slice(1)}`;
  const skeleton = JSON.stringify({ ...result, output: OUTPUT_MARK, data: { ...data, text: TEXT_MARK } });
  const outputParts = skeleton.split(JSON.stringify(OUTPUT_MARK));
  if (outputParts.length !== 2) return JSON.stringify(result);
  const textParts = (outputParts[1] as string).split(JSON.stringify(TEXT_MARK));
  if (textParts.length !== 2) return JSON.stringify(result);
  return `${outputParts[0]}${output}${textParts[0]}${escaped}${textParts[1]}`;
}
