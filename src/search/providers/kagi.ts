import { errorFromProvider, isPeriscopeError, messageWithoutProvider } from '../../errors.ts';
import type { ProviderErrorRules } from '../../services/provider-errors.ts';
import {
  hasApiKey,
  jsonObject,
  providerUrl,
  requestProviderJson,
  requireApiKey,
} from '../../services/provider-http.ts';
import { asRecord, optionalNumber, records, stringSetting } from '../../services/provider-text.ts';
import { describeRange } from '../parameter-support.ts';
import { type ProviderParameters, safeSearchField } from '../parameter-table.ts';
import { firstResults, freshnessDays, unsupported, webResult } from '../provider-results.ts';
import { readOwnPages } from '../result-pages.ts';
import type {
  ProviderContext,
  ProviderResponse,
  SearchProvider,
  SearchRequest,
  SearchResult,
} from '../types.ts';

const ID = 'kagi';
const KEY_ENV = ['KAGI_API_KEY'] as const;
const DEFAULT_BASE_URL = 'https://kagi.com';
/** Kagi's v1 OpenAPI specification (`search_request`, `search_request_filters`), which the v1 entries follow. */
const DOC = 'https://kagi.redocly.app/_spec/openapi.yaml';
// The legacy v0 search page (V0_DOC below), https://help.kagi.com/kagi/api/search.html: `q` and `limit`, nothing else.

/**
 * `topic`, `after`/`before`, `safeSearch` and `offset` as v1 takes them (DOC): `workflow: "news"` (hits in
 * `data.news`); `filters.after` / `filters.before`; `safe_search`, a boolean (on by default); `page`, 1–10, pages
 * of Kagi's own size (`limit` only cuts what one pass gives), learned from page 1 and sliced. v0 (V0_DOC), where keys
 * without v1 access land, has none of them: there news is refused (a skip), dates are kept by the results' own
 * dates, and the others are warnings.
 */
const PARAMETERS = {
  doc: DOC,
  news: { how: 'v1 `workflow: "news"` (`data.news`)' },
  dates: { native: 'v1 `filters.after`, `filters.before`' },
  safeSearch: { parameter: 'safe_search', values: { off: false, moderate: true, strict: true } },
  offset: { how: 'v1 `page` (1–10, pages of its own size, read and sliced)', exact: true },
} as const satisfies ProviderParameters;
/** v1 serves pages 1 to 10. */
const LAST_PAGE = 10;
/** Pages one search may read (each is a billed query). */
const MAX_PAGE_REQUESTS = 3;
const DAY_MS = 86_400_000;

/** v1 statuses that mean "this key has no v1 access" (v1 is invite-only): try v0. */
const V0_FALLBACK_STATUSES = new Set([401, 403, 404]);

/** 402, or a message about credit or balance ("Insufficient credit to perform this request."), is quota. */
const ERRORS: ProviderErrorRules = {
  classify: ({ status, message }) =>
    status === 402 || (message !== undefined && /insufficient|credit|balance/i.test(message))
      ? 'quota'
      : undefined,
};

type Scheme = 'Bot' | 'Bearer';

/**
 * The scheme v1 last accepted, per endpoint and key, for this process: after a `Bot` 401 that `Bearer` fixed, later
 * calls send `Bearer` first. Kept in memory only (it holds keys).
 */
const acceptedSchemes = new Map<string, Scheme>();

/**
 * Endpoints and keys v1 refused (401/403/404 with every scheme it was sent with), for this process, with the status
 * it answered: later calls go straight to v0 — one request instead of three for a key without v1 access. Keyed by
 * base URL and the pinned `Authorization`, or the bare key when unpinned (both schemes were tried). Memory only.
 */
const v1Refusals = new Map<string, number>();

/**
 * The `Authorization` the settings pin, if any: `authScheme: Bot|Bearer`, or a key that already starts with a
 * scheme (sent as it is). The 2025 OpenAPI spec, the help center and the v0 docs say `Bot <token>`; the 2026
 * generated clients send `Bearer <token>`: unpinned, v1 is tried with both (see `searchV1Either`).
 */
