import { PeriscopeError } from '../../errors.ts';
import type { ProviderErrorRules } from '../../services/provider-errors.ts';
import { jsonObject, providerUrl, requestProviderJson } from '../../services/provider-http.ts';
import { optionalText, records } from '../../services/provider-text.ts';
import { type ProviderParameters, safeSearchField } from '../parameter-table.ts';
import {
  firstResults,
  imageResult,
  unsupported,
  unsupportedImageFilters,
  webResult,
} from '../provider-results.ts';
import { readOwnPages } from '../result-pages.ts';
import type { Freshness, ProviderContext, ProviderSettings, SearchProvider } from '../types.ts';

const ID = 'searxng';
const KEY_ENV = ['SEARXNG_BASE_URL'] as const;

/** SearXNG's search API, which every entry below follows. */
const DOC = 'https://docs.searxng.org/dev/search_api.html';

/**
 * `topic`, `after`/`before`, `safeSearch` and `offset` as SearXNG's search API takes them (DOC: `categories`,
 * `time_range` day, month or year, `safesearch` 0/1/2, `pageno`): news is the `news` category; a date range is
 * approximated by `time_range`; pages are the instance's own size, learned from page 1, so an offset and a count
 * past one page are read from as many pages as they need and sliced.
 */
const PARAMETERS = {
  doc: DOC,
  news: { how: '`categories=news`' },
  dates: { window: '`time_range` (day, month, year)' },
  safeSearch: { parameter: 'safesearch', values: { off: 0, moderate: 1, strict: 2 } },
  offset: { how: "`pageno` (pages of the instance's own size, read and sliced)", exact: true },
} as const satisfies ProviderParameters;

/** Pages one search may read (page 1, the page holding the offset, and those after it). */
const MAX_PAGE_REQUESTS = 4;

/**
 * `time_range` as DOC lists it: day, month and year. A week is asked as the month that covers it (the chain keeps
 * results to the week by their dates where it asked for a range), with a warning.
 */
function timeRange(freshness: Freshness | undefined, warnings: string[]): string | undefined {
  if (freshness !== 'week') return freshness;
  warnings.push('searxng has no week time_range (day, month or year): the past month was asked instead');
  return 'month';
}

/** A SearXNG instance answers 403 to `format=json` unless `json` is listed under `search.formats`. */
const ERRORS: ProviderErrorRules = {
  classify: ({ status }) => (status === 403 ? 'other' : undefined),
  hint: ({ status }) =>
    status === 403
      ? 'the instance refuses format=json: add json under search.formats in its settings.yml'
      : undefined,
};

/** The instance URL: `baseUrl` (the config layer fills it from SEARXNG_BASE_URL). */
function instanceUrl(settings: ProviderSettings): string | undefined {
  return optionalText(settings.baseUrl);
}

function requireInstance(settings: ProviderSettings): string {
  const base = instanceUrl(settings);
  if (base !== undefined) return base;
  throw new PeriscopeError(
    'NOT_CONFIGURED',
    'searxng has no instance URL (set SEARXNG_BASE_URL, or providers.searxng.baseUrl)',
    { details: { provider: ID, reason: 'missing-base-url' } },
  );
}

/**
 * Upstream engines that failed (`unresponsive_engines: [[engine, reason], …]`). With no results at all that is a
 * block (CAPTCHA, "too many requests"), never "no results"; with some results it is a warning.
 */
function unresponsiveEngines(body: Record<string, unknown>): string[] {
  const entries = Array.isArray(body.unresponsive_engines) ? body.unresponsive_engines : [];
  return entries.map((entry: unknown) =>
    Array.isArray(entry) ? entry.map(String).join(': ') : String(optionalText(entry) ?? 'unknown'),
  );
}

async function query(
  context: ProviderContext,
  params: Record<string, string | number | boolean | undefined>,
) {
  const base = requireInstance(context.settings);
  const url = providerUrl(ID, base, '/search', { format: 'json', pageno: 1, ...params });
  const reply = await requestProviderJson(context, { provider: ID, url, errors: ERRORS });
  const body = jsonObject(ID, reply.body);
  const results = records(body.results);
  const engines = unresponsiveEngines(body);
  // A later page that is empty is the end of the results; page 1 empty with engines down is a block.
  if (results.length === 0 && engines.length > 0 && (params.pageno ?? 1) === 1) {
    throw new PeriscopeError(
      'BLOCKED_BY_SITE',
      `searxng: no results, and the instance's upstream engines failed (${engines.join('; ')})`,
      { details: { provider: ID, reason: 'engines-unresponsive', engines } },
    );
  }
  const warnings = engines.length > 0 ? [`searxng engines unresponsive: ${engines.join('; ')}`] : [];
  return { base, results, warnings };
}

