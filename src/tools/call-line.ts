import type { ToolName } from '../tool-call.ts';
import { searchStartLine } from './search-summary.ts';
import { shortUrl } from './validate-input.ts';

/**
 * `search "x"`, `images "x"`, `fetch example.com/page`, `verify example.com/page`: the start of a call's display
 * line, from its input.
 */
export function callLine(tool: ToolName, input: unknown): string {
  const fields = input as { query?: string; url?: string; urls?: string[] };
  if (tool === 'web_fetch' && Array.isArray(fields.urls)) return `fetch ${fields.urls.length} URLs`;
  if (tool === 'web_fetch') return `fetch ${shortUrl(String(fields.url))}`;
  if (tool === 'verify_citation') return `verify ${shortUrl(String(fields.url))}`;
  return searchStartLine(tool === 'web_search' ? 'search' : 'images', String(fields.query));
}
