import type { ProviderErrorRules } from '../../services/provider-errors.ts';
import {
  hasApiKey,
  jsonObject,
  providerUrl,
  requestProviderJson,
  requireApiKey,
} from '../../services/provider-http.ts';
import { optionalNumber, records } from '../../services/provider-text.ts';
import type { ProviderParameters } from '../parameter-table.ts';
import {
  firstResults,
  googleDateTbs,
  imageResult,
  unsupportedImageFilters,
  webResult,
} from '../provider-results.ts';
import { pageFor, pageSlice } from '../result-pages.ts';
import type { ProviderContext, QuotaInfo, SearchProvider } from '../types.ts';

const ID = 'serper';
const KEY_ENV = ['SERPER_API_KEY'] as const;
const DEFAULT_BASE_URL = 'https://google.serper.dev';

/**
 * Serper errors are `{message, statusCode}`: 403 "Unauthorized." for a bad key. Running out of credits is also an
 * error status whose wording is not recorded; any failure whose message speaks of credits is quota.
 */
const ERRORS: ProviderErrorRules = {
  classify: ({ status, message }) =>
    status >= 400 && status < 500 && message !== undefined && /credit/i.test(message) ? 'quota' : undefined,
};

/**
 * `topic`, `after`/`before`, `safeSearch` and `offset` as Serper takes them: news is `POST /news` with the search
 * body, answering `news[]{title, link, snippet, date, source}` (FORMATS.md "Serper": `/news`; the body
 * `{q, num, gl, hl, tbs?, page?}`); a date range is Google's `tbs=cdr:1,cd_min:…,cd_max:…`; `page` counts pages of
 * `num`.
 */
const PARAMETERS = {
  doc: 'https://serper.dev/playground',
  news: { how: '`POST /news`' },
  dates: { native: '`tbs=cdr:1,cd_min:M/D/YYYY,cd_max:M/D/YYYY`' },
  safeSearch: { none: 'no documented safe-search field' },
  offset: { how: '`page` (pages of `num`)', exact: true },
} as const satisfies ProviderParameters;
/** The page sizes asked for: at most 20, a count the tool allows (Serper bills by the request). */
const MAX_PAGE_SIZE = 20;

async function post(context: ProviderContext, path: string, json: Record<string, unknown>) {
  const apiKey = requireApiKey(ID, context.settings, KEY_ENV);
  const reply = await requestProviderJson(context, {
    provider: ID,
    url: providerUrl(ID, context.settings.baseUrl ?? DEFAULT_BASE_URL, path),
    headers: { 'x-api-key': apiKey },
    json,
    secrets: [apiKey],
    errors: ERRORS,
  });
  return jsonObject(ID, reply.body);
}

/** Every response says how many credits it used. */
function creditsUsed(body: Record<string, unknown>): { quota?: QuotaInfo } {
  const credits = optionalNumber(body.credits);
  return credits === undefined
    ? {}
    : { quota: { note: `${credits} credit${credits === 1 ? '' : 's'} used` } };
}

/**
 * Serper (Google results): `POST /search` and `POST /images` with `X-API-KEY`, body `{q, num, gl, hl, tbs}`
 * (freshness as `tbs=qdr:d|w|m|y`). `organic[].date` is human text ("3 days ago"); the chain normalises it.
 *
 * minIntervalMs 220: about 5 requests per second on the free tier (2 500 one-time credits), as measured in a
 * public load-test report; Serper does not publish the figure.
 */
export const serperSearchProvider: SearchProvider = {
  id: ID,
  keyEnv: KEY_ENV,
  minIntervalMs: 220,
  siteFilter: 'query',
  parameters: PARAMETERS,
  isConfigured: hasApiKey,

  async search(request, context) {
    const news = request.topic === 'news';
    const page = request.offset ? pageFor(ID, request.offset, request.count, MAX_PAGE_SIZE) : undefined;
    const tbs = googleDateTbs(request);
    const body = await post(context, news ? '/news' : '/search', {
      q: request.query,
      num: page?.size ?? request.count,
      ...(page === undefined || page.index === 0 ? {} : { page: page.index + 1 }),
      ...(request.region === undefined ? {} : { gl: request.region.toLowerCase() }),
      ...(request.language === undefined ? {} : { hl: request.language.toLowerCase() }),
      ...(tbs === undefined ? {} : { tbs }),
    });
    const results = records(news ? body.news : body.organic).map((item) =>
      webResult({
        title: item.title,
        url: item.link,
        snippet: item.snippet,
        publishedAt: item.date,
        ...(news ? { source: item.source } : {}),
      }),
    );
    return {
      results: pageSlice(results, page, request.count),
      ...(page?.warning ? { warnings: [page.warning] } : {}),
      ...creditsUsed(body),
    };
  },

  async searchImages(request, context) {
    const body = await post(context, '/images', { q: request.query, num: request.count });
    const results = records(body.images).map((item) =>
      imageResult({
        title: item.title,
        imageUrl: item.imageUrl,
        thumbnailUrl: item.thumbnailUrl,
        sourceUrl: item.link,
        width: item.imageWidth,
        height: item.imageHeight,
      }),
    );
    const warnings = unsupportedImageFilters(ID, request);
    return {
      results: firstResults(results, request.count),
      ...(warnings.length > 0 ? { warnings } : {}),
      ...creditsUsed(body),
    };
  },
};
