import type { ProviderErrorRules } from '../../services/provider-errors.ts';
import {
  hasApiKey,
  jsonObject,
  providerUrl,
  requestProviderJson,
  requireApiKey,
} from '../../services/provider-http.ts';
import { asRecord, optionalNumber, optionalText, records } from '../../services/provider-text.ts';
import { tavilyCountry } from '../country-name.ts';
import type { ProviderParameters } from '../parameter-table.ts';
import {
  firstResults,
  imageResult,
  unsupported,
  unsupportedImageFilters,
  webResult,
} from '../provider-results.ts';
import { domainParams } from '../site-filter.ts';
import type { ProviderContext, QuotaInfo, SearchProvider, SearchRequest } from '../types.ts';

const ID = 'tavily';
const KEY_ENV = ['TAVILY_API_KEY'] as const;
const DEFAULT_BASE_URL = 'https://api.tavily.com';

/** Tavily's errors are `{detail:{error}}`; 432 (plan limit) and 433 (pay-as-you-go limit) are quota statuses. */
const ERRORS: ProviderErrorRules = {
  classify: ({ status }) => (status === 432 || status === 433 ? 'quota' : undefined),
};

async function post(context: ProviderContext, path: string, json: Record<string, unknown>) {
  const apiKey = requireApiKey(ID, context.settings, KEY_ENV);
  const reply = await requestProviderJson(context, {
    provider: ID,
    url: providerUrl(ID, context.settings.baseUrl ?? DEFAULT_BASE_URL, path),
    headers: { authorization: `Bearer ${apiKey}` },
    json,
    secrets: [apiKey],
    errors: ERRORS,
  });
  return jsonObject(ID, reply.body);
}

function searchWarnings(request: SearchRequest): string[] {
  const warnings: string[] = [];
  if (request.language !== undefined) warnings.push(unsupported(ID, 'language', request.language));
  return warnings;
}

/** `/usage`: the key's own limit when it has one, else the account plan's. */
function usageToQuota(body: Record<string, unknown>): QuotaInfo {
  const key = asRecord(body.key);
  const account = asRecord(body.account);
  const keyLimit = optionalNumber(key?.limit);
  const used = keyLimit === undefined ? optionalNumber(account?.plan_usage) : optionalNumber(key?.usage);
  const limit = keyLimit ?? optionalNumber(account?.plan_limit);
  const plan = optionalText(account?.current_plan);
  const note = [
    plan === undefined ? undefined : `plan ${plan}`,
    used === undefined ? undefined : `${used}${limit === undefined ? '' : ` of ${limit}`} credits used`,
  ].filter((part) => part !== undefined);
  return {
    ...(limit === undefined || used === undefined ? {} : { remaining: Math.max(0, limit - used) }),
    ...(limit === undefined ? {} : { limit }),
    ...(note.length > 0 ? { note: note.join(', ') } : {}),
  };
}

/**
 * Tavily: `POST /search` with `Authorization: Bearer tvly-…`; images come from the same call with
 * `include_images` (strings, or `{url, description}` with `include_image_descriptions`). `quota()` asks `/usage`
 * (free). 432/433 (plan / pay-as-you-go limit) are quota exhaustion. A query over 400 characters is refused with 400
 * "Query is too long. Max query length is 400 characters." (FORMATS.md): the chain skips Tavily for a longer query
 * (`queryLimits`). The egress domains go in `include_domains` / `exclude_domains` (FORMATS.md).
 *
 * minIntervalMs 600: 100 requests per minute on development keys (FORMATS.md, agentsapis.com guide).
 */
const TAVILY_DOMAIN_PARAMS = { include: 'include_domains', exclude: 'exclude_domains' };

/** Tavily's search reference, which the entries below and `country` follow. */
const DOC = 'https://docs.tavily.com/documentation/api-reference/endpoint/search';

/**
 * `topic`, `after`/`before`, `safeSearch` and `offset` as Tavily takes them (DOC: `topic` general, news or finance;
 * `start_date` and `end_date`; `published_date` comes with `topic=news`). No safe-search or paging parameter is
 * documented.
 */
const PARAMETERS = {
  doc: DOC,
  news: { how: '`topic: "news"`' },
  dates: { native: '`start_date`, `end_date` (YYYY-MM-DD)' },
  safeSearch: { none: 'no documented safe-search parameter' },
  offset: { none: 'no paging parameter' },
} as const satisfies ProviderParameters;

/**
 * `region` as DOC takes it: `country`, a lower-case country name (`united states`), for the general topic only. A
 * news search, or a code that names no country, is a warning.
 */
function countryField(request: SearchRequest, warnings: string[]): Record<string, string> {
  if (request.region === undefined) return {};
  const country = tavilyCountry(request.region);
  if (country !== undefined && request.topic !== 'news') return { country };
  warnings.push(
    country === undefined
      ? unsupported(ID, 'region', request.region)
      : `${ID} takes a region for general searches only (${request.region} ignored for news)`,
  );
  return {};
}

export const tavilySearchProvider: SearchProvider = {
  id: ID,
  keyEnv: KEY_ENV,
  minIntervalMs: 600,
  queryLimits: { web: { maxCharacters: 400 }, images: { maxCharacters: 400 } },
  siteFilter: 'request',
  parameters: PARAMETERS,
  isConfigured: hasApiKey,

  async search(request, context) {
    const warnings = searchWarnings(request);
    const body = await post(context, '/search', {
      query: request.query,
      max_results: request.count,
      search_depth: 'basic',
      topic: request.topic === 'news' ? 'news' : 'general',
      ...(request.freshness === undefined ? {} : { time_range: request.freshness }),
      ...(request.after === undefined ? {} : { start_date: request.after }),
      ...(request.before === undefined ? {} : { end_date: request.before }),
      ...countryField(request, warnings),
      ...domainParams(request.domains, TAVILY_DOMAIN_PARAMS),
    });
    const results = records(body.results).map((item) =>
      webResult({
        title: item.title,
        url: item.url,
        snippet: item.content,
        publishedAt: item.published_date,
      }),
    );
    return { results: firstResults(results, request.count), ...(warnings.length > 0 ? { warnings } : {}) };
  },

  async searchImages(request, context) {
    const body = await post(context, '/search', {
      query: request.query,
      max_results: Math.min(Math.max(request.count, 5), 20),
      search_depth: 'basic',
      include_images: true,
      include_image_descriptions: true,
      ...domainParams(request.domains, TAVILY_DOMAIN_PARAMS),
    });
    const images = Array.isArray(body.images) ? body.images : [];
    const results = images.map((image: unknown) => {
      const item = asRecord(image);
      return item === undefined
        ? imageResult({ title: '', imageUrl: image })
        : imageResult({ title: item.description, imageUrl: item.url });
    });
    const warnings = unsupportedImageFilters(ID, request);
    return { results: firstResults(results, request.count), ...(warnings.length > 0 ? { warnings } : {}) };
  },

  async quota(context) {
    const apiKey = requireApiKey(ID, context.settings, KEY_ENV);
    const reply = await requestProviderJson(context, {
      provider: ID,
      url: providerUrl(ID, context.settings.baseUrl ?? DEFAULT_BASE_URL, '/usage'),
      headers: { authorization: `Bearer ${apiKey}` },
      secrets: [apiKey],
      errors: ERRORS,
    });
    return usageToQuota(jsonObject(ID, reply.body));
  },
};
