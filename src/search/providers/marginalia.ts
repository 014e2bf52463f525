import type { ProviderErrorRules } from '../../services/provider-errors.ts';
import { jsonObject, providerUrl, requestProviderJson } from '../../services/provider-http.ts';
import { optionalNumber, optionalText, records } from '../../services/provider-text.ts';
import type { QuotaInfo } from '../../services/types.ts';
import type { ProviderParameters } from '../parameter-table.ts';
import { safeSearchField } from '../parameter-table.ts';
import { unsupported, webResult } from '../provider-results.ts';
import { pageFor, pageSlice } from '../result-pages.ts';
import type { SearchProvider } from '../types.ts';

const ID = 'marginalia';
const KEY_ENV = ['MARGINALIA_API_KEY'] as const;
const DEFAULT_BASE_URL = 'https://api2.marginalia-search.com';
/** The shared key Marginalia documents for trying the API; a key of your own has its own limit. */
export const MARGINALIA_PUBLIC_KEY = 'public';
/** What the API sends in `API-Remaining-Daily-Capacity` for a key without a daily limit (Java's Integer.MAX_VALUE). */
const NO_DAILY_LIMIT = 2_147_483_647;

/**
 * Marginalia's API v2 (MarginaliaSearch/MarginaliaSearch, `ApiV2.java`): the key in the `API-Key` header; a missing
 * key or query is 400 and an unknown key 401, both with an empty body; the per-minute limit is 429 `QPM Limit
 * Exceeded` (plain text); the daily one 429 `Daily Limit Exceeded` with `API-Event-Type: OverLimitBlock`; a query
 * that ran out of time 504. The older API answered its rate limit with an empty 503 (the documentation of the
 * `public` key says so), and that is how a 503 is read here: the shared key is busy, not the engine down.
 */
const ERRORS: ProviderErrorRules = {
  classify({ status, text, headers }) {
    if (status === 429 && (headers?.['api-event-type'] === 'OverLimitBlock' || /daily/i.test(text ?? '')))
      return 'quota';
    if (status === 503) return 'rate-limited';
    return undefined;
  },
  hint({ status, text }) {
    const said = text === undefined ? '' : `marginalia said "${text}"; `;
    if (status === 429 || status === 503)
      return `${said}the shared "${MARGINALIA_PUBLIC_KEY}" key's limit is for all its users: set ${KEY_ENV[0]} to a key of your own`;
    return text === undefined ? undefined : `marginalia said "${text}"`;
  },
};

/**
 * The remaining daily capacity the API reports for a key with a daily limit (`API-Remaining-Daily-Capacity`). A
 * metered key past its limit is answered and charged (`API-Event-Type: OverLimitCharge`, capacity 0): that is no
 * used-up quota, so it is said in a note instead.
 */
function quotaOf(headers: Record<string, string>): QuotaInfo | undefined {
  if (headers['api-event-type'] === 'OverLimitCharge')
    return { note: 'over the daily limit, charged per query' };
  const remaining = optionalNumber(headers['api-remaining-daily-capacity']);
  if (remaining === undefined || remaining < 0 || remaining >= NO_DAILY_LIMIT) return undefined;
  return { remaining, note: 'queries left today' };
}

/** Marginalia's API page, which lists the query parameters API v2 understands. */
const DOC = 'https://about.marginalia-search.com/article/api/';

/**
 * `topic`, `after`/`before`, `safeSearch` and `offset` as API v2 takes them (DOC lists `count` 1–100, `timeout`,
 * `dc`, `page`, `nsfw` and `filter`): `nsfw` 0 (off) or 1 (reduce extreme results; the API's default), and `page`,
 * 1-indexed pages of `count`. Only those fields are sent: no language, region or freshness.
 */
const PARAMETERS = {
  doc: DOC,
  news: { none: 'no news vertical' },
  dates: { none: 'results carry no publication date' },
  safeSearch: { parameter: 'nsfw', values: { off: 0, moderate: 1, strict: 1 } },
  offset: { how: '`page` (pages of `count`)', exact: true },
} as const satisfies ProviderParameters;
const MAX_PAGE_SIZE = 20;

/**
 * Marginalia Search, an independent index of the small, text-heavy, non-commercial web, through its API v2: `GET
 * /search?query=…&count=…` with `API-Key`. Keyless by default: the shared key `public`, which Marginalia offers for
 * trying the API and whose rate limit every client of it shares; `MARGINALIA_API_KEY` (free for non-commercial use,
 * by email; paid for commercial use) gives your own limit. Results are licensed CC BY-NC-SA 4.0 (`license` in every
 * answer). Snippets are plain text; titles may carry the page's line breaks (the chain folds them).
 *
 * Parameters: language, region and freshness are not among those its API page lists and become warnings; safe
 * search and offset as PARAMETERS says.
 *
 * maxConcurrent 1, minIntervalMs 10 000: the `public` key allowed 15 requests a minute for all its users together
 * (the operator, searxng/searxng#1673) and "often hits a rate limit" (the API page); one process sends at most six a
 * minute. With a key of your own, lower `providers.marginalia.minIntervalMs`.
 */
export const marginaliaSearchProvider: SearchProvider = {
  id: ID,
  keyEnv: KEY_ENV,
  minIntervalMs: 10_000,
  maxConcurrent: 1,
  note: `results are CC BY-NC-SA 4.0 (non-commercial use); the shared "${MARGINALIA_PUBLIC_KEY}" key's rate limit is for all its users`,
  parameters: PARAMETERS,
  isConfigured: () => true,

  async search(request, context) {
    const warnings: string[] = [];
    const page = request.offset ? pageFor(ID, request.offset, request.count, MAX_PAGE_SIZE) : undefined;
    if (page?.warning) warnings.push(page.warning);
    if (request.language !== undefined) warnings.push(unsupported(ID, 'language', request.language));
    if (request.region !== undefined) warnings.push(unsupported(ID, 'region', request.region));
    if (request.freshness !== undefined) warnings.push(unsupported(ID, 'freshness', request.freshness));

    const apiKey = optionalText(context.settings.apiKey) ?? MARGINALIA_PUBLIC_KEY;
    const url = providerUrl(ID, context.settings.baseUrl ?? DEFAULT_BASE_URL, '/search', {
      query: request.query,
      count: page?.size ?? request.count,
      ...(page === undefined || page.index === 0 ? {} : { page: page.index + 1 }),
      ...safeSearchField(PARAMETERS.safeSearch, request.safeSearch),
    });
    const reply = await requestProviderJson(context, {
      provider: ID,
      url,
      headers: { 'api-key': apiKey },
      secrets: apiKey === MARGINALIA_PUBLIC_KEY ? [] : [apiKey],
      errors: ERRORS,
    });
    const body = jsonObject(ID, reply.body);
    const results = records(body.results).map((item) =>
      webResult({ title: item.title, url: item.url, snippet: item.description }),
    );
    const quota = quotaOf(reply.headers);
    return {
      results: pageSlice(results, page, request.count),
      ...(warnings.length > 0 ? { warnings } : {}),
      ...(quota ? { quota } : {}),
    };
  },
};