/** SearXNG image URLs may be protocol-relative or relative to the instance. */
function absolute(value: unknown, base: string): string | undefined {
  const text = optionalText(value);
  if (text === undefined) return undefined;
  return URL.parse(text, base)?.href;
}

/** `1920 x 1080` / `1920x1080` → width and height. */
function resolution(value: unknown): { width?: number; height?: number } {
  const match = /(\d+)\s*[x×]\s*(\d+)/i.exec(optionalText(value) ?? '');
  return match ? { width: Number(match[1]), height: Number(match[2]) } : {};
}

/**
 * A self-hosted SearXNG instance: `GET {baseUrl}/search?q=…&format=json` (categories `general` or `images`). The
 * instance URL is required (SEARXNG_BASE_URL or `baseUrl`); `json` must be enabled in its settings (403 otherwise,
 * said in the error). Results are returned as the instance gives them, at most `count`.
 *
 * minIntervalMs 1 000: there is no quota on your own instance, but its upstream engines (Google, Bing, …) answer
 * bursty instances with CAPTCHAs, and public instances run SearXNG's limiter; lower it for a private instance.
 */
export const searxngSearchProvider: SearchProvider = {
  id: ID,
  keyEnv: KEY_ENV,
  minIntervalMs: 1_000,
  parameters: PARAMETERS,
  isConfigured: (settings) => instanceUrl(settings) !== undefined,

  async search(request, context) {
    const warnings: string[] = [];
    let language: string | undefined;
    if (request.language !== undefined) {
      language =
        request.region === undefined
          ? request.language.toLowerCase()
          : `${request.language.toLowerCase()}-${request.region.toUpperCase()}`;
    } else if (request.region !== undefined) {
      warnings.push(unsupported(ID, 'region without language', request.region));
    }
    const params = {
      q: request.query,
      categories: request.topic === 'news' ? 'news' : 'general',
      language,
      time_range: timeRange(request.freshness, warnings),
      ...safeSearchField(PARAMETERS.safeSearch, request.safeSearch),
    };
    const engineWarnings = new Set<string>();
    const seen = new Set<string>();
    const pages = await readOwnPages(
      async (pageno) => {
        const answer = await query(context, { ...params, pageno });
        for (const warning of answer.warnings) engineWarnings.add(warning);
        // A page repeating what came before (an instance whose engines ran out) ends the reading.
        const fresh = answer.results.filter((item) => !seen.has(String(item.url)));
        for (const item of fresh) seen.add(String(item.url));
        return fresh.map((item) =>
          webResult({
            title: item.title,
            url: item.url,
            snippet: item.content,
            publishedAt: item.publishedDate,
          }),
        );
      },
      request.offset ?? 0,
      request.count,
      { maxRequests: MAX_PAGE_REQUESTS },
    );
    if (pages.cut)
      warnings.push(
        `searxng pages by ${pages.pageSize} results and ${pages.requests} pages were read: ${pages.results.length} of the ${request.count} asked came back`,
      );
    warnings.push(...engineWarnings);
    return { results: pages.results, ...(warnings.length > 0 ? { warnings } : {}) };
  },

  async searchImages(request, context) {
    const answer = await query(context, {
      q: request.query,
      categories: 'images',
      ...safeSearchField(PARAMETERS.safeSearch, request.safeSearch),
    });
    const results = answer.results.map((item) =>
      imageResult({
        title: item.title,
        imageUrl: absolute(item.img_src, answer.base),
        thumbnailUrl: absolute(item.thumbnail_src ?? item.thumbnail, answer.base),
        sourceUrl: item.url,
        ...resolution(item.resolution),
      }),
    );
    const warnings = [...unsupportedImageFilters(ID, request), ...answer.warnings];
    return { results: firstResults(results, request.count), ...(warnings.length > 0 ? { warnings } : {}) };
  },
};
