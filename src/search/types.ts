import type { ProviderContext, ProviderSettings, QuotaInfo } from '../services/types.ts';
import type { ProviderParameters, SafeSearch } from './parameter-table.ts';

export type { ProviderContext, ProviderSettings, QuotaInfo } from '../services/types.ts';
export type { ProviderParameters, SafeSearch } from './parameter-table.ts';

export type Freshness = 'day' | 'week' | 'month' | 'year';

/** `general` (the default) or `news`: news articles, from the provider's news vertical. */
export type SearchTopic = 'general' | 'news';

/**
 * The domains a search's results may come from (the egress domain policy: the deployment's, the API key's and the
 * call's, intersected), as patterns: `example.com` (with subdomains), `*.example.com` (subdomains only),
 * `=www.example.com` (that host only), lower-case punycode. The chain keeps only results that pass; a provider that
 * can filter by site (`SearchProvider.siteFilter`) is asked to, so fewer results are lost.
 */
export interface SearchDomains {
  /** Results only from these; empty: from any domain not blocked. */
  allow: readonly string[];
  /** Never from these. */
  block: readonly string[];
}

/** One web search, already validated and normalised by the tool. */
export interface SearchRequest {
  query: string;
  /** 1–20. */
  count: number;
  freshness?: Freshness | undefined;
  /** Country / market code, e.g. `us`, `de`. */
  region?: string | undefined;
  /** Language code, e.g. `en`, `de`. */
  language?: string | undefined;
  /** The egress domain rules; absent: none. */
  domains?: SearchDomains | undefined;
  /** `news`: the provider's news vertical (a provider without one is skipped). Absent: general. */
  topic?: SearchTopic | undefined;
  /** Published on or after this day (`YYYY-MM-DD`, UTC). */
  after?: string | undefined;
  /** Published on or before this day (`YYYY-MM-DD`, UTC). */
  before?: string | undefined;
  /**
   * With `after`/`before`: keep results that carry no date where the provider could not filter by date itself
   * (the chain drops them otherwise).
   */
  keepUndated?: boolean | undefined;
  /** The adult-content filter; absent: the provider's own default. */
  safeSearch?: SafeSearch | undefined;
  /** Results to skip (0: the first page): `offset: 5, count: 5` asks for results 6–10. */
  offset?: number | undefined;
}

export interface ImageSearchRequest {
  query: string;
  count: number;
  size?: 'small' | 'medium' | 'large' | 'wallpaper' | undefined;
  type?: 'photo' | 'clipart' | 'gif' | 'transparent' | 'line' | undefined;
  layout?: 'square' | 'tall' | 'wide' | undefined;
  /** The adult-content filter; absent: the provider's own default. */
  safeSearch?: SafeSearch | undefined;
  /** The egress domain rules (kept by the page an image is on); absent: none. */
  domains?: SearchDomains | undefined;
}

/** A web result as the provider gave it; the chain normalises (tags, entities, whitespace, dates, URLs). */
export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
  /** ISO 8601 when the provider gives a date (the chain normalises other forms). */
  publishedAt?: string | undefined;
  /** The publication (`TechCrunch`, `Reuters`), where a news result names it. */
  source?: string | undefined;
}

export interface ImageResult {
  title: string;
  imageUrl: string;
  thumbnailUrl?: string | undefined;
  /** The page the image is on. */
  sourceUrl?: string | undefined;
  width?: number | undefined;
  height?: number | undefined;
}

export interface ProviderResponse<T> {
  results: T[];
  /** Parameters the provider ignored, e.g. `brave does not support language`. */
  warnings?: string[] | undefined;
  /** Quota learned from this response (rate-limit / credit headers or body fields). */
  quota?: QuotaInfo | undefined;
}

/**
 * The longest query a provider takes. Characters are Unicode code points (not bytes); words are runs of
 * non-whitespace.
 */
export interface QueryLimit {
  maxCharacters: number;
  maxWords?: number | undefined;
}

/**
 * One search engine. One file each under `providers/`, implementing what it supports. Throws
 * PeriscopeError: NOT_CONFIGURED (no key), RATE_LIMITED (with retryAfterMs), BLOCKED_BY_SITE,
 * HTTP_STATUS, TIMEOUT, NETWORK, INVALID_INPUT (the query itself was refused: no fallback).
 */
export interface SearchProvider {
  readonly id: string;
  /** Environment variables that supply the key, in order (e.g. `['BRAVE_API_KEY']`); empty for keyless. */
  readonly keyEnv: readonly string[];
  /** Default minimum spacing between requests, respecting the free tier (e.g. 1 100 ms for 1 req/s). */
  readonly minIntervalMs: number;
  /** Requests in flight at once (1 = serialised, as DuckDuckGo needs); unlimited when absent. */
  readonly maxConcurrent?: number;
  /** One line for `periscope status` and docs/providers.md, e.g. that the API is closing to new customers. */
  readonly note?: string;
  /**
   * The longest query the API accepts, per kind (Brave: web 400 characters and 50 words). The chain checks it before
   * the provider's turn: a longer query skips the provider (INVALID_INPUT, `query-too-long`: no request, no pacing
   * turn, no mark on its health) and the next one is asked. No limit for a kind left out.
   */
  readonly queryLimits?: { readonly web?: QueryLimit; readonly images?: QueryLimit };
  /**
   * How it filters results by domain (`request.domains`): `request`: it sends them in its own request (Tavily
   * `include_domains`, Exa `includeDomains`, a `site` parameter); `query`: its engine documents `site:` and
   * `-site:` operators, which the chain writes into the query. Absent: it cannot; the chain's filter alone keeps
   * results to the allowed domains, and `warnings` says when that dropped some.
   */
  readonly siteFilter?: 'request' | 'query';
  /**
   * How it takes `topic`, `after`/`before`, `safeSearch` and `offset` (src/search/parameter-table.ts): one table in
   * its file, which its request is built from and which the chain, `periscope status` and docs/providers.md read.
   * Absent: none of them natively (news skipped, dates post-filtered, the others warned about).
   */
  readonly parameters?: ProviderParameters;
  /** Whether the settings are enough to call it (a key, or a baseUrl for SearXNG). */
  isConfigured(settings: ProviderSettings): boolean;
  search?(request: SearchRequest, context: ProviderContext): Promise<ProviderResponse<SearchResult>>;
  searchImages?(
    request: ImageSearchRequest,
    context: ProviderContext,
  ): Promise<ProviderResponse<ImageResult>>;
  /** Live quota where the provider has an endpoint for it. */
  quota?(context: ProviderContext): Promise<QuotaInfo>;
}
