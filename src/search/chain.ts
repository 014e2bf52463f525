import type { ProvidersConfig, SearchConfig } from '../config/search-schema.ts';
import type { NetworkPolicy } from '../net/network-policy.ts';
import type { HttpFetch } from '../net/types.ts';
import type { Store } from '../store/store.ts';
import { chainCandidates } from './chain-candidates.ts';
import { chainOrder } from './chain-order.ts';
import { type ProviderStatus, providerStatus } from './chain-status.ts';
import { createProviderRegistry } from './provider-registry.ts';
import type { ProviderState } from './provider-state.ts';
import { createProviderStates } from './provider-states.ts';
import { type ChainResult, runChain } from './run-chain.ts';
import { imageSearchKind, type SearchKind, webSearchKind } from './search-kind.ts';
import type {
  ImageResult,
  ImageSearchRequest,
  SearchProvider,
  SearchRequest,
  SearchResult,
} from './types.ts';

export { shouldFallback } from './chain-errors.ts';
export { AUTO_ORDER, KEYLESS_TAIL } from './chain-order.ts';
export type { ProviderStatus } from './chain-status.ts';
export type { ChainResult } from './run-chain.ts';

/** A shared pacing turn outlives its request's deadline by this much before the store drops it (a crash). */
const LEASE_MARGIN_MS = 5_000;

export interface SearchChainSettings {
  search: SearchConfig;
  providers: ProvidersConfig;
  env: NodeJS.ProcessEnv;
  httpFetch: HttpFetch;
  /** The deployment's network policy: image results on ranges it opens are kept. Absent: none is open. */
  networkPolicy?: NetworkPolicy;
  /** Providers from the library caller; they replace built-ins of the same id. */
  extraProviders?: readonly SearchProvider[];
  /** Folder that relative `providers.custom[].module` paths start from (the config file's). Default: cwd. */
  baseDir?: string;
  /**
   * The state store (opened on first use): provider health — cooldowns, last error, last quota — is kept there so
   * every process sharing it sees it (src/search/health-store.ts), and so is pacing with a SQLite or Redis store
   * (src/search/shared-pacer.ts). Without one, health and pacing stay in this process.
   */
  store?: () => Promise<Store>;
}

export interface ChainCallOptions {
  signal?: AbortSignal | undefined;
  /** Ask only this provider (no fallback, cooldown ignored). */
  provider?: string | undefined;
}

export interface SearchChain {
  search(request: SearchRequest, options?: ChainCallOptions): Promise<ChainResult<SearchResult>>;
  searchImages(request: ImageSearchRequest, options?: ChainCallOptions): Promise<ChainResult<ImageResult>>;
  /** Every known provider; `quota: true` asks those with a quota endpoint (configured ones only). */
  status(options?: { quota?: boolean; signal?: AbortSignal }): Promise<ProviderStatus[]>;
  /** The chain's provider ids in order (what `search.chain: auto` resolved to), for cache keys. */
  resolvedChain(): Promise<string[]>;
}

/**
 * The search chain, put together: the registry (built-ins, the caller's and custom modules), every provider's
 * state with its health shared through the store, the order, then per call the candidates and the run (fan-out,
 * fallback). Throws CONFIG_INVALID for unknown ids in `search.chain` or `providers`.
 */
export function createSearchChain(settings: SearchChainSettings): SearchChain {
  const registry = createProviderRegistry({
    chain: settings.search.chain,
    providers: settings.providers,
    extraProviders: settings.extraProviders,
    baseDir: settings.baseDir ?? process.cwd(),
  });
  const states = createProviderStates({
    registry,
    env: settings.env,
    store: settings.store,
    // A turn ends with its request, which runAttempt gives up on at search.timeoutMs after the turn came.
    leaseMs: settings.search.timeoutMs + LEASE_MARGIN_MS,
  });

  let cachedIds: string[] | undefined;
  /** The chain's ids in order; fixed once the providers are known (config and environment are read once). */
  function chainIds(all: ReadonlyMap<string, ProviderState>): string[] {
    cachedIds ??= chainOrder(settings.search.chain, all, registry.customIds);
    return cachedIds;
  }

  async function run<REQUEST extends { query: string; count: number }, RESULT>(
    kind: SearchKind<REQUEST, RESULT>,
    request: REQUEST,
    options: ChainCallOptions,
  ): Promise<ChainResult<RESULT>> {
    const all = await states.get();
    const forced = options.provider;
    const ids = forced === undefined ? chainIds(all) : [forced];
    const { usable, attempts } = chainCandidates(kind, request, all, ids, forced);
    const context = {
      httpFetch: settings.httpFetch,
      timeoutMs: settings.search.timeoutMs,
      healthSync: states.healthSync,
      signal: options.signal ?? new AbortController().signal,
      attempts,
    };
    const fanout = forced === undefined && settings.search.mode === 'fanout' ? settings.search.fanout : 1;
    return runChain(kind, request, usable, context, { ids, forced, fanout });
  }

  const images = imageSearchKind(settings.networkPolicy);
  return {
    resolvedChain: async () => [...chainIds(await states.get())],
    search: (request, options = {}) => run(webSearchKind, request, options),
    searchImages: (request, options = {}) => run(images, request, options),
    async status(options = {}) {
      const all = await states.get('fresh');
      const ids = chainIds(all);
      const context = {
        webChain: ids.filter((id) => all.get(id)?.provider.search),
        imageChain: ids.filter((id) => all.get(id)?.provider.searchImages),
        quota: options.quota === true,
        signal: options.signal ?? new AbortController().signal,
        httpFetch: settings.httpFetch,
        timeoutMs: settings.search.timeoutMs,
      };
      return Promise.all([...all.values()].map((state) => providerStatus(state, context)));
    },
  };
}
