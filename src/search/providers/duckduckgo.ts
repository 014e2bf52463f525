// DuckDuckGo: keyless, scraped. Web search reads the HTML endpoint (POST html.duckduckgo.com/html/) and falls back
// to the lite endpoint (POST lite.duckduckgo.com/lite/); image search takes a vqd token from duckduckgo.com and asks
// i.js. A block — HTTP 202, 403/418, or the anti-bot page even when served with 200 — is BLOCKED_BY_SITE, never
// "no results". Formats: ../shared/fixtures/providers/FORMATS.md, "DuckDuckGo".
import {
  errorFromProvider,
  isPeriscopeError,
  messageWithoutProvider,
  PeriscopeError,
  type PeriscopeErrorDetails,
  toPeriscopeError,
} from '../../errors.ts';
import type { HttpRequest, HttpResponse } from '../../net/types.ts';
import { redactUrl } from '../../net/url-policy.ts';
import { providerError, throwUnexpected } from '../../services/provider-errors.ts';
import { retryAfterFromHeaders } from '../../services/provider-headers.ts';
import { type ProviderParameters, safeSearchField } from '../parameter-table.ts';
import type {
  ImageResult,
  ImageSearchRequest,
  ProviderContext,
  ProviderResponse,
  ProviderSettings,
  SearchProvider,
  SearchRequest,
  SearchResult,
} from '../types.ts';
import {
  blockMarkerIn,
  extractVqd,
  type PageReading,
  readHtmlPage,
  readImagesJson,
  readLitePage,
  readNewsJson,
} from './duckduckgo-pages.ts';

const ID = 'duckduckgo';
const HTML_BASE_URL = 'https://html.duckduckgo.com';
const LITE_BASE_URL = 'https://lite.duckduckgo.com';
const IMAGES_BASE_URL = 'https://duckduckgo.com';
const DECODER = new TextDecoder('utf-8');

/** Statuses DuckDuckGo uses to turn automated queries away (duckduckgo_search v8.1.1 treats them so). */
const BLOCK_STATUSES = new Set([202, 403, 418]);
const FRESHNESS = { day: 'd', week: 'w', month: 'm', year: 'y' } as const;
/** Region → DuckDuckGo `kl` (`us-en`, `de-de`, …) where the language is not the region code itself. */
const REGION_LANGUAGE: Record<string, string> = Object.fromEntries(
  'us:en gb:en uk:en au:en ca:en ie:en in:en nz:en za:en sg:en ph:en my:en at:de ch:de br:pt mx:es ar:es cl:es co:es pe:es cn:zh tw:tzh hk:tzh jp:jp kr:kr se:sv dk:da be:nl gr:el il:he ua:uk vn:vi cz:cs'
    .split(' ')
    .map((pair) => pair.split(':') as [string, string]),
);

/**
 * `topic`, `after`/`before`, `safeSearch` and `offset` as DuckDuckGo takes them. News is `news.js` with a vqd token,
 * as images are (ddgs `duckduckgo_news.py`: `l, o=json, noamp=1, q, vqd, p, df, s`; the answer's shape is recorded
 * in duck-duck-scrape's tests). A range is `df=YYYY-MM-DD..YYYY-MM-DD` (duckduckgo_search 0.x sent it so to the
 * HTML endpoint; the page's own form lists only d/w/m/y). Safe search is `kp` 1/-1/-2 on the HTML and lite forms
 * and `p` with the same values on news.js (duckduckgo.com/params, via duckduckgo_search's docstring); `i.js` takes
 * `p` 1 (on) or -1 (off) (FORMATS.md). The offset is `s` (results skipped) with `dc` one past it, as the recorded
 * page's next-page form sends them (`s=10`, `dc=11`).
 */
const PARAMETERS = {
  doc: 'https://duckduckgo.com/duckduckgo-help-pages/settings/params',
  news: { how: '`GET duckduckgo.com/news.js` (vqd token)' },
  dates: { native: '`df=YYYY-MM-DD..YYYY-MM-DD`' },
  safeSearch: { parameter: 'kp', values: { off: -2, moderate: -1, strict: 1 } },
  imageSafeSearch: { parameter: 'p', values: { off: -1, moderate: 1, strict: 1 } },
  offset: { how: '`s` (results skipped), `dc`', exact: true },
} as const satisfies ProviderParameters;

