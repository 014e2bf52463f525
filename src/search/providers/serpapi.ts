import { redactUrl } from '../../net/url-policy.ts';
import { type ProviderErrorRules, providerError } from '../../services/provider-errors.ts';
import {
  hasApiKey,
  jsonObject,
  providerUrl,
  requestProviderJson,
  requireApiKey,
} from '../../services/provider-http.ts';
import { asRecord, optionalNumber, optionalText, records } from '../../services/provider-text.ts';
import { type ProviderParameters, safeSearchField } from '../parameter-table.ts';
import {
  firstResults,
  googleDateTbs,
  imageResult,
  unsupportedImageFilters,
  webResult,
} from '../provider-results.ts';
import type { ProviderContext, SearchProvider } from '../types.ts';

const ID = 'serpapi';
const KEY_ENV = ['SERPAPI_API_KEY'] as const;
const DEFAULT_BASE_URL = 'https://serpapi.com';

/**
 * SerpApi errors are `{error}`. It answers 429 both for the hourly throughput limit and when the month's searches
 * have run out (serpapi/serpapi-python #16); the message tells them apart.
 */
const ERRORS: ProviderErrorRules = {
  classify: ({ status, message }) =>
    (status === 429 || status === 403) && message !== undefined && /run out|plan|month|credits/i.test(message)
      ? 'quota'
      : undefined,
};

/**
 * `topic`, `after`/`before`, `safeSearch` and `offset` as SerpApi's Google engine takes them (FORMATS.md "SerpAPI":
 * `tbs`, `safe`, `start`): news is Google's news tab, `tbm=nws`, answering `news_results[]{link, title, source,
 * date, snippet}`; a date range is `tbs=cdr:1,…`; `safe` has one filtering level, `active`; `start` is the number
 * of results to skip.
 */
const PARAMETERS = {
  doc: 'https://serpapi.com/search-api',
  news: { how: '`tbm=nws` (`news_results`)' },
  dates: { native: '`tbs=cdr:1,cd_min:M/D/YYYY,cd_max:M/D/YYYY`' },
  safeSearch: { parameter: 'safe', values: { off: 'off', moderate: 'active', strict: 'active' } },
  offset: { how: '`start` (results skipped)', exact: true },
} as const satisfies ProviderParameters;

async function get(
  context: ProviderContext,
  path: string,
  params: Record<string, string | number | boolean | undefined>,
) {
  const apiKey = requireApiKey(ID, context.settings, KEY_ENV);
  const url = providerUrl(ID, context.settings.baseUrl ?? DEFAULT_BASE_URL, path, {
    ...params,
    api_key: apiKey,
  });
  const reply = await requestProviderJson(context, { provider: ID, url, secrets: [apiKey], errors: ERRORS });
  const body = jsonObject(ID, reply.body);
  // A search that failed upstream: 200 with search_metadata.status "Error" and a top-level error. "Google hasn't
  // returned any results" comes with status "Success": that is an empty result, not an error.
  const status = optionalText(asRecord(body.search_metadata)?.status);
  if (status === 'Error') {
    const failure = { status: reply.status, message: optionalText(body.error), body };
    throw providerError(ID, 'other', failure, { url: redactUrl(url) });
  }
  return body;
}

/**
 * SerpApi (Google results): `GET /search.json?engine=google&q=&num=&gl=&hl=&tbs=&api_key=`; images with
 * `engine=google_images`. The key travels in the query string (masked in every message). `quota()` asks the free
 * `/account.json`.
 *
 * minIntervalMs 1 100: the free plan (100 searches a month) is limited to about 1 request per second (serpapi-pack
 * skill text, unofficial); SerpApi's own throughput limit is per hour (`account_rate_limit_per_hour`).
 */
export const serpapiSearchProvider: SearchProvider = {
  id: ID,
  keyEnv: KEY_ENV,
  minIntervalMs: 1_100,
  siteFilter: 'query',
  parameters: PARAMETERS,
  isConfigured: hasApiKey,

  async search(request, context) {
    const news = request.topic === 'news';
    const body = await get(context, '/search.json', {
      engine: 'google',
      q: request.query,
      num: request.count,
      tbm: news ? 'nws' : undefined,
      start: request.offset || undefined,
      gl: request.region?.toLowerCase(),
      hl: request.language?.toLowerCase(),
      tbs: googleDateTbs(request),
      ...safeSearchField(PARAMETERS.safeSearch, request.safeSearch),
    });
    const results = records(news ? body.news_results : body.organic_results).map((item) =>
      webResult({
        title: item.title,
        url: item.link,
        snippet: item.snippet,
        publishedAt: item.date,
        ...(news ? { source: item.source } : {}),
      }),
    );
    return { results: firstResults(results, request.count) };
  },

  async searchImages(request, context) {
    const body = await get(context, '/search.json', {
      engine: 'google_images',
      q: request.query,
      ...safeSearchField(PARAMETERS.safeSearch, request.safeSearch),
    });
    const results = records(body.images_results).map((item) =>
      imageResult({
        title: item.title,
        imageUrl: item.original,
        thumbnailUrl: item.thumbnail,
        sourceUrl: item.link,
        width: item.original_width,
        height: item.original_height,
      }),
    );
    const warnings = unsupportedImageFilters(ID, request);
    return { results: firstResults(results, request.count), ...(warnings.length > 0 ? { warnings } : {}) };
  },

  async quota(context) {
    const body = await get(context, '/account.json', {});
    const remaining = optionalNumber(body.total_searches_left) ?? optionalNumber(body.plan_searches_left);
    const limit = optionalNumber(body.searches_per_month);
    const plan = optionalText(body.plan_name);
    const used = optionalNumber(body.this_month_usage);
    const note = [plan, used === undefined ? undefined : `${used} searches this month`]
      .filter(Boolean)
      .join(', ');
    return {
      ...(remaining === undefined ? {} : { remaining }),
      ...(limit === undefined ? {} : { limit }),
      ...(note ? { note } : {}),
    };
  },
};
