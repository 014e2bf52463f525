import { randomBytes } from 'node:crypto';
import type { ToolResult } from '../../tool-call.ts';
import type { ReturnMode } from './request-headers.ts';

/** Stand-ins for the two copies of the text while the rest is serialised: a page cannot guess them. */
const OUTPUT_MARK = `\u0000periscope-output-${randomBytes(8).toString('hex')}`;
const TEXT_MARK = `\u0000periscope-text-${randomBytes(8).toString('hex')}`;

/** Shorter texts are not worth the splicing. */
const MIN_SHARED_CHARS = 1_024;

/**
 * A tool result's JSON as the caller asked for it (`Periscope-Return`, request-headers.ts):
 * - `both`: `JSON.stringify(result)`, byte for byte, with a page's text escaped once (below);
 * - `output`: the result without `data.text` (every other field of `data` kept, in its order): the text once, in
 *   `output`, for a model; a result without `data.text` is whole;
 * - `data`: the result without `output` (`data` whole): for a program.
 */
export function toolResultJson(result: ToolResult, mode: ReturnMode = 'both'): string {
  if (mode === 'both') return bothJson(result);
  if (mode === 'data') {
    const { output: _output, ...rest } = result;
    return JSON.stringify(rest);
  }
  const data = result.data as Record<string, unknown> | undefined;
  if (data === null || typeof data !== 'object' || !('text' in data)) return JSON.stringify(result);
  const { text: _text, ...rest } = data;
  return JSON.stringify({ ...result, data: rest });
}

/**
 * `JSON.stringify(result)`, byte for byte, with a page's text escaped once. A web_fetch result carries the text
 * twice (`output`, inside the untrusted-content envelope, and `data.text`, as DESIGN's contract has it); escaping
 * a 9 KB text with one character past Latin-1 is ~20 µs of a cached call's ~250 µs of CPU. The text is escaped
 * once and spliced into both places; anything unexpected (no `data.text`, `output` not holding it, a mark found
 * twice) falls back to `JSON.stringify`.
 */
function bothJson(result: ToolResult): string {
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
