import type { NetworkPolicy } from '../net/network-policy.ts';
import { checkUrl } from '../net/url-policy.ts';
import { canonicalUrl } from './canonical-url.ts';
import { normaliseDate } from './normalise-date.ts';
import { cleanText } from './normalise-text.ts';
import type { ImageResult, SearchResult } from './types.ts';

/**
 * Web results as the tool returns them: tags stripped and entities decoded in title and snippet, whitespace
 * folded, `publishedAt` as ISO 8601 (dropped when unreadable), a news result's `source` cleaned the same way,
 * non-http(s) URLs dropped, duplicates (by canonical
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
    const source = typeof result.source === 'string' ? cleanText(result.source) : '';
    if (source !== '') item.source = source;
    normalised.push(item);
  }
  return normalised;
}

export interface ImageNormaliseOptions {
  /** The deployment's network policy (`network.allowPrivateNetwork` opens private ranges). Absent: none is open. */
  networkPolicy?: NetworkPolicy | undefined;
  /**
   * The answering provider's configured endpoint (`baseUrl`): trusted (DESIGN §5), so URLs on its own origin are
   * kept even when it is private — a self-hosted SearXNG on localhost or the LAN serves its images from there.
   */
  trustedBaseUrl?: string | undefined;
  /** Names the provider in the warning. */
  provider?: string | undefined;
}

export interface NormalisedImages {
  results: ImageResult[];
  /** Says how many results were dropped for private addresses, so an empty list is never read as "none". */
  warnings: string[];
}

/**
 * Image results as the tool returns them: the image URL must be http(s) and must not name a private or local
 * address (literal IPs in every encoding, `localhost`…) unless opened by `allowPrivateNetwork` or on the
 * provider's own configured origin — otherwise the result is dropped and counted in a warning. A thumbnail or
 * source page on such an address is omitted (the result stays); non-http(s) thumbnails/sources are omitted too.
 */
export function normaliseImageResults(
  results: readonly ImageResult[],
  count: number,
  options: ImageNormaliseOptions = {},
): NormalisedImages {
  const trustedOrigin = originOf(options.trustedBaseUrl);
  const allowed = (value: unknown) => publicUrl(value, options.networkPolicy, trustedOrigin);
  const seen = new Set<string>();
  const normalised: ImageResult[] = [];
  let dropped = 0;
  for (const result of results) {
    if (normalised.length >= count) break;
    const imageUrl = allowed(result?.imageUrl);
    if (imageUrl === null) dropped++;
    if (imageUrl === undefined || imageUrl === null || seen.has(imageUrl)) continue;
    seen.add(imageUrl);
    const item: ImageResult = { title: cleanText(result.title), imageUrl };
    const thumbnailUrl = allowed(result.thumbnailUrl);
    const sourceUrl = allowed(result.sourceUrl);
    if (typeof thumbnailUrl === 'string') item.thumbnailUrl = thumbnailUrl;
    if (typeof sourceUrl === 'string') item.sourceUrl = sourceUrl;
    const width = dimension(result.width);
    const height = dimension(result.height);
    if (width !== undefined) item.width = width;
    if (height !== undefined) item.height = height;
    normalised.push(item);
  }
  const warnings =
    dropped === 0
      ? []
      : [
          `${options.provider ?? 'the provider'} gave ${dropped} image result${dropped === 1 ? '' : 's'} on a private or local address, dropped (network.allowPrivateNetwork opens such ranges)`,
        ];
  return { results: normalised, warnings };
}

function originOf(value: string | undefined): string | undefined {
  const url = parseHttpUrl(value);
  return url === undefined ? undefined : url.origin;
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

/**
 * undefined: absent or not http(s) (omit the field); null: names a private/local address that is neither opened by
 * the allow-list nor on the provider's own origin.
 */
function publicUrl(
  value: unknown,
  networkPolicy: NetworkPolicy | undefined,
  trustedOrigin: string | undefined,
): string | undefined | null {
  const url = parseHttpUrl(value);
  if (url === undefined) return undefined;
  if (trustedOrigin !== undefined && url.origin === trustedOrigin) return url.href;
  try {
    if (networkPolicy) networkPolicy.checkUrl(url.href);
    else checkUrl(url.href);
    return url.href;
  } catch {
    return null;
  }
}

function dimension(value: unknown): number | undefined {
  const number = typeof value === 'string' ? Number(value) : value;
  return typeof number === 'number' && Number.isInteger(number) && number > 0 ? number : undefined;
}