function pinnedAuthorization(apiKey: string, context: ProviderContext): string | undefined {
  if (/^(?:Bot|Bearer)\s/i.test(apiKey)) return apiKey;
  const scheme = stringSetting(context.settings, 'authScheme');
  if (scheme === undefined) return undefined;
  return `${/^bearer$/i.test(scheme) ? 'Bearer' : 'Bot'} ${apiKey}`;
}

/** What v1 cannot take: the language. */
function warningsFor(request: SearchRequest): string[] {
  return request.language === undefined ? [] : [unsupported(ID, 'language', request.language)];
}

/** What v0 cannot take (V0_DOC lists `q` and `limit` only): everything but the query and the count. */
function v0Warnings(request: SearchRequest): string[] {
  const warnings = (['freshness', 'region', 'language'] as const)
    .filter((name) => request[name] !== undefined)
    .map((name) => unsupported(ID, name, request[name]));
  if (request.safeSearch !== undefined && request.safeSearch !== 'moderate')
    warnings.push(unsupported(ID, 'safeSearch on v0', request.safeSearch));
  if (request.offset)
    warnings.push(
      `${ID} v0 cannot page results: offset ${request.offset} was ignored, these are its first results`,
    );
  return warnings;
}

/**
 * v1's `filters` (DOC `search_request_filters`): `after`/`before` as given (YYYY-MM-DD), else `after` as the start
 * of the `freshness` window; `region` as an ISO 3166-1 alpha-2 code.
 */
function v1Filters(request: SearchRequest): Record<string, string> | undefined {
  const after =
    request.after ??
    (request.freshness === undefined
      ? undefined
      : new Date(Date.now() - freshnessDays(request.freshness) * DAY_MS).toISOString().slice(0, 10));
  const filters = {
    ...(after === undefined ? {} : { after }),
    ...(request.before === undefined ? {} : { before: request.before }),
    ...(request.region === undefined ? {} : { region: request.region.toLowerCase() }),
  };
  return Object.keys(filters).length > 0 ? filters : undefined;
}

/** Which v1 page to ask, and the `limit` sent with it (none: the page as Kagi sizes it). */
interface V1Page {
  page: number;
  limit?: number;
}

async function searchV1(
  request: SearchRequest,
  context: ProviderContext,
  apiKey: string,
  authorization: string,
  { page, limit }: V1Page,
) {
  const workflow = request.topic === 'news' ? 'news' : 'search';
  const filters = v1Filters(request);
  const reply = await requestProviderJson(context, {
    provider: ID,
    url: providerUrl(ID, context.settings.baseUrl ?? DEFAULT_BASE_URL, '/api/v1/search'),
    headers: { authorization },
    json: {
      query: request.query,
      workflow,
      ...(limit === undefined ? {} : { limit }),
      ...(page > 1 ? { page } : {}),
      ...(filters === undefined ? {} : { filters }),
      ...safeSearchField(PARAMETERS.safeSearch, request.safeSearch),
    },
    secrets: [apiKey],
    errors: ERRORS,
  });
  const data = asRecord(jsonObject(ID, reply.body).data);
  return records(data?.[workflow]).map((item) =>
    webResult({ title: item.title, url: item.url, snippet: item.snippet, publishedAt: item.time }),
  );
}

/**
 * v1 for `offset` and `count`: without an offset, one request with `limit` (each page is a billed query); with one,
 * no `limit` (it would cut page 1 below Kagi's page size), page 1 first to learn that size, then the page holding
 * the offset and those after it, as many as `count` needs.
 */
async function searchV1Pages(request: SearchRequest, context: ProviderContext, apiKey: string) {
  if (!request.offset) {
    const results = await searchV1Either(request, context, apiKey, { page: 1, limit: request.count });
    return { results: firstResults(results, request.count), warnings: [] };
  }
  const pages = await readOwnPages(
    (page) => searchV1Either(request, context, apiKey, { page }),
    request.offset,
    request.count,
    { maxRequests: MAX_PAGE_REQUESTS, lastPage: LAST_PAGE },
  );
  const warnings = pages.cut
    ? [
        `kagi pages by ${pages.pageSize} results and ${pages.requests} pages were read: ${pages.results.length} of the ${request.count} asked came back`,
      ]
    : [];
  return { results: pages.results, warnings };
}

