import type { ProviderErrorRules } from '../../services/provider-errors.ts';
import { quotaFromHeaders } from '../../services/provider-headers.ts';
import {
  hasApiKey,
  jsonObject,
  providerUrl,
  requestProviderJson,
  requireApiKey,
} from '../../services/provider-http.ts';
import { asRecord, records } from '../../services/provider-text.ts';
import { type ProviderParameters, safeSearchField } from '../parameter-table.ts';
import { firstResults, imageResult, unsupportedImageFilters, webResult } from '../provider-results.ts';
import { pageFor, pageSlice } from '../result-pages.ts';
import type { Freshness, SearchProvider, SearchRequest } from '../types.ts';

const ID = 'brave';
const KEY_ENV = ['BRAVE_API_KEY'] as const;
const DEFAULT_BASE_URL = 'https://api.search.brave.com';
const FRESHNESS: Record<Freshness, string> = { day: 'pd', week: 'pw', month: 'pm', year: 'py' };
/** Brave's `search_lang` codes that are not the plain ISO 639-1 code. */
const BRAVE_LANGUAGES: Record<string, string> = {
  ja: 'jp',
  zh: 'zh-hans',
  'zh-cn': 'zh-hans',
  'zh-sg': 'zh-hans',
  'zh-tw': 'zh-hant',
  'zh-hk': 'zh-hant',
  'en-gb': 'en-gb',
  'pt-br': 'pt-br',
  'pt-pt': 'pt-pt',
};

/**
 * `topic`, `after`/`before`, `safeSearch` and `offset` as Brave takes them (FORMATS.md "Brave Search API"; Brave's
 * news-search parameters as its own MCP server declares them, brave/brave-search-mcp-server
 * `src/tools/news/params.ts`): news is its own endpoint with the web parameters; `offset` counts pages of `count`.
 */
const PARAMETERS = {
  doc: 'https://api-dashboard.search.brave.com/app/documentation/web-search/query',
  news: {
    how: '`GET /res/v1/news/search`',
    doc: 'https://api-dashboard.search.brave.com/app/documentation/news-search/query',
  },
  dates: { native: '`freshness=YYYY-MM-DDtoYYYY-MM-DD`' },
  safeSearch: { parameter: 'safesearch', values: { off: 'off', moderate: 'moderate', strict: 'strict' } },
  // Image search has no moderate level (off or strict, default strict): moderate asks strict.
  imageSafeSearch: {
    parameter: 'safesearch',
    values: { off: 'off', moderate: 'strict', strict: 'strict' },
    doc: 'https://api-dashboard.search.brave.com/app/documentation/image-search/query',
  },
  offset: { how: '`offset` (pages of `count`, at most 9)', exact: true },
} as const satisfies ProviderParameters;
/** Results per request: web 20, news 50. */
const MAX_COUNT = { web: 20, news: 50 } as const;
const MAX_PAGE = 9;

/** `after`/`before` as Brave's range (`2025-01-01to2025-03-31`); an open end is the epoch or today. */
function freshnessRange(request: SearchRequest): string | undefined {
  if (request.after === undefined && request.before === undefined) return undefined;
  const to = request.before ?? new Date().toISOString().slice(0, 10);
  return `${request.after ?? '1970-01-01'}to${to}`;
}

/** `de-AT` → `de`, `ja` → `jp`, `zh-TW` → `zh-hant`, `pt-BR` → `pt-br` (Brave's search_lang list). */
export function braveSearchLanguage(language: string): string {
  const code = language.trim().toLowerCase().replace('_', '-');
  const primary = code.split('-')[0] ?? code;
  return BRAVE_LANGUAGES[code] ?? BRAVE_LANGUAGES[primary] ?? primary;
}

/**
 * Brave's errors are `{type:"ErrorResponse", error:{code, detail, meta}}`. An invalid key is 422
 * `SUBSCRIPTION_TOKEN_INVALID` (not 401); a 429 whose `meta.quota_current` reached `meta.quota_limit` is the monthly
 * quota, not the per-second rate.
 */
const ERRORS: ProviderErrorRules = {
  classify({ status, code, body }) {
    const meta = asRecord(asRecord(asRecord(body)?.error)?.meta);
    const quotaLimit = meta?.quota_limit;
    const quotaCurrent = meta?.quota_current;
    if (typeof quotaLimit === 'number' && typeof quotaCurrent === 'number' && quotaCurrent >= quotaLimit) {
      return 'quota';
    }
    if (code !== undefined && /QUOTA/i.test(code)) return 'quota';
    if (code === 'SUBSCRIPTION_TOKEN_INVALID' || meta?.component === 'authentication') {
      return status === 400 ? 'other' : 'invalid-key';
    }
    return undefined;
  },
};

