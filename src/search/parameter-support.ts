// What the chain does with `topic`, `after`/`before`, `safeSearch` and `offset` for one provider, from its
// parameter table (src/search/parameter-table.ts): skip it for news it cannot search, approximate a date range it
// cannot take by the nearest freshness window, keep its results to the range, and warn about what it ignored.
import { errorFromProvider, type PeriscopeError } from '../errors.ts';
import { isUnsupported } from './parameter-table.ts';
import { freshnessDays, unsupported } from './provider-results.ts';
import type { Freshness, SearchProvider, SearchRequest } from './types.ts';

/** The parameters the chain reads from a request (web search has them all; image search only `safeSearch`). */
export type ParameterRequest = Partial<
  Pick<SearchRequest, 'topic' | 'after' | 'before' | 'keepUndated' | 'safeSearch' | 'offset' | 'freshness'>
>;

const DAY_MS = 86_400_000;
const WINDOWS: readonly Freshness[] = ['day', 'week', 'month', 'year'];

/**
 * For `topic: news`, a provider without news search: INVALID_INPUT `unsupported-parameter` naming why, which the
 * chain records as a skip (no request, no pacing turn, no mark on its health). Undefined otherwise.
 */
export function newsUnsupported(
  provider: SearchProvider,
  request: ParameterRequest,
): PeriscopeError | undefined {
  if (request.topic !== 'news') return undefined;
  const news = provider.parameters?.news;
  if (news !== undefined && !isUnsupported(news)) return undefined;
  const why = news?.none ?? 'it declares no news search';
  return errorFromProvider(provider.id, 'INVALID_INPUT', `cannot search news (${why})`, {
    details: { reason: 'unsupported-parameter', parameter: 'topic' },
  });
}

/** Whether a provider can answer `topic: news`. */
export function offersNews(provider: SearchProvider): boolean {
  return provider.parameters !== undefined && !isUnsupported(provider.parameters.news);
}

/** `2025-01-01 to 2025-03-31`, `on or after 2025-01-01`, `on or before 2025-03-31`. */
export function describeRange(request: ParameterRequest): string {
  if (request.after !== undefined && request.before !== undefined)
    return `${request.after} to ${request.before}`;
  return request.after !== undefined ? `on or after ${request.after}` : `on or before ${request.before}`;
}

/**
 * The smallest freshness window that covers every day from `after` to today (a month is 31 days, a year 366), or
 * undefined when `after` is older than a year.
 */
export function windowCovering(after: string, now = Date.now()): Freshness | undefined {
  const days = Math.max(1, Math.ceil((now - Date.parse(`${after}T00:00:00Z`)) / DAY_MS));
  return WINDOWS.find((window) => freshnessDays(window) >= days);
}

/**
 * The request as this provider is sent it. A provider that approximates a date range (`dates: window`) gets the
 * freshness window that covers `after`, unless the caller gave one; the others get the request as it is.
 */
export function requestFor<REQUEST extends ParameterRequest>(
  provider: SearchProvider,
  request: REQUEST,
): REQUEST {
  const dates = provider.parameters?.dates;
  if (
    request.after === undefined ||
    request.freshness !== undefined ||
    dates === undefined ||
    !('window' in dates)
  )
    return request;
  const freshness = windowCovering(request.after);
  return freshness === undefined ? request : { ...request, freshness };
}

/** Warnings for the parameters this provider ignores: a safe-search level other than moderate, an offset. */
export function parameterWarnings(
  provider: SearchProvider,
  kind: 'web' | 'images',
  request: ParameterRequest,
): string[] {
  const table = provider.parameters;
  const warnings: string[] = [];
  const safe = kind === 'images' ? (table?.imageSafeSearch ?? table?.safeSearch) : table?.safeSearch;
  // Moderate is the default: a provider without the setting is left to its own default, without a word.
  if (request.safeSearch !== undefined && request.safeSearch !== 'moderate' && isUnsupported(safe))
    warnings.push(unsupported(provider.id, 'safeSearch', request.safeSearch));
  if (request.offset !== undefined && request.offset > 0 && isUnsupported(table?.offset))
    warnings.push(
      `${provider.id} cannot page results: offset ${request.offset} was ignored, these are its first results`,
    );
  return warnings;
}

/** What the chain keeps of a provider's dated answer, and what it says about it. */
export interface DateFilter {
  /** Whether a result with this `publishedAt` (normalised ISO 8601, or none) stays. */
  keeps(publishedAt: string | undefined): boolean;
  warnings(dropped: { outside: number; undated: number }): string[];
}

/**
 * The date filter for `after`/`before`: results dated outside the range are dropped; results without a date are
 * dropped too when the provider did not search the range itself (`window` or none), unless `keepUndated`. The
 * warnings say how the range was searched and what was dropped. Undefined without a range.
 */
export function dateFilterFor(
  provider: SearchProvider,
  sent: ParameterRequest,
  request: ParameterRequest,
): DateFilter | undefined {
  const { after, before } = request;
  if (after === undefined && before === undefined) return undefined;
  const dates = provider.parameters?.dates;
  const native = dates !== undefined && 'native' in dates;
  const dropUndated = !native && request.keepUndated !== true;
  const range = describeRange(request);
  const how: string[] = [];
  if (!native) {
    const window =
      sent.freshness !== undefined && sent.freshness !== request.freshness ? sent.freshness : undefined;
    how.push(
      window !== undefined
        ? `${provider.id} cannot search a date range: it was asked for the past ${window}, and its results were kept to ${range} by their dates`
        : `${provider.id} cannot search by date${dates !== undefined && 'window' in dates ? ' that far back' : ''}: its results were kept to ${range} by their dates`,
    );
  }
  return {
    keeps(publishedAt) {
      if (publishedAt === undefined) return !dropUndated;
      const day = publishedAt.slice(0, 10);
      return (after === undefined || day >= after) && (before === undefined || day <= before);
    },
    warnings({ outside, undated }) {
      const dropped: string[] = [];
      if (outside > 0)
        dropped.push(`${outside} dated outside ${range} ${outside === 1 ? 'was' : 'were'} dropped`);
      if (undated > 0)
        dropped.push(
          `${undated} without a date ${undated === 1 ? 'was' : 'were'} dropped (keepUndated keeps them)`,
        );
      if (dropped.length > 0 && how.length === 0) return [`${provider.id}: ${dropped.join('; ')}`];
      return how.length === 0 ? [] : [`${how[0]}${dropped.length > 0 ? `; ${dropped.join('; ')}` : ''}`];
    },
  };
}
