import { providerError } from '../../services/provider-errors.ts';
import { retryAfterFromHeaders } from '../../services/provider-headers.ts';
import { jsonObject, providerUrl, requestProviderJson } from '../../services/provider-http.ts';
import { asRecord, optionalText, records } from '../../services/provider-text.ts';
import type { ProviderParameters } from '../parameter-table.ts';
import { firstResults, unsupported, webResult } from '../provider-results.ts';
import type { SearchProvider } from '../types.ts';

const ID = 'wikipedia';
/** `{language}` is replaced by the wiki's language code (the subdomain). A baseUrl without it is used as is. */
const DEFAULT_BASE_URL = 'https://{language}.wikipedia.org';
const DEFAULT_LANGUAGE = 'en';

/**
 * `topic`, `after`/`before`, `safeSearch` and `offset` for Wikipedia's search (`list=search`): only paging,
 * `sroffset` being the number of results to skip (mediawiki.org API:Search).
 */
const PARAMETERS = {
  doc: 'https://www.mediawiki.org/wiki/API:Search',
  news: { none: 'an encyclopedia, not news' },
  dates: { none: 'articles carry no publication date' },
  safeSearch: { none: 'no adult-content filter' },
  offset: { how: '`sroffset` (results skipped)', exact: true },
} as const satisfies ProviderParameters;

/**
 * The wiki for a language code: `de` → de, `en-US` / `pt_BR` → en / pt (the region is not a wiki),
 * `zh-yue`, `be-tarask`, `simple` → themselves. Anything else is undefined.
 */
export function wikipediaLanguage(language: string): string | undefined {
  const code = language.trim().toLowerCase().replace('_', '-');
  const regional = /^([a-z]{2,3})-[a-z]{2}$/.exec(code);
  if (regional?.[1]) return regional[1];
  return /^[a-z]{2,3}(?:-[a-z]{3,8})?$|^simple$/.test(code) ? code : undefined;
}

function articleUrl(base: string, title: string): string {
  const path = encodeURIComponent(title.replaceAll(' ', '_')).replace(/%2F/g, '/').replace(/%3A/g, ':');
  return `${base.replace(/\/+$/, '')}/wiki/${path}`;
}

/** MediaWiki reports errors inside a 200: `ratelimited` and `maxlag` mean "slow down". */
function mediaWikiError(base: string, body: Record<string, unknown>, headers: Record<string, string>) {
  const error = asRecord(body.error);
  if (!error) return undefined;
  const code = optionalText(error.code);
  const failure = { status: 200, code, message: optionalText(error.info), body };
  const kind = code === 'ratelimited' || code === 'maxlag' ? 'rate-limited' : 'other';
  return providerError(ID, kind, failure, { url: base, retryAfterMs: retryAfterFromHeaders(headers) });
}

/**
 * Wikipedia through the keyless MediaWiki Action API (`list=search`): a dependable last resort for facts. The
 * request's language picks the wiki (`de` → de.wikipedia.org); snippets arrive as HTML with
 * `<span class="searchmatch">` and are stripped. Region and freshness do not apply and become warnings.
 *
 * maxConcurrent 1, minIntervalMs 500: Wikimedia sets no hard limit on reads but asks clients to send requests in
 * series, not in parallel (mediawiki.org API:Etiquette), so one is in flight at a time and starts are kept apart.
 */
export const wikipediaSearchProvider: SearchProvider = {
  id: ID,
  keyEnv: [],
  minIntervalMs: 500,
  maxConcurrent: 1,
  parameters: PARAMETERS,
  isConfigured: () => true,

  async search(request, context) {
    const warnings: string[] = [];
    let language = DEFAULT_LANGUAGE;
    if (request.language !== undefined) {
      const wiki = wikipediaLanguage(request.language);
      if (wiki === undefined)
        warnings.push(`wikipedia has no wiki for language ${request.language}; used en`);
      else language = wiki;
    }
    if (request.region !== undefined) warnings.push(unsupported(ID, 'region', request.region));
    if (request.freshness !== undefined) warnings.push(unsupported(ID, 'freshness', request.freshness));

    const base = (context.settings.baseUrl ?? DEFAULT_BASE_URL).replaceAll('{language}', language);
    const url = providerUrl(ID, base, '/w/api.php', {
      action: 'query',
      list: 'search',
      srsearch: request.query,
      srlimit: request.count,
      sroffset: request.offset || undefined,
      srprop: 'snippet|timestamp',
      format: 'json',
      formatversion: 2,
      utf8: 1,
    });
    const reply = await requestProviderJson(context, { provider: ID, url });
    const body = jsonObject(ID, reply.body);
    const error = mediaWikiError(base, body, reply.headers);
    if (error) throw error;
    const results = records(asRecord(body.query)?.search).map((item) => {
      const title = optionalText(item.title);
      return title === undefined
        ? undefined
        : webResult({ title, url: articleUrl(base, title), snippet: item.snippet });
    });
    return { results: firstResults(results, request.count), ...(warnings.length > 0 ? { warnings } : {}) };
  },
};