/** `after`/`before` as DuckDuckGo's `df` range (`2025-01-01..2025-03-31`), else the freshness letter. */
function dateFilter(request: SearchRequest): string | undefined {
  if (request.after !== undefined || request.before !== undefined) {
    const to = request.before ?? new Date().toISOString().slice(0, 10);
    return `${request.after ?? '1970-01-01'}..${to}`;
  }
  return request.freshness === undefined ? undefined : FRESHNESS[request.freshness];
}

type Surface = 'html' | 'lite';

/**
 * Settings (`providers.duckduckgo`): `baseUrl` is the HTML endpoint's origin and, unless they are given too, the
 * lite and images origins as well (one stand-in serves all three in tests); extras `liteBaseUrl`,
 * `imagesBaseUrl`, and `surface: auto | html | lite` (default auto: HTML, then lite when HTML fails).
 */
interface Endpoints {
  html: string;
  lite: string;
  images: string;
  surfaces: Surface[];
}

function endpoints(settings: ProviderSettings): Endpoints {
  const base = typeof settings.baseUrl === 'string' ? settings.baseUrl.replace(/\/+$/, '') : undefined;
  const origin = (name: string, fallback: string) => {
    const value = settings[name];
    return typeof value === 'string' && value !== '' ? value.replace(/\/+$/, '') : (base ?? fallback);
  };
  const surface = settings.surface;
  return {
    html: base ?? HTML_BASE_URL,
    lite: origin('liteBaseUrl', LITE_BASE_URL),
    images: origin('imagesBaseUrl', IMAGES_BASE_URL),
    surfaces: surface === 'html' ? ['html'] : surface === 'lite' ? ['lite'] : ['html', 'lite'],
  };
}

function regionCode(request: {
  region?: string | undefined;
  language?: string | undefined;
}): string | undefined {
  if (!request.region) return undefined;
  const region = request.region.toLowerCase();
  const language = request.language?.toLowerCase() ?? REGION_LANGUAGE[region] ?? region;
  return `${region}-${language}`;
}

function blocked(message: string, details: PeriscopeErrorDetails<'BLOCKED_BY_SITE'>): PeriscopeError {
  return errorFromProvider(ID, 'BLOCKED_BY_SITE', message, {
    retryable: true,
    details,
  });
}

/**
 * Status check shared by every DuckDuckGo request: blocks first; then 429 is RATE_LIMITED (with Retry-After) and
 * any other error status HTTP_STATUS, in the shape every provider uses.
 */
function checkStatus(response: HttpResponse, method: string): void {
  const url = redactUrl(response.finalUrl);
  if (BLOCK_STATUSES.has(response.status) || (response.status > 200 && response.status < 300)) {
    throw blocked(
      `${method} ${url} answered ${response.status} ${response.statusText}`.trimEnd() +
        ': DuckDuckGo is turning automated queries away from this address',
      { url, status: response.status, reason: 'status' },
    );
  }
  if (response.status < 400) return;
  const kind = response.status === 429 ? 'rate-limited' : 'other';
  throw providerError(
    ID,
    kind,
    { status: response.status, body: undefined },
    {
      url,
      method,
      statusText: response.statusText,
      retryAfterMs: retryAfterFromHeaders(response.headers),
    },
  );
}

/**
 * One request to a DuckDuckGo endpoint (trusted: a built-in or configured origin). Network failures and timeouts
 * name the provider; the chain's own deadline is reported as that deadline, not as a cancellation.
 */
async function ask(context: ProviderContext, url: string, options: HttpRequest): Promise<HttpResponse> {
  try {
    return await context.fetch(url, { ...options, signal: context.signal, trusted: true });
  } catch (error) {
    const reason: unknown = context.signal.reason;
    if (context.signal.aborted && isPeriscopeError(reason) && reason.code !== 'ABORTED') throw reason;
    const failure = toPeriscopeError(error);
    if (failure.details.provider === ID) throw failure;
    throw errorFromProvider(ID, failure.code, failure.message, {
      retryable: failure.retryable,
      retryAfterMs: failure.retryAfterMs,
      details: failure.details,
      cause: failure,
    });
  }
}

