import { PeriscopeError } from '../../errors.ts';
import type { ProviderErrorRules } from '../../services/provider-errors.ts';
import {
  hasApiKey,
  jsonObject,
  providerUrl,
  requestProviderJson,
  requireApiKey,
} from '../../services/provider-http.ts';
import { asRecord, records, stringSetting } from '../../services/provider-text.ts';
import { type ProviderParameters, safeSearchField } from '../parameter-table.ts';
import { firstResults, webResult } from '../provider-results.ts';
import { oneSite } from '../site-filter.ts';
import type { Freshness, ProviderSettings, SearchProvider } from '../types.ts';

const ID = 'google-cse';
const KEY_ENV = ['GOOGLE_CSE_API_KEY'] as const;
const CX_ENV = 'GOOGLE_CSE_ID';
const DEFAULT_BASE_URL = 'https://customsearch.googleapis.com';
const MAX_COUNT = 10;
const DATE_RESTRICT: Record<Freshness, string> = { day: 'd1', week: 'w1', month: 'm1', year: 'y1' };

/**
 * `topic`, `after`/`before`, `safeSearch` and `offset` as the Custom Search JSON API takes them (`cse.list`: `safe`,
 * `start`, `sort`): it has no news vertical, so it is skipped for news; a date range is the documented restriction
 * `sort=date:r:YYYYMMDD:YYYYMMDD` (Programmable Search "Restrict to Range"), so undated hits are the engine's own
 * and kept; `safe=active` is its one filtering level; `start` is the 1-based index of the first result, and no
 * result past the 100th is served.
 */
const PARAMETERS = {
  doc: 'https://developers.google.com/custom-search/v1/reference/rest/v1/cse/list',
  news: { none: 'the Custom Search JSON API has no news vertical' },
  dates: {
    native: '`sort=date:r:YYYYMMDD:YYYYMMDD`',
    doc: 'https://developers.google.com/custom-search/docs/structured_search#restrict_to_range',
  },
  safeSearch: { parameter: 'safe', values: { off: 'off', moderate: 'active', strict: 'active' } },
  offset: { how: '`start` (1-based, results up to the 100th)', exact: true },
} as const satisfies ProviderParameters;
/** The ends of a range asked open on one side: the start of the epoch, the end of the day today (UTC). */
const EARLIEST_DAY = '1970-01-01';

/** `sort=date:r:20250301:20250331` for `after`/`before` (an open end filled), or nothing without a range. */
function dateRange(request: { after?: string | undefined; before?: string | undefined }): string | undefined {
  if (request.after === undefined && request.before === undefined) return undefined;
  const day = (text: string) => text.replaceAll('-', '');
  const before = request.before ?? new Date().toISOString().slice(0, 10);
  return `date:r:${day(request.after ?? EARLIEST_DAY)}:${day(before)}`;
}
const MAX_RESULT_INDEX = 100;

/**
 * Google's standard error `{error:{code, message, errors:[{reason}], status}}`: `keyInvalid` (400) and
 * `accessNotConfigured` / `forbidden` (403) are key problems; `dailyLimitExceeded`, `quotaExceeded` and
 * `RESOURCE_EXHAUSTED` the daily quota; `rateLimitExceeded` / `userRateLimitExceeded` the per-minute rate (unless
 * the message names the daily limit).
 */
const ERRORS: ProviderErrorRules = {
  classify({ status, code, message }) {
    if (code === undefined) return undefined;
    const daily = message !== undefined && /per day|daily/i.test(message);
    if (/^(?:rateLimitExceeded|userRateLimitExceeded)$/.test(code)) return daily ? 'quota' : 'rate-limited';
    if (/dailyLimit|quotaExceeded|RESOURCE_EXHAUSTED|billingNotEnabled/i.test(code)) return 'quota';
    if (/keyInvalid|keyExpired|API_KEY_INVALID|accessNotConfigured|forbidden|PERMISSION_DENIED/i.test(code)) {
      return 'invalid-key';
    }
    return status === 400 ? 'other' : undefined;
  },
};