/**
 * v1 with the pinned scheme; unpinned, with the scheme last accepted (`Bot` at first) and, on a 401, once more with
 * the other one — Kagi's documents disagree on the scheme. The one that worked is remembered.
 */
async function searchV1Either(
  request: SearchRequest,
  context: ProviderContext,
  apiKey: string,
  page: V1Page,
) {
  const pinned = pinnedAuthorization(apiKey, context);
  if (pinned !== undefined) return searchV1(request, context, apiKey, pinned, page);
  const memory = `${context.settings.baseUrl ?? DEFAULT_BASE_URL}\n${apiKey}`;
  const first = acceptedSchemes.get(memory) ?? 'Bot';
  try {
    return await searchV1(request, context, apiKey, `${first} ${apiKey}`, page);
  } catch (error) {
    if (httpStatus(error) !== 401) throw error;
  }
  const other: Scheme = first === 'Bot' ? 'Bearer' : 'Bot';
  try {
    const results = await searchV1(request, context, apiKey, `${other} ${apiKey}`, page);
    acceptedSchemes.set(memory, other);
    return results;
  } catch (error) {
    if (httpStatus(error) === 401) acceptedSchemes.delete(memory);
    throw error;
  }
}

async function searchV0(request: SearchRequest, context: ProviderContext, apiKey: string) {
  const reply = await requestProviderJson(context, {
    provider: ID,
    url: providerUrl(ID, context.settings.baseUrl ?? DEFAULT_BASE_URL, '/api/v0/search', {
      q: request.query,
      limit: request.count,
    }),
    // The v0 docs say Bot.
    headers: { authorization: pinnedAuthorization(apiKey, context) ?? `Bot ${apiKey}` },
    secrets: [apiKey],
    errors: ERRORS,
  });
  const body = jsonObject(ID, reply.body);
  // t: 0 is a search result, t: 1 a list of related searches.
  const results = records(body.data)
    .filter((item) => item.t === 0)
    .map((item) =>
      webResult({ title: item.title, url: item.url, snippet: item.snippet, publishedAt: item.published }),
    );
  const balance = optionalNumber(asRecord(body.meta)?.api_balance);
  return { results, balance };
}

function httpStatus(error: unknown): number | undefined {
  if (!isPeriscopeError(error) || error.code !== 'HTTP_STATUS') return undefined;
  const status = error.details.status;
  return typeof status === 'number' ? status : undefined;
}

function v1Status(error: unknown): number | undefined {
  const status = httpStatus(error);
  return status !== undefined && V0_FALLBACK_STATUSES.has(status) ? status : undefined;
}

/**
 * Kagi Search API: v1 (`POST /api/v1/search`, `{query, workflow: "search", limit}`) first — sent with `Bot`, and
 * after a 401 once more with `Bearer` (or the other way round once `Bearer` worked) unless `authScheme` pins one;
 * when v1 still refuses the key (401/403/404: v1 is invite-only) the legacy v0 (`GET /api/v0/search?q=&limit=`,
 * `Bot`) is asked instead, and for that key and endpoint straight away from then on (per process, `v1Refusals`).
 * `apiVersion: v0|v1` in settings pins one. Errors come as `{meta, error:{code,msg}}` or
 * `{meta, error:[{code,message}]}`; both are read. v0's `meta.api_balance` (the only quota signal Kagi gives) becomes
 * `quota.note`. There is no balance endpoint, so no `quota()`: the chain keeps the last balance seen in the store and
 * `periscope status` shows it with its time; with a working v1 key it is never seen.
 *
 * minIntervalMs 1 000: Kagi publishes no request rate; searches are billed per query ($25 per 1 000 on v0).
 */
