import type { ProviderEntryConfig } from '../config/search-schema.ts';
import { createPacer, type Pacer } from './pacing.ts';
import { createProviderHealth, type ProviderHealth } from './provider-health.ts';
import { resolveProviderSettings } from './provider-settings.ts';
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

/** `providers.<id>` (and the environment) applied to one provider; pacing from config, else its defaults. */
export function createProviderState(
  provider: SearchProvider,
  entry: ProviderEntryConfig | undefined,
  env: NodeJS.ProcessEnv,
  builtIn: boolean,
): ProviderState {
  const { id } = provider;
  const resolved = resolveProviderSettings(provider, entry, env);
  const minIntervalMs = entry?.minIntervalMs ?? provider.minIntervalMs;
  const maxConcurrent = entry?.maxConcurrent ?? provider.maxConcurrent;
  return {
    provider,
    settings: resolved.settings,
    credentials: resolved.credentials,
    enabled: entry?.enabled ?? true,
    configured: provider.isConfigured(resolved.settings),
    builtIn,
    pacer: createPacer({ id, minIntervalMs, ...(maxConcurrent === undefined ? {} : { maxConcurrent }) }),
    health: createProviderHealth(),
    minIntervalMs,
    maxConcurrent,
  };
}
