import {
  hasApiKey,
  jsonObject,
  providerUrl,
  requestProviderJson,
  requireApiKey,
} from '../../services/provider-http.ts';
import { asRecord, optionalNumber, optionalText, records } from '../../services/provider-text.ts';
import { type ProviderParameters, safeSearchField } from '../parameter-table.ts';
import { firstResults, freshnessDays, unsupported, webResult } from '../provider-results.ts';
import { domainParams } from '../site-filter.ts';
import type { SearchProvider } from '../types.ts';

const ID = 'exa';
const KEY_ENV = ['EXA_API_KEY'] as const;
const DEFAULT_BASE_URL = 'https://api.exa.ai';
const SNIPPET_CHARS = 400;

/** The snippet: highlights joined, else the summary, else the start of the text (nanobot's order). */
function snippetOf(item: Record<string, unknown>): string {
  const highlights = Array.isArray(item.highlights)
    ? item.highlights.filter((text): text is string => typeof text === 'string')
    : [];
  if (highlights.length > 0) return highlights.join(' … ');
  return optionalText(item.summary) ?? (optionalText(item.text) ?? '').slice(0, SNIPPET_CHARS);
}

/**
 * `topic`, `after`/`before`, `safeSearch` and `offset` as Exa takes them (FORMATS.md "Exa": `category`,
 * `startPublishedDate`/`endPublishedDate` as ISO instants, `moderation`): news is `category: "news"`; `moderation`
 * filters unsafe content, asked for strict only (off and moderate leave Exa's default, unmoderated). There is no
 * paging parameter.
 */
const PARAMETERS = {
  doc: 'https://docs.exa.ai/reference/search',
  news: { how: '`category: "news"`' },
  dates: { native: '`startPublishedDate`, `endPublishedDate`' },
  safeSearch: { parameter: 'moderation', values: { off: undefined, moderate: undefined, strict: true } },
  offset: { none: 'no paging parameter' },
} as const satisfies ProviderParameters;

/** The first and the last instant of the range's days. */
function publishedBounds(after: string | undefined, before: string | undefined) {
  return {
    ...(after === undefined ? {} : { startPublishedDate: `${after}T00:00:00.000Z` }),
    ...(before === undefined ? {} : { endPublishedDate: `${before}T23:59:59.999Z` }),
  };
}

/**
 * Exa: `POST /search` with `x-api-key`, `{query, numResults, type: "auto", contents: {highlights: true}}`. Freshness
 * becomes `startPublishedDate`, region `userLocation`; language is not a parameter (warning). Every response
 * reports its cost (`costDollars.total`), kept as `quota.note`. 401 invalid key, 402 credits used up, 429. The egress
 * domains go in `includeDomains` / `excludeDomains` (FORMATS.md).
 *
 * minIntervalMs 110: `/search` allows 10 requests per second by default (exa.ai/docs/reference/rate-limits).
 */
export const exaSearchProvider: SearchProvider = {
  id: ID,
  keyEnv: KEY_ENV,
  minIntervalMs: 110,
  siteFilter: 'request',
  parameters: PARAMETERS,
  isConfigured: hasApiKey,

  async search(request, context) {
    const apiKey = requireApiKey(ID, context.settings, KEY_ENV);
    const since =
      request.freshness === undefined
        ? undefined
        : new Date(Date.now() - freshnessDays(request.freshness) * 86_400_000).toISOString();
    const reply = await requestProviderJson(context, {
      provider: ID,
      url: providerUrl(ID, context.settings.baseUrl ?? DEFAULT_BASE_URL, '/search'),
      headers: { 'x-api-key': apiKey },
      json: {
        query: request.query,
        numResults: request.count,
        type: 'auto',
        contents: { highlights: true },
        ...(request.topic === 'news' ? { category: 'news' } : {}),
        ...(request.after !== undefined || request.before !== undefined
          ? publishedBounds(request.after, request.before)
          : since === undefined
            ? {}
            : { startPublishedDate: since }),
        ...safeSearchField(PARAMETERS.safeSearch, request.safeSearch),
        ...(request.region === undefined ? {} : { userLocation: request.region.toUpperCase() }),
        ...domainParams(request.domains, { include: 'includeDomains', exclude: 'excludeDomains' }),
      },
      secrets: [apiKey],
    });
    const body = jsonObject(ID, reply.body);
    const results = records(body.results).map((item) =>
      webResult({
        title: item.title,
        url: item.url,
        snippet: snippetOf(item),
        publishedAt: item.publishedDate,
      }),
    );
    const cost = optionalNumber(asRecord(body.costDollars)?.total);
    const warnings = request.language === undefined ? [] : [unsupported(ID, 'language', request.language)];
    return {
      results: firstResults(results, request.count),
      ...(warnings.length > 0 ? { warnings } : {}),
      ...(cost === undefined ? {} : { quota: { note: `this search cost $${cost}` } }),
    };
  },
};