/**
 * Brave Search API: `GET /res/v1/web/search` and `/res/v1/images/search` with `X-Subscription-Token`.
 * Rate-limit headers (`X-RateLimit-*`, per-second and per-month windows) become `quota`. `q` takes at most 400
 * characters and 50 words (FORMATS.md, web parameters; Brave documents no limit for images): the chain skips Brave
 * for a longer query (`queryLimits`).
 *
 * minIntervalMs 1 100: the old Free plan allowed 1 request per second (FORMATS.md, chatwise #1296); the metered
 * Search plan that replaced it in February 2026 allows 50 per second, so raise the pace in config for such keys.
 */
export const braveSearchProvider: SearchProvider = {
  id: ID,
  keyEnv: KEY_ENV,
  minIntervalMs: 1_100,
  queryLimits: { web: { maxCharacters: 400, maxWords: 50 } },
  siteFilter: 'query',
  parameters: PARAMETERS,
  isConfigured: hasApiKey,

  async search(request, context) {
    const apiKey = requireApiKey(ID, context.settings, KEY_ENV);
    const news = request.topic === 'news';
    const maxCount = news ? MAX_COUNT.news : MAX_COUNT.web;
    const page = request.offset ? pageFor(ID, request.offset, request.count, maxCount, MAX_PAGE) : undefined;
    const path = news ? '/res/v1/news/search' : '/res/v1/web/search';
    const url = providerUrl(ID, context.settings.baseUrl ?? DEFAULT_BASE_URL, path, {
      q: request.query,
      count: page?.size ?? Math.min(request.count, maxCount),
      offset: page?.index || undefined,
      freshness:
        freshnessRange(request) ??
        (request.freshness === undefined ? undefined : FRESHNESS[request.freshness]),
      country: request.region?.toUpperCase(),
      search_lang: request.language === undefined ? undefined : braveSearchLanguage(request.language),
      ...safeSearchField(PARAMETERS.safeSearch, request.safeSearch),
    });
    const reply = await requestProviderJson(context, {
      provider: ID,
      url,
      headers: { 'x-subscription-token': apiKey },
      secrets: [apiKey],
      errors: ERRORS,
    });
    const body = jsonObject(ID, reply.body);
    // News answers `{type: "news", results}`; the publication is the article's host (`meta_url.hostname`).
    const items = news ? records(body.results) : records(asRecord(body.web)?.results);
    const results = items.map((item) =>
      webResult({
        title: item.title,
        url: item.url,
        snippet: item.description,
        publishedAt: item.page_age,
        ...(news ? { source: asRecord(item.meta_url)?.hostname } : {}),
      }),
    );
    const quota = quotaFromHeaders(reply.headers);
    return {
      results: pageSlice(results, page, request.count),
      ...(page?.warning ? { warnings: [page.warning] } : {}),
      ...(quota ? { quota } : {}),
    };
  },

  async searchImages(request, context) {
    const apiKey = requireApiKey(ID, context.settings, KEY_ENV);
    const url = providerUrl(ID, context.settings.baseUrl ?? DEFAULT_BASE_URL, '/res/v1/images/search', {
      q: request.query,
      count: request.count,
      ...safeSearchField(PARAMETERS.imageSafeSearch, request.safeSearch),
    });
    const reply = await requestProviderJson(context, {
      provider: ID,
      url,
      headers: { 'x-subscription-token': apiKey },
      secrets: [apiKey],
      errors: ERRORS,
    });
    const results = records(jsonObject(ID, reply.body).results).map((item) => {
      const properties = asRecord(item.properties);
      const thumbnail = asRecord(item.thumbnail);
      return imageResult({
        title: item.title,
        imageUrl: properties?.url,
        thumbnailUrl: thumbnail?.src,
        sourceUrl: item.url,
        width: properties?.width,
        height: properties?.height,
      });
    });
    const warnings = unsupportedImageFilters(ID, request);
    const quota = quotaFromHeaders(reply.headers);
    return {
      results: firstResults(results, request.count),
      ...(warnings.length > 0 ? { warnings } : {}),
      ...(quota ? { quota } : {}),
    };
  },
};
