import type { Freshness, ImageResult, ImageSearchRequest, ProviderSettings, SearchResult } from './types.ts';

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  middot: '·',
  laquo: '«',
  raquo: '»',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  copy: '©',
  reg: '®',
};

function decodeEntity(entity: string, body: string): string {
  if (body.startsWith('#')) {
    const code =
      body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
    return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  }
  return NAMED_ENTITIES[body.toLowerCase()] ?? entity;
}

/**
 * Light cleanup of a provider's title or snippet: tags stripped (Brave's `<strong>`, MediaWiki's
 * `<span class="searchmatch">`), common entities decoded, whitespace folded. The chain normalises further.
 */
export function cleanText(value: unknown): string {
  if (typeof value !== 'string') return '';
  return value
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x?[0-9a-f]+|[a-z]+);/gi, decodeEntity)
    .replace(/\s+/g, ' ')
    .trim();
}

/** The value as a plain object, or undefined. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The plain objects of an array (anything else in it is skipped); [] when it is not an array. */
export function records(value: unknown): Record<string, unknown>[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (item): item is Record<string, unknown> =>
      typeof item === 'object' && item !== null && !Array.isArray(item),
  );
}

/** A string field, or undefined when absent, empty or not a string. */
export function optionalText(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** A finite number (numeric strings accepted, as some providers send counters as strings). */
export function optionalNumber(value: unknown): number | undefined {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : undefined;
}

/** The warning for a request parameter the provider cannot honour: `brave does not support language`. */
export function unsupported(provider: string, parameter: string, value?: unknown): string {
  return `${provider} does not support ${parameter}${value === undefined ? '' : ` (${String(value)} ignored)`}`;
}

const FRESHNESS_DAYS: Record<Freshness, number> = { day: 1, week: 7, month: 31, year: 366 };

/** Days covered by a freshness window (a month is 31 days and a year 366, so nothing recent is cut). */
export function freshnessDays(freshness: Freshness): number {
  return FRESHNESS_DAYS[freshness];
}

/** Google-style `tbs` value (`qdr:d|w|m|y`), used by Serper, SerpAPI and Firecrawl. */
export function googleTbs(freshness: Freshness): string {
  return `qdr:${freshness[0]}`;
}

/** A string setting from the provider's config extras (`cx`, `apiVersion`, …). */
export function stringSetting(settings: ProviderSettings, name: string): string | undefined {
  return optionalText(settings[name]);
}

export interface WebResultFields {
  title: unknown;
  url: unknown;
  snippet: unknown;
  publishedAt?: unknown;
}

/** A web result from a provider's fields; undefined (dropped) when it has no URL. The title falls back to the URL. */
export function webResult(fields: WebResultFields): SearchResult | undefined {
  const url = optionalText(fields.url);
  if (url === undefined) return undefined;
  const publishedAt = optionalText(fields.publishedAt);
  return {
    title: cleanText(fields.title) || url,
    url,
    snippet: cleanText(fields.snippet),
    ...(publishedAt === undefined ? {} : { publishedAt }),
  };
}

export interface ImageResultFields {
  title: unknown;
  imageUrl: unknown;
  thumbnailUrl?: unknown;
  sourceUrl?: unknown;
  width?: unknown;
  height?: unknown;
}

/** An image result from a provider's fields; undefined (dropped) when it has no image URL. */
export function imageResult(fields: ImageResultFields): ImageResult | undefined {
  const imageUrl = optionalText(fields.imageUrl);
  if (imageUrl === undefined) return undefined;
  const thumbnailUrl = optionalText(fields.thumbnailUrl);
  const sourceUrl = optionalText(fields.sourceUrl);
  const width = optionalNumber(fields.width);
  const height = optionalNumber(fields.height);
  return {
    title: cleanText(fields.title),
    imageUrl,
    ...(thumbnailUrl === undefined ? {} : { thumbnailUrl }),
    ...(sourceUrl === undefined ? {} : { sourceUrl }),
    ...(width === undefined || width <= 0 ? {} : { width }),
    ...(height === undefined || height <= 0 ? {} : { height }),
  };
}

/** The defined results, at most `count`. */
export function firstResults<T>(items: readonly (T | undefined)[], count: number): T[] {
  return items.filter((item): item is T => item !== undefined).slice(0, count);
}

/** Warnings for the image filters (`size`, `type`, `layout`) a provider cannot apply. */
export function unsupportedImageFilters(
  provider: string,
  request: ImageSearchRequest,
  supported: readonly ('size' | 'type' | 'layout')[] = [],
): string[] {
  return (['size', 'type', 'layout'] as const)
    .filter((name) => request[name] !== undefined && !supported.includes(name))
    .map((name) => unsupported(provider, name, request[name]));
}
