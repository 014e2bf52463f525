import {
  hasApiKey,
  jsonObject,
  providerUrl,
  requestProviderJson,
  requireApiKey,
} from '../../services/provider-http.ts';
import { asRecord, optionalNumber, optionalText, records } from '../../services/provider-text.ts';
import type { ProviderParameters } from '../parameter-table.ts';
import { unsupported, webResult } from '../provider-results.ts';
import { pageFor, pageSlice } from '../result-pages.ts';
import { oneSite } from '../site-filter.ts';
import type { SearchProvider } from '../types.ts';

const ID = 'jina';
const KEY_ENV = ['JINA_API_KEY'] as const;
const DEFAULT_BASE_URL = 'https://s.jina.ai';

/**
 * `topic`, `after`/`before`, `safeSearch` and `offset` as s.jina.ai takes them (FORMATS.md "Jina": the POST body
 * `{q, gl, location, hl, num, page}`): only paging, `page` counting pages of `num`.
 */
const PARAMETERS = {
  doc: 'https://jina.ai/reader/',
  news: { none: 'no news vertical' },
  dates: { none: 'no date filter' },
  safeSearch: { none: 'no safe-search parameter' },
  offset: { how: '`page` (pages of `num`)', exact: true },
} as const satisfies ProviderParameters;
const MAX_PAGE_SIZE = 20;

const SNIPPET_CHARS = 400;

/**
 * Jina search (s.jina.ai): `POST /` with `{q, num, gl, hl}`, `Authorization: Bearer`, `Accept: application/json`
 * and `X-Respond-With: no-content` (titles, URLs and descriptions only: without it every hit carries the whole page
 * read by the reader, slow and billed in tokens). Errors follow civkit (`{code, name, message, readableMessage}`):
 * 401 invalid key, 402 insufficient balance (quota), 429 with Retry-After.
 *
 * minIntervalMs 1 500: s.jina.ai allows 40 requests per minute with a key (jina-ai/meta-prompt v9, FORMATS.md).
 */
export const jinaSearchProvider: SearchProvider = {
  id: ID,
  keyEnv: KEY_ENV,
  minIntervalMs: 1_500,
  siteFilter: 'request',
  parameters: PARAMETERS,
  isConfigured: hasApiKey,

  async search(request, context) {
    const apiKey = requireApiKey(ID, context.settings, KEY_ENV);
    // `X-Site`: one domain to search in (FORMATS.md).
    const site = oneSite(ID, request.domains);
    const page = request.offset ? pageFor(ID, request.offset, request.count, MAX_PAGE_SIZE) : undefined;
    const reply = await requestProviderJson(context, {
      provider: ID,
      url: providerUrl(ID, context.settings.baseUrl ?? DEFAULT_BASE_URL, '/'),
      headers: {
        authorization: `Bearer ${apiKey}`,
        'x-respond-with': 'no-content',
        ...(site.site === undefined ? {} : { 'x-site': site.site.domain }),
      },
      json: {
        q: request.query,
        num: page?.size ?? request.count,
        ...(page === undefined || page.index === 0 ? {} : { page: page.index + 1 }),
        ...(request.region === undefined ? {} : { gl: request.region.toLowerCase() }),
        ...(request.language === undefined ? {} : { hl: request.language.toLowerCase() }),
      },
      secrets: [apiKey],
    });
    const data = records(jsonObject(ID, reply.body).data);
    const results = data.map((item) =>
      webResult({
        title: item.title,
        url: item.url,
        snippet: optionalText(item.description) ?? (optionalText(item.content) ?? '').slice(0, SNIPPET_CHARS),
        publishedAt: item.date ?? item.publishedTime,
      }),
    );
    const tokens = data.reduce((sum, item) => sum + (optionalNumber(asRecord(item.usage)?.tokens) ?? 0), 0);
    const warnings = [
      ...(request.freshness === undefined ? [] : [unsupported(ID, 'freshness', request.freshness)]),
      ...site.warnings,
      ...(page?.warning ? [page.warning] : []),
    ];
    return {
      results: pageSlice(results, page, request.count),
      ...(warnings.length > 0 ? { warnings } : {}),
      ...(tokens > 0 ? { quota: { note: `${tokens} tokens used by this search` } } : {}),
    };
  },
};
