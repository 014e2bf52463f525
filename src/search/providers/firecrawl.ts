import { providerError } from '../../services/provider-errors.ts';
import {
  hasApiKey,
  jsonObject,
  providerUrl,
  requestProviderJson,
  requireApiKey,
} from '../../services/provider-http.ts';
import { asRecord, optionalNumber, optionalText, records } from '../../services/provider-text.ts';
import { countryName } from '../country-name.ts';
import type { ProviderParameters } from '../parameter-table.ts';
import { firstResults, googleDateTbs, unsupported, webResult } from '../provider-results.ts';
import type { SearchProvider } from '../types.ts';

const ID = 'firecrawl';
const KEY_ENV = ['FIRECRAWL_API_KEY'] as const;
const DEFAULT_BASE_URL = 'https://api.firecrawl.dev';

/** Firecrawl's v2 search reference, which the entries below and `country`/`location` follow. */
const DOC = 'https://docs.firecrawl.dev/api-reference/endpoint/search';

/**
 * `topic`, `after`/`before`, `safeSearch` and `offset` as Firecrawl's v2 search takes them (DOC: `sources`, `tbs`;
 * news hits come in `data.news`): news is `sources: ["news"]`; a date range is `tbs=cdr:1,cd_min:MM/DD/YYYY,…`,
 * zero-padded as DOC writes it. No safe-search or paging parameter is documented.
 */
const PARAMETERS = {
  doc: DOC,
  news: { how: '`sources: ["news"]` (`data.news`)' },
  dates: { native: '`tbs=cdr:1,cd_min:MM/DD/YYYY,cd_max:MM/DD/YYYY`' },
  safeSearch: { none: 'no documented safe-search parameter' },
  offset: { none: 'no paging parameter' },
} as const satisfies ProviderParameters;

/** `region` as DOC asks it: `country`, an ISO code (`DE`), and `location`, a place name (`Germany`). */
function regionFields(region: string | undefined): Record<string, string> {
  if (region === undefined) return {};
  const location = countryName(region);
  return { country: region.toUpperCase(), ...(location === undefined ? {} : { location }) };
}

/** v2 puts web hits in `data.web`; v1 (still served) had a flat `data` array. Both are read. */
function webHits(body: Record<string, unknown>, source: 'web' | 'news'): Record<string, unknown>[] {
  return Array.isArray(body.data) ? records(body.data) : records(asRecord(body.data)?.[source]);
}

/**
 * Firecrawl search (v2): `POST /v2/search` with `Authorization: Bearer fc-…`, `{query, limit, sources: ["web"]}`
 * and freshness as `tbs`. No page scraping is asked for, so a search costs the base credits only; `creditsUsed`
 * becomes `quota.note`. Errors are `{success:false, error}`: 401 invalid key, 402 credits used up, 429.
 *
 * minIntervalMs 12 000: the Free plan allows 5 `/search` requests per minute (docs.firecrawl.dev/rate-limits;
 * Hobby 50, Standard 250), so parallel calls queue; raise the pace in config on a paid plan.
 */
export const firecrawlSearchProvider: SearchProvider = {
  id: ID,
  keyEnv: KEY_ENV,
  minIntervalMs: 12_000,
  parameters: PARAMETERS,
  isConfigured: hasApiKey,

  async search(request, context) {
    const apiKey = requireApiKey(ID, context.settings, KEY_ENV);
    const url = providerUrl(ID, context.settings.baseUrl ?? DEFAULT_BASE_URL, '/v2/search');
    const source = request.topic === 'news' ? 'news' : 'web';
    const tbs = googleDateTbs(request, { padded: true });
    const reply = await requestProviderJson(context, {
      provider: ID,
      url,
      headers: { authorization: `Bearer ${apiKey}` },
      json: {
        query: request.query,
        limit: request.count,
        sources: [source],
        ...(tbs === undefined ? {} : { tbs }),
        ...regionFields(request.region),
      },
      secrets: [apiKey],
    });
    const body = jsonObject(ID, reply.body);
    if (body.success === false) {
      const message = optionalText(body.error);
      throw providerError(ID, 'other', { status: reply.status, message, body }, { url: url.href });
    }
    const results = webHits(body, source).map((item) => {
      const metadata = asRecord(item.metadata);
      return webResult({
        title: item.title ?? metadata?.title,
        url: item.url,
        // News hits carry `snippet` and `date` where web hits carry `description` and page metadata.
        snippet: item.description ?? item.snippet ?? metadata?.description,
        publishedAt: item.date ?? metadata?.publishedTime ?? metadata?.['article:published_time'],
        source: source === 'news' ? item.source : undefined,
      });
    });
    const warnings = request.language === undefined ? [] : [unsupported(ID, 'language', request.language)];
    const credits = optionalNumber(body.creditsUsed);
    return {
      results: firstResults(results, request.count),
      ...(warnings.length > 0 ? { warnings } : {}),
      ...(credits === undefined ? {} : { quota: { note: `${credits} credits used` } }),
    };
  },
};