async function searchSurface(
  surface: Surface,
  request: SearchRequest,
  context: ProviderContext,
  base: string,
): Promise<SearchResult[]> {
  const form = new URLSearchParams({ q: request.query });
  if (surface === 'html') form.set('b', '');
  // The region field is `kl` on both surfaces: the recorded HTML page's own form names its region <select> `kl`
  // and carries `kl` into its next-page form (ddgs posts `l`, which that form does not have).
  const kl = regionCode(request);
  if (kl) form.set('kl', kl);
  const df = dateFilter(request);
  if (df) form.set('df', df);
  for (const [name, value] of Object.entries(safeSearchField(PARAMETERS.safeSearch, request.safeSearch)))
    form.set(name, String(value));
  if (request.offset) {
    form.set('s', String(request.offset));
    form.set('dc', String(request.offset + 1));
  }
  const url = `${base}/${surface}/`;
  const response = await ask(context, url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'text/html,application/xhtml+xml',
      referer: `${base}/`,
    },
    body: form.toString(),
  });
  checkStatus(response, 'POST');
  const body = DECODER.decode(response.body);
  const reading: PageReading = surface === 'html' ? await readHtmlPage(body) : await readLitePage(body);
  switch (reading.kind) {
    case 'results':
      return reading.results;
    case 'no-results':
      return [];
    case 'blocked':
      throw blocked(`POST ${redactUrl(url)} returned the anti-bot challenge page (${reading.marker})`, {
        url: redactUrl(url),
        status: response.status,
        reason: 'challenge',
        marker: reading.marker,
      });
    case 'unrecognised':
      throw blocked(
        `POST ${redactUrl(url)} returned a page with neither results nor a no-results notice (an unknown challenge, or a changed layout)`,
        { url: redactUrl(url), status: response.status, reason: 'unrecognised-page' },
      );
  }
}

/** Worth trying the other surface: blocks, rate limits, 5xx and network trouble — not a cancelled call. */
function shouldTryNextSurface(error: unknown, signal: AbortSignal): boolean {
  if (signal.aborted || !(error instanceof PeriscopeError)) return false;
  return error.retryable && error.code !== 'TIMEOUT';
}

async function search(
  request: SearchRequest,
  context: ProviderContext,
): Promise<ProviderResponse<SearchResult>> {
  const warnings: string[] = [];
  if (request.language && !request.region) {
    warnings.push(`${ID} does not support language without region (language=${request.language} ignored)`);
  }
  const targets = endpoints(context.settings);
  if (request.topic === 'news') {
    const results = await searchNews(request, context, targets.images);
    return { results: results.slice(0, request.count), warnings };
  }
  const errors: PeriscopeError[] = [];
  for (const surface of targets.surfaces) {
    try {
      const results = await searchSurface(surface, request, context, targets[surface]);
      return { results: results.slice(0, request.count), warnings };
    } catch (error) {
      if (!shouldTryNextSurface(error, context.signal)) throw error;
      errors.push(error as PeriscopeError);
    }
  }
  throw combine(errors);
}

/** One error for every surface that failed: the first one's code, every message. */
function combine(errors: PeriscopeError[]): PeriscopeError {
  const [first] = errors;
  if (!first || errors.length === 1) return first ?? blocked('no surface to ask', {});
  const code = errors.some((error) => error.code === 'BLOCKED_BY_SITE') ? 'BLOCKED_BY_SITE' : first.code;
  const retryAfters = errors.flatMap((error) =>
    error.retryAfterMs === undefined ? [] : [error.retryAfterMs],
  );
  // `duckduckgo: A; then duckduckgo: B`: every surface's error names the provider; the first one's name leads.
  const text = errors
    .map((error, index) => (index === 0 ? messageWithoutProvider(error) : error.message))
    .join('; then ');
  return errorFromProvider(ID, code, text, {
    retryable: true,
    retryAfterMs: retryAfters.length > 0 ? Math.max(...retryAfters) : undefined,
    details: { ...first.details, surfaces: errors.map((error) => error.details) },
    cause: first,
  });
}

/** The vqd token duckduckgo.com's JSON endpoints need, from its page for the query (`ia` images or news). */
async function vqdToken(
  context: ProviderContext,
  base: string,
  query: string,
  vertical: 'images' | 'news',
): Promise<string> {
  const params =
    vertical === 'images' ? { q: query, iax: 'images', ia: 'images' } : { q: query, iar: 'news', ia: 'news' };
  const pageUrl = `${base}/?${new URLSearchParams(params)}`;
  const page = await ask(context, pageUrl, { headers: { accept: 'text/html,application/xhtml+xml' } });
  checkStatus(page, 'GET');
  const pageBody = DECODER.decode(page.body);
  const vqd = extractVqd(pageBody);
  if (vqd) return vqd;
  const marker = await blockMarkerIn(pageBody);
  throw blocked(
    marker
      ? `GET ${redactUrl(pageUrl)} returned the anti-bot challenge page (${marker})`
      : `GET ${redactUrl(pageUrl)} returned no vqd token, which ${vertical === 'images' ? 'image' : 'news'} search needs`,
    { url: redactUrl(pageUrl), status: page.status, reason: marker ? 'challenge' : 'no-vqd' },
  );
}

