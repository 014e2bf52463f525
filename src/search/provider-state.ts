import type { ProviderEntryConfig } from '../config/search-schema.ts';
import type { Store } from '../store/store.ts';
import { createPacer, type Pacer } from './pacing.ts';
import { createProviderHealth, type ProviderHealth } from './provider-health.ts';
import { resolveProviderSettings } from './provider-settings.ts';
import { createSharedPacer, pacingKey } from './shared-pacer.ts';
import type { ProviderSettings, SearchProvider } from './types.ts';

/** What the chain keeps per provider: its resolved settings, its pacer and its health. */
export interface ProviderState {
  provider: SearchProvider;
  settings: ProviderSettings;
  /** `env BRAVE_API_KEY`, `config`, `keyless`, `missing (BRAVE_API_KEY)`. */
  credentials: string;
  enabled: boolean;
  configured: boolean;
  builtIn: boolean;
  pacer: Pacer;
  health: ProviderHealth;
  minIntervalMs: number;
  maxConcurrent: number | undefined;
}

/** Where pacing is shared: the state store and how long a turn may be held (shared-pacer.ts). */
export interface SharedPacing {
  store: () => Promise<Store>;
  leaseMs: number;
}

/**
 * `providers.<id>` (and the environment) applied to one provider; pacing from config, else its defaults, shared
 * through `shared` when given (a SQLite or Redis store), else in this process.
 */
export function createProviderState(
  provider: SearchProvider,
  entry: ProviderEntryConfig | undefined,
  env: NodeJS.ProcessEnv,
  builtIn: boolean,
  shared?: SharedPacing,
): ProviderState {
  const { id } = provider;
  const resolved = resolveProviderSettings(provider, entry, env);
  const minIntervalMs = entry?.minIntervalMs ?? provider.minIntervalMs;
  const maxConcurrent = entry?.maxConcurrent ?? provider.maxConcurrent;
  const pacing = { id, minIntervalMs, ...(maxConcurrent === undefined ? {} : { maxConcurrent }) };
  return {
    provider,
    settings: resolved.settings,
    credentials: resolved.credentials,
    enabled: entry?.enabled ?? true,
    configured: provider.isConfigured(resolved.settings),
    builtIn,
    pacer:
      shared === undefined
        ? createPacer(pacing)
        : createSharedPacer({ ...pacing, ...shared, key: pacingKey(id, resolved.settings) }),
    health: createProviderHealth(),
    minIntervalMs,
    maxConcurrent,
  };
}
