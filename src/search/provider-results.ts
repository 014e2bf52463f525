// What a search provider builds its answer with: normalised web and image results, and the warnings and
// freshness windows of a search request. The JSON-reading helpers are in src/services/provider-text.ts.
import { optionalNumber, optionalText } from '../services/provider-text.ts';
import { cleanText } from './normalise-text.ts';
import type { Freshness, ImageResult, ImageSearchRequest, SearchResult } from './types.ts';

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

/** `2025-03-05` → Google's `3/5/2025`, or zero-padded `03/05/2025` (`MM/DD/YYYY`, as Firecrawl documents it). */
function googleDay(day: string, padded: boolean): string {
  const [year, month, date] = day.split('-');
  if (padded) return `${month}/${date}/${year}`;
  return `${Number(month)}/${Number(date)}/${year}`;
}

/**
 * Google's custom date range as `tbs` (`cdr:1,cd_min:1/1/2025,cd_max:3/31/2025`, either end may be left out), or
 * the freshness window (`qdr:w`), or undefined: what Serper, SerpAPI and Firecrawl pass to Google.
 */
export function googleDateTbs(
  request: {
    after?: string | undefined;
    before?: string | undefined;
    freshness?: Freshness | undefined;
  },
  { padded = false }: { padded?: boolean } = {},
): string | undefined {
  if (request.after !== undefined || request.before !== undefined) {
    return [
      'cdr:1',
      ...(request.after === undefined ? [] : [`cd_min:${googleDay(request.after, padded)}`]),
      ...(request.before === undefined ? [] : [`cd_max:${googleDay(request.before, padded)}`]),
    ].join(',');
  }
  return request.freshness === undefined ? undefined : googleTbs(request.freshness);
}

export interface WebResultFields {
  title: unknown;
  url: unknown;
  snippet: unknown;
  publishedAt?: unknown;
  /** A news result's publication. */
  source?: unknown;
}

/** A web result from a provider's fields; undefined (dropped) when it has no URL. The title falls back to the URL. */
export function webResult(fields: WebResultFields): SearchResult | undefined {
  const url = optionalText(fields.url);
  if (url === undefined) return undefined;
  const publishedAt = optionalText(fields.publishedAt);
  const source = cleanText(fields.source);
  return {
    title: cleanText(fields.title) || url,
    url,
    snippet: cleanText(fields.snippet),
    ...(publishedAt === undefined ? {} : { publishedAt }),
    ...(source === '' ? {} : { source }),
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