/**
 * One of duckduckgo.com's JSON endpoints (`i.js`, `news.js`), read with `read`: a block page instead of JSON is
 * BLOCKED_BY_SITE, other malformed JSON or the wrong shape HTTP_STATUS.
 */
async function getJson<T>(
  context: ProviderContext,
  base: string,
  url: string,
  read: (value: unknown) => T[] | undefined,
): Promise<T[]> {
  const response = await ask(context, url, {
    headers: { accept: '*/*', referer: `${base}/`, 'sec-fetch-mode': 'cors' },
  });
  checkStatus(response, 'GET');
  const body = DECODER.decode(response.body);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    const marker = await blockMarkerIn(body);
    if (marker) {
      throw blocked(`GET ${redactUrl(url)} returned the anti-bot challenge page (${marker})`, {
        url: redactUrl(url),
        status: response.status,
        reason: 'challenge',
        marker,
      });
    }
    const contentType = response.headers['content-type'] ?? 'no content type';
    throwUnexpected(
      ID,
      `GET ${redactUrl(url)} returned malformed JSON (HTTP ${response.status}, ${contentType})`,
      { url: redactUrl(url), status: response.status, reason: 'malformed-json' },
      error,
    );
  }
  const results = read(parsed);
  if (!results) {
    throwUnexpected(ID, `GET ${redactUrl(url)} returned JSON without a results array`, {
      url: redactUrl(url),
      status: response.status,
      reason: 'unexpected-shape',
    });
  }
  return results;
}

/** News: the vqd token, then `news.js` (region `l`, safe search `p`, dates `df`, offset `s`). */
async function searchNews(
  request: SearchRequest,
  context: ProviderContext,
  base: string,
): Promise<SearchResult[]> {
  const vqd = await vqdToken(context, base, request.query, 'news');
  const df = dateFilter(request);
  const query = new URLSearchParams({
    l: regionCode(request) ?? 'wt-wt',
    o: 'json',
    noamp: '1',
    q: request.query,
    vqd,
    // news.js takes the web form's `kp` values as `p`.
    ...(request.safeSearch === undefined
      ? {}
      : { p: String(PARAMETERS.safeSearch.values[request.safeSearch]) }),
    ...(df ? { df } : {}),
    ...(request.offset ? { s: String(request.offset) } : {}),
  });
  return getJson(context, base, `${base}/news.js?${query}`, readNewsJson);
}

const IMAGE_SIZE = { small: 'Small', medium: 'Medium', large: 'Large', wallpaper: 'Wallpaper' } as const;
const IMAGE_LAYOUT = { square: 'Square', tall: 'Tall', wide: 'Wide' } as const;

async function searchImages(
  request: ImageSearchRequest,
  context: ProviderContext,
): Promise<ProviderResponse<ImageResult>> {
  const base = endpoints(context.settings).images;
  const vqd = await vqdToken(context, base, request.query, 'images');
  const filters = [
    'time:',
    request.size ? `size:${IMAGE_SIZE[request.size]}` : 'size:',
    'color:',
    request.type ? `type:${request.type}` : 'type:',
    request.layout ? `layout:${IMAGE_LAYOUT[request.layout]}` : 'layout:',
    'license:',
  ].map((filter) => (filter.endsWith(':') ? '' : filter));
  const query = new URLSearchParams({
    o: 'json',
    q: request.query,
    l: 'wt-wt',
    vqd,
    p: String(PARAMETERS.imageSafeSearch.values[request.safeSearch ?? 'moderate']),
    f: filters.join(','),
  });
  const results = await getJson(context, base, `${base}/i.js?${query}`, readImagesJson);
  return { results: results.slice(0, request.count) };
}

export const duckduckgoSearchProvider: SearchProvider = {
  id: ID,
  keyEnv: [],
  // No published limit; blocks follow rate. One request at a time, at least 1.5 s apart.
  minIntervalMs: 1_500,
  maxConcurrent: 1,
  siteFilter: 'query',
  parameters: PARAMETERS,
  isConfigured: () => true,
  search,
  searchImages,
};