/** The engine id: `providers.google-cse.extras.cx`, which the config layer fills from GOOGLE_CSE_ID when unset. */
function engineId(settings: ProviderSettings): string | undefined {
  return stringSetting(settings, 'cx');
}

/**
 * Google Custom Search JSON API: `GET /customsearch/v1?key=&cx=&q=&num=` (at most 10 per request).
 *
 * **Closing:** the API is closed to new customers and stops serving on 2027-01-01 (Google points to Vertex AI
 * Search). It stays here for existing keys. Needs the key (GOOGLE_CSE_API_KEY) and the engine id
 * (`providers.google-cse.extras.cx` or GOOGLE_CSE_ID). The key travels in the query string (masked in every message).
 * `pagemap.metatags[].article:published_time` gives `publishedAt` where the page declares one.
 *
 * minIntervalMs 1 000: 100 free queries a day, then $5 per 1 000 up to 10 000 a day
 * (developers.google.com/custom-search/v1/overview); no per-second limit is published.
 */
export const googleCseSearchProvider: SearchProvider = {
  id: ID,
  keyEnv: KEY_ENV,
  minIntervalMs: 1_000,
  note: 'closed to new customers; existing keys work until 2027-01-01 (Google points to Vertex AI Search)',
  siteFilter: 'request',
  parameters: PARAMETERS,
  isConfigured: (settings) => hasApiKey(settings) && engineId(settings) !== undefined,

  async search(request, context) {
    const apiKey = requireApiKey(ID, context.settings, KEY_ENV);
    const cx = engineId(context.settings);
    if (cx === undefined) {
      throw new PeriscopeError(
        'NOT_CONFIGURED',
        `${ID} has no engine id (set ${CX_ENV}, or providers.${ID}.extras.cx)`,
        {
          details: { provider: ID, reason: 'missing-cx' },
        },
      );
    }
    // One site at most: `siteSearch` with `siteSearchFilter` i (only it) or e (not it).
    const site = oneSite(ID, request.domains, true);
    const num = Math.min(request.count, MAX_COUNT);
    const start = request.offset ? Math.min(request.offset + 1, MAX_RESULT_INDEX - num + 1) : undefined;
    const url = providerUrl(ID, context.settings.baseUrl ?? DEFAULT_BASE_URL, '/customsearch/v1', {
      key: apiKey,
      cx,
      q: request.query,
      num,
      start,
      ...safeSearchField(PARAMETERS.safeSearch, request.safeSearch),
      dateRestrict: request.freshness === undefined ? undefined : DATE_RESTRICT[request.freshness],
      sort: dateRange(request),
      gl: request.region?.toLowerCase(),
      lr: request.language === undefined ? undefined : `lang_${request.language.toLowerCase()}`,
      siteSearch: site.site?.domain,
      siteSearchFilter: site.site === undefined ? undefined : site.site.exclude ? 'e' : 'i',
    });
    const reply = await requestProviderJson(context, {
      provider: ID,
      url,
      secrets: [apiKey],
      errors: ERRORS,
    });
    const results = records(jsonObject(ID, reply.body).items).map((item) => {
      const metatags = records(asRecord(item.pagemap)?.metatags);
      const published = metatags.map((tags) => tags['article:published_time']).find(Boolean);
      return webResult({ title: item.title, url: item.link, snippet: item.snippet, publishedAt: published });
    });
    const warnings = [
      ...(request.count > MAX_COUNT ? [`google-cse returns at most ${MAX_COUNT} results per request`] : []),
      ...(start !== undefined && start !== (request.offset ?? 0) + 1
        ? [
            `google-cse serves no result past the ${MAX_RESULT_INDEX}th: these start at offset ${start - 1}, not ${request.offset}`,
          ]
        : []),
      ...site.warnings,
    ];
    return { results: firstResults(results, request.count), ...(warnings.length > 0 ? { warnings } : {}) };
  },
};
