import type { ProviderEntryConfig, ProvidersConfig, SearchConfig } from '../config/search-schema.ts';
import { PeriscopeError, toPeriscopeError } from '../errors.ts';
import type { NetworkPolicy } from '../net/network-policy.ts';
import type { HttpFetch } from '../net/types.ts';
import type { Store } from '../store/store.ts';
import { failureFacts, runAttempt, type SearchAttempt, withoutProviderPrefix } from './attempt.ts';
import {
  allFailed,
  checkIds,
  forcedFailure,
  kindLabel,
  queryTooLong,
  shouldFallback,
  sortAttempts,
  unknownProvider,
} from './chain-errors.ts';
import { type ProviderStatus, providerStatus } from './chain-status.ts';
import { loadCustomProviders, toSearchProvider } from './custom-providers.ts';
import { createHealthSync } from './health-store.ts';
import { imageResultKey, mergeByRank, webResultKey } from './merge-results.ts';
import { normaliseImageResults, normaliseWebResults } from './normalise-results.ts';
import { createProviderState, type ProviderState } from './provider-state.ts';
import { BUILT_IN_PROVIDERS } from './providers/registry.ts';
import type {
  ImageResult,
  ImageSearchRequest,
  ProviderContext,
  ProviderResponse,
  SearchProvider,
  SearchRequest,
  SearchResult,
} from './types.ts';

export { shouldFallback } from './chain-errors.ts';
export type { ProviderStatus } from './chain-status.ts';

/**
 * `search.chain: auto`: providers whose credentials are present, in this order — search APIs with their own
 * index first, then Google-result APIs, then reader/crawl services, then a self-hosted SearXNG — followed by the
 * keyless `duckduckgo` and `wikipedia`. Custom providers come first. See docs/decisions/0005-search-chain.md.
 */
export const AUTO_ORDER: readonly string[] = [
  'brave',
  'tavily',
  'kagi',
  'exa',
  'serper',
  'serpapi',
  'google-cse',
  'jina',
  'firecrawl',
  'infoquest',
  'searxng',
];
export const KEYLESS_TAIL: readonly string[] = ['duckduckgo', 'wikipedia'];
/** The last provider left is waited for this long when its queue is long (others are skipped after timeoutMs). */
const LAST_PROVIDER_QUEUE_MS = 60_000;

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
   * every process sharing it sees it (src/search/health-store.ts). Without one, health stays in this process.
   */
  store?: () => Promise<Store>;
}

export interface ChainCallOptions {
  signal?: AbortSignal | undefined;
  /** Ask only this provider (no fallback, cooldown ignored). */
  provider?: string | undefined;
}

export interface ChainResult<T> {
  /** The provider that answered; in fan-out, every one that did, joined by `+`. */
  provider: string;
  results: T[];
  attempts: SearchAttempt[];
  warnings: string[];
}

export interface SearchChain {
  search(request: SearchRequest, options?: ChainCallOptions): Promise<ChainResult<SearchResult>>;
  searchImages(request: ImageSearchRequest, options?: ChainCallOptions): Promise<ChainResult<ImageResult>>;
  /** Every known provider; `quota: true` asks those with a quota endpoint (configured ones only). */
  status(options?: { quota?: boolean; signal?: AbortSignal }): Promise<ProviderStatus[]>;
  /** The chain's provider ids in order (what `search.chain: auto` resolved to), for cache keys. */
  resolvedChain(): Promise<string[]>;
}

interface Kind<REQUEST, RESULT> {
  name: 'web' | 'images';
  call(
    provider: SearchProvider,
  ): ((request: REQUEST, context: ProviderContext) => Promise<ProviderResponse<RESULT>>) | undefined;
  /** The tool's form of the results, and warnings about what was dropped (private image URLs). */
  normalise(
    results: RESULT[],
    count: number,
    state: ProviderState,
  ): { results: RESULT[]; warnings: string[] };
  key(result: RESULT): string | undefined;
}

