import { messageWithoutProvider, toPeriscopeError } from '../errors.ts';
import type { HttpFetch } from '../net/types.ts';
import { runAttempt } from './attempt.ts';
import { type ParameterCapabilities, parameterCapabilities } from './parameter-table.ts';
import type { HealthSnapshot } from './provider-health.ts';
import type { ProviderState } from './provider-state.ts';
import type { QuotaInfo, SearchProvider } from './types.ts';

/** One provider as `periscope status` shows it. */
export interface ProviderStatus {
  id: string;
  builtIn: boolean;
  enabled: boolean;
  /** 1-based place in the web chain, when it is in it. */
  position?: number;
  inChain: boolean;
  inImageChain: boolean;
  configured: boolean;
  /** `env BRAVE_API_KEY`, `config`, `keyless`, `missing (BRAVE_API_KEY)`. */
  credentials: string;
  supports: Array<'web' | 'images'>;
  /** Which of `topic: news`, `after`/`before`, `safeSearch` and `offset` it takes natively (its parameter table). */
  parameters: ParameterCapabilities;
  minIntervalMs: number;
  maxConcurrent?: number;
  /** The provider's own notice, e.g. google-cse: closed to new customers. */
  note?: string;
  health: HealthSnapshot;
  /** Live (from the provider's quota endpoint) or from the last response's headers. */
  quota?: QuotaInfo;
  /**
   * `live`: just asked. `response`: what the last response said (in any process sharing the store), at `quotaAt` —
   * the only source for providers without a quota endpoint (Serper, Exa, Firecrawl credits; Kagi's balance,
   * which only its v0 answers carry).
   */
  quotaFrom?: 'live' | 'response';
  /** ISO 8601: when that response came. */
  quotaAt?: string;
  quotaError?: string;
}

export interface StatusContext {
  webChain: readonly string[];
  imageChain: readonly string[];
  /** Ask the provider's quota endpoint (configured, enabled providers that have one). */
  quota: boolean;
  signal: AbortSignal;
  httpFetch: HttpFetch;
  timeoutMs: number;
}

export async function providerStatus(state: ProviderState, context: StatusContext): Promise<ProviderStatus> {
  const { provider } = state;
  const position = context.webChain.indexOf(provider.id);
  const status: ProviderStatus = {
    id: provider.id,
    builtIn: state.builtIn,
    enabled: state.enabled,
    ...(position === -1 ? {} : { position: position + 1 }),
    inChain: position !== -1,
    inImageChain: context.imageChain.includes(provider.id),
    configured: state.configured,
    credentials: state.credentials,
    supports: [
      ...(provider.search ? (['web'] as const) : []),
      ...(provider.searchImages ? (['images'] as const) : []),
    ],
    parameters: parameterCapabilities(provider.parameters),
    minIntervalMs: state.minIntervalMs,
    ...(state.maxConcurrent === undefined ? {} : { maxConcurrent: state.maxConcurrent }),
    ...(provider.note === undefined ? {} : { note: provider.note }),
    health: state.health.snapshot(),
  };
  if (status.health.quota) {
    status.quota = status.health.quota;
    status.quotaFrom = 'response';
    if (status.health.quotaAt) status.quotaAt = status.health.quotaAt;
  }
  const quota = provider.quota as SearchProvider['quota'];
  if (!context.quota || !quota || !state.configured || !state.enabled) return status;
  try {
    const { value } = await runAttempt(
      {
        id: provider.id,
        pacer: state.pacer,
        httpFetch: context.httpFetch,
        settings: state.settings,
        signal: context.signal,
        timeoutMs: context.timeoutMs,
        maxQueueMs: context.timeoutMs,
      },
      (attemptContext) => quota.call(provider, attemptContext),
    );
    status.quota = value;
    status.quotaFrom = 'live';
    delete status.quotaAt;
  } catch (error) {
    status.quotaError = messageWithoutProvider(toPeriscopeError(error));
  }
  return status;
}