export const kagiSearchProvider: SearchProvider = {
  id: ID,
  keyEnv: KEY_ENV,
  minIntervalMs: 1_000,
  siteFilter: 'query',
  parameters: PARAMETERS,
  isConfigured: hasApiKey,

  async search(request, context): Promise<ProviderResponse<SearchResult>> {
    const apiKey = requireApiKey(ID, context.settings, KEY_ENV);
    const version = stringSetting(context.settings, 'apiVersion')?.toLowerCase() ?? 'auto';
    if (version !== 'v0') {
      const memory = `${context.settings.baseUrl ?? DEFAULT_BASE_URL}\n${pinnedAuthorization(apiKey, context) ?? apiKey}`;
      const refused = version === 'v1' ? undefined : v1Refusals.get(memory);
      if (refused !== undefined) return answerFromV0(request, context, apiKey, refused);
      try {
        const { results, warnings } = await searchV1Pages(request, context, apiKey);
        warnings.unshift(...warningsFor(request));
        return { results, ...(warnings.length > 0 ? { warnings } : {}) };
      } catch (error) {
        const status = v1Status(error);
        if (version === 'v1' || status === undefined) throw error;
        v1Refusals.set(memory, status);
        return answerFromV0(request, context, apiKey, status);
      }
    }
    return answerFromV0(request, context, apiKey);
  },
};

/**
 * v0's answer; after v1 refused the key with `refusedWith`, a v0 failure says so. v0 has no news search (refused as
 * an unsupported parameter: the chain asks the next provider) and no date filter (its results are kept to the range
 * here by their own dates, the undated ones too unless `keepUndated`).
 */
async function answerFromV0(
  request: SearchRequest,
  context: ProviderContext,
  apiKey: string,
  refusedWith?: number,
): Promise<ProviderResponse<SearchResult>> {
  const why = refusedWith === undefined ? 'apiVersion is v0' : `v1 answered ${refusedWith} for this key`;
  if (request.topic === 'news')
    throw errorFromProvider(ID, 'INVALID_INPUT', `cannot search news on v0 (${why}; v0 has no news search)`, {
      details: { reason: 'unsupported-parameter', parameter: 'topic' },
    });
  let answer: Awaited<ReturnType<typeof searchV0>>;
  try {
    answer = await searchV0(request, context, apiKey);
  } catch (error) {
    if (refusedWith === undefined || !isPeriscopeError(error)) throw error;
    throw errorFromProvider(
      ID,
      error.code,
      `${messageWithoutProvider(error)} (v1 answered ${refusedWith} before)`,
      {
        retryable: error.retryable,
        retryAfterMs: error.retryAfterMs,
        details: { ...error.details, v1Status: refusedWith },
        cause: error,
      },
    );
  }
  const { balance } = answer;
  const warnings = v0Warnings(request);
  const kept = keptToRange(answer.results, request, warnings);
  return {
    results: firstResults(kept, request.count),
    ...(warnings.length > 0 ? { warnings } : {}),
    ...(balance === undefined ? {} : { quota: { note: `Kagi balance $${balance.toFixed(2)}` } }),
  };
}

/** v0's results kept to `after`/`before` by their dates (v0 cannot search a range), with a warning saying so. */
function keptToRange(
  results: (SearchResult | undefined)[],
  request: SearchRequest,
  warnings: string[],
): (SearchResult | undefined)[] {
  const { after, before } = request;
  if (after === undefined && before === undefined) return results;
  const kept = results.filter((result) => {
    if (result === undefined) return false;
    const day = result.publishedAt?.slice(0, 10);
    if (day === undefined) return request.keepUndated === true;
    return (after === undefined || day >= after) && (before === undefined || day <= before);
  });
  const dropped = results.filter((result) => result !== undefined).length - kept.length;
  warnings.push(
    `${ID} v0 cannot search by date: its results were kept to ${describeRange(request)} by their dates${dropped > 0 ? ` (${dropped} dropped)` : ''}`,
  );
  return kept;
}