/** Throws CONFIG_INVALID for unknown ids in `search.chain` or `providers`. Custom modules load in the background. */
export function createSearchChain(settings: SearchChainSettings): SearchChain {
  const registry = new Map(BUILT_IN_PROVIDERS);
  const customIds: string[] = [];
  settings.extraProviders?.forEach((value, index) => {
    const provider = toSearchProvider(value, `providers option [${index}]`);
    registry.set(provider.id, provider);
    customIds.push(provider.id);
  });
  const { custom = [], ...rest } = settings.providers;
  const entries = rest as Record<string, ProviderEntryConfig | undefined>;
  for (const entry of custom) customIds.push(entry.id);
  checkIds(settings.search.chain, settings.providers, new Set([...registry.keys(), ...customIds]));

  let loadError: unknown;
  const ready =
    custom.length === 0
      ? Promise.resolve()
      : loadCustomProviders(custom, settings.baseDir ?? process.cwd()).then(
          (providers) => {
            for (const provider of providers) registry.set(provider.id, provider);
          },
          (error: unknown) => {
            loadError = error;
          },
        );

  const healthSync = createHealthSync(settings.store);
  let states: Promise<Map<string, ProviderState>> | undefined;
  /**
   * Every provider's state. The first call reads the stored health; later ones start a background re-read when the
   * last is stale (`refresh`), or, for `status()`, read it now (`fresh`) — one read either way.
   */
  async function getStates(health: 'refresh' | 'fresh' = 'refresh'): Promise<Map<string, ProviderState>> {
    await ready;
    if (loadError !== undefined) throw loadError;
    if (states === undefined) {
      states = createStates();
      return states;
    }
    const all = await states;
    if (health === 'fresh') await healthSync.load(all.values());
    else healthSync.refresh(all.values());
    return all;
  }

  /** Every provider's state, with the health other processes (or earlier runs) left in the store. */
  async function createStates(): Promise<Map<string, ProviderState>> {
    const all = new Map<string, ProviderState>();
    for (const [id, provider] of registry) {
      const builtIn = BUILT_IN_PROVIDERS.get(id) === provider;
      all.set(id, createProviderState(provider, entries[id], settings.env, builtIn));
    }
    await healthSync.load(all.values());
    return all;
  }

  let cachedIds: string[] | undefined;
  /** The chain's ids in order; fixed once the providers are known (config and environment are read once). */
  function chainIds(all: Map<string, ProviderState>): string[] {
    cachedIds ??= computeChainIds(all);
    return cachedIds;
  }

  function computeChainIds(all: Map<string, ProviderState>): string[] {
    const { chain } = settings.search;
    if (chain !== 'auto') return chain.filter((id) => all.get(id)?.enabled !== false);
    const usable = (id: string) => {
      const state = all.get(id);
      return state?.enabled === true && state.configured;
    };
    const builtInKeyed = [...all.keys()].filter(
      (id) => !customIds.includes(id) && !KEYLESS_TAIL.includes(id) && !AUTO_ORDER.includes(id),
    );
    const ordered = [...customIds, ...AUTO_ORDER, ...builtInKeyed, ...KEYLESS_TAIL];
    return [...new Set(ordered)].filter(usable);
  }

  async function run<REQUEST extends { query: string; count: number }, RESULT>(
    kind: Kind<REQUEST, RESULT>,
    request: REQUEST,
    options: ChainCallOptions,
  ): Promise<ChainResult<RESULT>> {
    const all = await getStates();
    const signal = options.signal ?? new AbortController().signal;
    const forced = options.provider;
    const ids = forced === undefined ? chainIds(all) : [forced];
    const candidates: ProviderState[] = [];
    for (const id of ids) {
      const state = all.get(id);
      if (state === undefined) throw unknownProvider(id, all.keys());
      if (kind.call(state.provider) !== undefined) candidates.push(state);
      else if (forced !== undefined) {
        throw new PeriscopeError('INVALID_INPUT', `provider ${id} does not offer ${kindLabel(kind)}`, {
          details: { provider: id },
        });
      }
    }
    if (forced !== undefined && candidates[0] && !candidates[0].enabled) {
      throw new PeriscopeError('NOT_CONFIGURED', `${forced} is switched off (providers.${forced}.enabled)`, {
        details: { provider: forced },
      });
    }
    if (candidates.length === 0) {
      throw new PeriscopeError(
        'NOT_CONFIGURED',
        `no provider in search.chain offers ${kindLabel(kind)} (chain: ${ids.join(', ') || 'empty'})`,
      );
    }
    const attempts: SearchAttempt[] = [];
    const usable: ProviderState[] = [];
    for (const state of candidates) {
      const id = state.provider.id;
      if (!state.configured) {
        attempts.push({
          provider: id,
          outcome: 'skipped',
          code: 'NOT_CONFIGURED',
          message: `no credentials: ${state.credentials}`,
          ms: 0,
          retryable: false,
        });
        continue;
      }
      // Before its turn: a query the provider cannot take costs no request, no pacing turn and no health mark.
      const tooLong = queryTooLong(state.provider, kind.name, request.query);
      if (tooLong !== undefined) {
        attempts.push({
          provider: id,
          outcome: 'skipped',
          code: tooLong.code,
          message: withoutProviderPrefix(id, tooLong.message),
          ms: 0,
          ...failureFacts(tooLong),
        });
        if (forced !== undefined) throw forcedFailure(forced, attempts, tooLong);
        continue;
      }
      const coolingMs = forced === undefined ? state.health.coolingForMs() : 0;
      if (coolingMs > 0) {
        const last = state.health.lastError;
        attempts.push({
          provider: id,
          outcome: 'skipped',
          ...(last ? { code: last.code } : {}),
          message: `cooling down for ${Math.ceil(coolingMs / 1000)} s after: ${withoutProviderPrefix(id, last?.message ?? 'failures')}`,
          ms: 0,
          retryAfterMs: coolingMs,
          // Benched, not refused: it is asked again once the cooldown ends.
          retryable: true,
        });
        continue;
      }
      usable.push(state);
    }
    const fanout = forced === undefined && settings.search.mode === 'fanout' ? settings.search.fanout : 1;
    let next = 0;
    if (fanout > 1 && usable.length > 1) {
      const group = usable.slice(0, fanout);
      next = group.length;
      const settled = await Promise.all(
        group.map((state) => ask(kind, state, request, signal, attempts, group.length === usable.length)),
      );
      const answered = settled.filter((item) => 'results' in item);
      if (answered.length > 0) {
        return {
          provider: answered.map((item) => item.id).join('+'),
          results: mergeByRank(
            answered.map((item) => item.results),
            request.count,
            kind.key,
          ),
          attempts: sortAttempts(attempts, ids),
          warnings: [...new Set(answered.flatMap((item) => item.warnings))],
        };
      }
    }
    let lastFailure: PeriscopeError | undefined;
    for (; next < usable.length; next++) {
      const state = usable[next] as ProviderState;
      const answer = await ask(kind, state, request, signal, attempts, next === usable.length - 1);
      if ('failure' in answer) {
        lastFailure = answer.failure;
        continue;
      }
      return {
        provider: answer.id,
        results: answer.results,
        attempts: sortAttempts(attempts, ids),
        warnings: answer.warnings,
      };
    }
    const sorted = sortAttempts(attempts, ids);
    if (forced !== undefined) throw forcedFailure(forced, sorted, lastFailure);
    throw allFailed(kind, sorted);
  }

  /** Ask one provider; records the attempt. Its failure when the next may be asked; throws otherwise. */
  async function ask<REQUEST extends { query: string; count: number }, RESULT>(
    kind: Kind<REQUEST, RESULT>,
    state: ProviderState,
    request: REQUEST,
    signal: AbortSignal,
    attempts: SearchAttempt[],
    isLast: boolean,
  ): Promise<{ id: string; results: RESULT[]; warnings: string[] } | { failure: PeriscopeError }> {
    const id = state.provider.id;
    const call = kind.call(state.provider) as NonNullable<ReturnType<typeof kind.call>>;
    const started = performance.now();
    const timeoutMs = settings.search.timeoutMs;
    try {
      const { value, queuedMs } = await runAttempt(
        {
          id,
          pacer: state.pacer,
          httpFetch: settings.httpFetch,
          settings: state.settings,
          signal,
          timeoutMs,
          maxQueueMs: isLast ? Math.max(timeoutMs, LAST_PROVIDER_QUEUE_MS) : timeoutMs,
        },
        (context) => call.call(state.provider, request, context),
      );
      const normalised = kind.normalise(
        Array.isArray(value?.results) ? value.results : [],
        request.count,
        state,
      );
      const { results } = normalised;
      const saving = healthSync.save(state, state.health.recordSuccess(value?.quota), value?.quota);
      if (saving) await saving;
      attempts.push({
        provider: id,
        outcome: 'ok',
        ms: Math.round(performance.now() - started),
        ...(queuedMs >= 1 ? { queuedMs: Math.round(queuedMs) } : {}),
        results: results.length,
      });
      const warnings = [...(Array.isArray(value?.warnings) ? value.warnings : []), ...normalised.warnings];
      return { id, results, warnings };
    } catch (thrown) {
      const error = toPeriscopeError(thrown);
      if (error.code === 'ABORTED' && signal.aborted) throw error;
      const skipped = error.details.reason === 'queue';
      if (!skipped) {
        state.health.recordFailure(error);
        await healthSync.save(state, true);
      }
      attempts.push({
        provider: id,
        outcome: skipped ? 'skipped' : 'failed',
        code: error.code,
        message: withoutProviderPrefix(id, error.message),
        ms: Math.round(performance.now() - started),
        ...failureFacts(error),
      });
      if (!shouldFallback(error)) {
        throw new PeriscopeError(error.code, error.message, {
          retryable: error.retryable,
          retryAfterMs: error.retryAfterMs,
          details: { ...error.details, provider: id, attempts: [...attempts] },
          cause: error,
        });
      }
      return { failure: error };
    }
  }

  const web: Kind<SearchRequest, SearchResult> = {
    name: 'web',
    call: (provider) => provider.search,
    normalise: (results, count) => ({ results: normaliseWebResults(results, count), warnings: [] }),
    key: webResultKey,
  };
  const images: Kind<ImageSearchRequest, ImageResult> = {
    name: 'images',
    call: (provider) => provider.searchImages,
    normalise: (results, count, state) =>
      normaliseImageResults(results, count, {
        networkPolicy: settings.networkPolicy,
        trustedBaseUrl: state.settings.baseUrl,
        provider: state.provider.id,
      }),
    key: imageResultKey,
  };

  return {
    resolvedChain: async () => [...chainIds(await getStates())],
    search: (request, options = {}) => run(web, request, options),
    searchImages: (request, options = {}) => run(images, request, options),
    async status(options = {}) {
      const all = await getStates('fresh');
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
