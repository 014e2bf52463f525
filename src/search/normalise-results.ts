import type { AllowList } from '../net/allow-list.ts';
import { checkUrl } from '../net/url-policy.ts';
import { canonicalUrl } from './canonical-url.ts';
import { cleanText, normaliseDate } from './normalise-text.ts';
import type { ImageResult, SearchResult } from './types.ts';

/**
 * Web results as the tool returns them: tags stripped and entities decoded in title and snippet, whitespace
 * folded, `publishedAt` as ISO 8601 (dropped when unreadable), non-http(s) URLs dropped, duplicates (by canonical
 * URL) dropped, at most `count`.
 */
export function normaliseWebResults(results: readonly SearchResult[], count: number): SearchResult[] {
  const seen = new Set<string>();
  const normalised: SearchResult[] = [];
  for (const result of results) {
    if (normalised.length >= count) break;
    const parsed = parseHttpUrl(result?.url);
    const key = parsed === undefined ? undefined : canonicalUrl(parsed);
    if (parsed === undefined || key === undefined || seen.has(key)) continue;
    const url = parsed.href;
    seen.add(key);
    const item: SearchResult = {
      title: cleanText(result.title) || url,
      url,
      snippet: cleanText(result.snippet),
    };
    const publishedAt = normaliseDate(result.publishedAt);
    if (publishedAt !== undefined) item.publishedAt = publishedAt;
    normalised.push(item);
  }
  return normalised;
}

/**
 * Image results as the tool returns them: the image URL must be http(s) and must not name a private or local
 * address (literal IPs in every encoding, `localhost`…, unless opened by `allowPrivateNetwork`) — the same holds
 * for the thumbnail and the source page, or the result is dropped; non-http(s) thumbnails/sources are omitted.
 */
export function normaliseImageResults(
  results: readonly ImageResult[],
  count: number,
  allowList?: AllowList,
): ImageResult[] {
  const seen = new Set<string>();
  const normalised: ImageResult[] = [];
  for (const result of results) {
    if (normalised.length >= count) break;
    const imageUrl = publicUrl(result?.imageUrl, allowList);
    if (imageUrl === undefined || imageUrl === null || seen.has(imageUrl)) continue;
    const thumbnailUrl = publicUrl(result.thumbnailUrl, allowList);
    const sourceUrl = publicUrl(result.sourceUrl, allowList);
    if (thumbnailUrl === null || sourceUrl === null) continue;
    seen.add(imageUrl);
    const item: ImageResult = { title: cleanText(result.title), imageUrl };
    if (thumbnailUrl !== undefined) item.thumbnailUrl = thumbnailUrl;
    if (sourceUrl !== undefined) item.sourceUrl = sourceUrl;
    const width = dimension(result.width);
    const height = dimension(result.height);
    if (width !== undefined) item.width = width;
    if (height !== undefined) item.height = height;
    normalised.push(item);
  }
  return normalised;
}

/** The URL's href when it is an absolute http(s) URL (protocol-relative `//host/…` becomes https). */
function parseHttpUrl(value: unknown): URL | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  const url = URL.parse(text.startsWith('//') ? `https:${text}` : text);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '')
    return undefined;
  return url;
}

function httpUrl(value: unknown): string | undefined {
  return parseHttpUrl(value)?.href;
}

/** undefined: absent or not http(s) (omit the field); null: names a private/local address (drop the result). */
function publicUrl(value: unknown, allowList: AllowList | undefined): string | undefined | null {
  const url = httpUrl(value);
  if (url === undefined) return undefined;
  try {
    checkUrl(url, allowList ? { allowList } : {});
    return url;
  } catch {
    return null;
  }
}

function dimension(value: unknown): number | undefined {
  const number = typeof value === 'string' ? Number(value) : value;
  return typeof number === 'number' && Number.isInteger(number) && number > 0 ? number : undefined;
}
