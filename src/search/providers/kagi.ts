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
import type { ProviderParameters } from '../parameter-table.ts';
import { firstResults, unsupported, webResult } from '../provider-results.ts';
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
/**
 * `topic`, `after`/`before`, `safeSearch` and `offset` for Kagi: none natively. v1 documents a `news` workflow and
 * `page`, but no response of either is recorded and v0 — where keys without v1 access land — has neither
 * (FORMATS.md "Kagi Search API"); safe search is an account setting.
 */
const PARAMETERS = {
  news: { none: "v1's news workflow is unrecorded and v0 has none" },
  dates: { none: 'no date filter' },
  safeSearch: { none: 'an account setting, not a request parameter' },
  offset: { none: 'v0 has no paging parameter' },
} as const satisfies ProviderParameters;

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

function warningsFor(request: SearchRequest): string[] {
  return (['freshness', 'region', 'language'] as const)
    .filter((name) => request[name] !== undefined)
    .map((name) => unsupported(ID, name, request[name]));
}

async function searchV1(
  request: SearchRequest,
  context: ProviderContext,
  apiKey: string,
  authorization: string,
) {
  const reply = await requestProviderJson(context, {
    provider: ID,
    url: providerUrl(ID, context.settings.baseUrl ?? DEFAULT_BASE_URL, '/api/v1/search'),
    headers: { authorization },
    json: { query: request.query, workflow: 'search', limit: request.count },
    secrets: [apiKey],
    errors: ERRORS,
  });
  const data = asRecord(jsonObject(ID, reply.body).data);
  return records(data?.search).map((item) =>
    webResult({ title: item.title, url: item.url, snippet: item.snippet, publishedAt: item.time }),
  );
}

/**
 * v1 with the pinned scheme; unpinned, with the scheme last accepted (`Bot` at first) and, on a 401, once more with
 * the other one — Kagi's documents disagree on the scheme. The one that worked is remembered.
 */
async function searchV1Either(request: SearchRequest, context: ProviderContext, apiKey: string) {
  const pinned = pinnedAuthorization(apiKey, context);
  if (pinned !== undefined) return searchV1(request, context, apiKey, pinned);
  const memory = `${context.settings.baseUrl ?? DEFAULT_BASE_URL}\n${apiKey}`;
  const first = acceptedSchemes.get(memory) ?? 'Bot';
  try {
    return await searchV1(request, context, apiKey, `${first} ${apiKey}`);
  } catch (error) {
    if (httpStatus(error) !== 401) throw error;
  }
  const other: Scheme = first === 'Bot' ? 'Bearer' : 'Bot';
  try {
    const results = await searchV1(request, context, apiKey, `${other} ${apiKey}`);
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
    const warnings = warningsFor(request);
    const withWarnings = warnings.length > 0 ? { warnings } : {};
    if (version !== 'v0') {
      const memory = `${context.settings.baseUrl ?? DEFAULT_BASE_URL}\n${pinnedAuthorization(apiKey, context) ?? apiKey}`;
      const refused = version === 'v1' ? undefined : v1Refusals.get(memory);
      if (refused !== undefined) return answerFromV0(request, context, apiKey, withWarnings, refused);
      try {
        const results = await searchV1Either(request, context, apiKey);
        return { results: firstResults(results, request.count), ...withWarnings };
      } catch (error) {
        const status = v1Status(error);
        if (version === 'v1' || status === undefined) throw error;
        v1Refusals.set(memory, status);
        return answerFromV0(request, context, apiKey, withWarnings, status);
      }
    }
    return answerFromV0(request, context, apiKey, withWarnings);
  },
};

/** v0's answer; after v1 refused the key with `refusedWith`, a v0 failure says so. */
async function answerFromV0(
  request: SearchRequest,
  context: ProviderContext,
  apiKey: string,
  withWarnings: { warnings?: string[] },
  refusedWith?: number,
): Promise<ProviderResponse<SearchResult>> {
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
  const { results, balance } = answer;
  return {
    results: firstResults(results, request.count),
    ...withWarnings,
    ...(balance === undefined ? {} : { quota: { note: `Kagi balance $${balance.toFixed(2)}` } }),
  };
}
