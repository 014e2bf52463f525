import { callLine } from '../tools/call-line.ts';
import type { ToolCall } from '../tools/tool-runner.ts';

/** The line a person sees while a call runs: `search "python 3.13"`, `fetch docs.python.org/3.13/whatsnew`. */
export function hintFor(call: Pick<ToolCall, 'name' | 'input'>): string {
  const input = parseArguments(call.input) as {
    query?: unknown;
    url?: unknown;
    urls?: unknown;
    startIndex?: unknown;
  };
  if (call.name === 'web_fetch' && Array.isArray(input.urls)) return callLine(call.name, input);
  if ((call.name === 'web_search' || call.name === 'image_search') && typeof input.query === 'string')
    return callLine(call.name, input);
  if (call.name === 'web_fetch' && typeof input.url === 'string') {
    const from =
      typeof input.startIndex === 'number' && input.startIndex > 0 ? ` (from ${input.startIndex})` : '';
    return `${callLine(call.name, input)}${from}`;
  }
  if (call.name === 'verify_citation' && typeof input.url === 'string') return callLine(call.name, input);
  return call.name;
}

/** What a call's query or URL is called in the line that stands in for it when it is not shown. */
const WITHHELD: Record<string, string> = {
  web_search: 'search [query withheld]',
  image_search: 'images [query withheld]',
  web_fetch: 'fetch [URL withheld]',
  verify_citation: 'verify [URL withheld]',
};

/** The line for a call refused for carrying a secret: the tool, never its query or URL. */
export function withheldHint(name: string): string {
  return WITHHELD[name] ?? name;
}

/** A model's arguments: JSON text parsed, anything else as it is. */
export function parseArguments(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}
