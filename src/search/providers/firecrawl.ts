import { providerError } from '../../services/provider-errors.ts';
import {
  hasApiKey,
  jsonObject,
  providerUrl,
  requestProviderJson,
  requireApiKey,
} from '../../services/provider-http.ts';
import { asRecord, optionalNumber, optionalText, records } from '../../services/provider-text.ts';
import { firstResults, googleTbs, unsupported, webResult } from '../provider-results.ts';
import type { SearchProvider } from '../types.ts';

const ID = 'firecrawl';
const KEY_ENV = ['FIRECRAWL_API_KEY'] as const;
const DEFAULT_BASE_URL = 'https://api.firecrawl.dev';

/** v2 puts web hits in `data.web`; v1 (still served) had a flat `data` array. Both are read. */
function webHits(body: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(body.data) ? records(body.data) : records(asRecord(body.data)?.web);
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
  isConfigured: hasApiKey,

  async search(request, context) {
    const apiKey = requireApiKey(ID, context.settings, KEY_ENV);
    const url = providerUrl(ID, context.settings.baseUrl ?? DEFAULT_BASE_URL, '/v2/search');
    const reply = await requestProviderJson(context, {
      provider: ID,
      url,
      headers: { authorization: `Bearer ${apiKey}` },
      json: {
        query: request.query,
        limit: request.count,
        sources: ['web'],
        ...(request.freshness === undefined ? {} : { tbs: googleTbs(request.freshness) }),
      },
      secrets: [apiKey],
    });
    const body = jsonObject(ID, reply.body);
    if (body.success === false) {
      const message = optionalText(body.error);
      throw providerError(ID, 'other', { status: reply.status, message, body }, { url: url.href });
    }
    const results = webHits(body).map((item) => {
      const metadata = asRecord(item.metadata);
      return webResult({
        title: item.title ?? metadata?.title,
        url: item.url,
        snippet: item.description ?? metadata?.description,
        publishedAt: metadata?.publishedTime ?? metadata?.['article:published_time'],
      });
    });
    const warnings = (['region', 'language'] as const)
      .filter((name) => request[name] !== undefined)
      .map((name) => unsupported(ID, name, request[name]));
    const credits = optionalNumber(body.creditsUsed);
    return {
      results: firstResults(results, request.count),
      ...(warnings.length > 0 ? { warnings } : {}),
      ...(credits === undefined ? {} : { quota: { note: `${credits} credits used` } }),
    };
  },
};
