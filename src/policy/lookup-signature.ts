import { parseCallerUrl } from '../net/caller-url.ts';
import { canonicalUrl } from '../search/canonical-url.ts';
import type { ToolName } from '../tool-call.ts';
import { normaliseQuery } from '../tools/normalise-query.ts';

/** A URL as the repeat throttle compares it: canonical (no scheme, `www.`, fragment or tracking parameters). */
export function normaliseLookupUrl(text: string): string {
  const url = parseCallerUrl(text);
  return canonicalUrl(url) ?? url.href;
}

/**
 * What makes two calls "the same lookup" for the repeat throttle: `web_search:<query>`, `image_search:<query>`,
 * `web_fetch:<url>` (`web_fetch:<url> <url>…` for `urls`), and `web_fetch:<url> ?<query>` for a focused read (another question of the same page is
 * another lookup). A continuation read (`startIndex > 0`) is not a lookup of its own: undefined; nor is a
 * verify_citation call (the page it reads when not cached is a web_fetch lookup of its own). Throws INVALID_INPUT
 * for a URL that does not parse.
 */
export function lookupSignature(tool: ToolName, input: unknown): string | undefined {
  const fields = (input ?? {}) as { query?: unknown; url?: unknown; urls?: unknown; startIndex?: unknown };
  if (tool === 'verify_citation') return undefined;
  if (tool === 'web_fetch') {
    if (typeof fields.startIndex === 'number' && fields.startIndex > 0) return undefined;
    const question = typeof fields.query === 'string' ? ` ?${normaliseQuery(fields.query)}` : '';
    // Many URLs: one lookup of them all, in order; a URL that does not parse fails alone, in the call.
    if (Array.isArray(fields.urls))
      return `web_fetch:${fields.urls.map((url) => lenientLookupUrl(String(url))).join(' ')}${question}`;
    return `web_fetch:${normaliseLookupUrl(String(fields.url))}${question}`;
  }
  return `${tool}:${normaliseQuery(String(fields.query))}`;
}

function lenientLookupUrl(text: string): string {
  try {
    return normaliseLookupUrl(text);
  } catch {
    return text;
  }
}
