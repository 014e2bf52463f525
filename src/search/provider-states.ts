import type { Store } from '../store/store.ts';
import { createHealthSync, type HealthSync } from './health-store.ts';
import type { ProviderRegistry } from './provider-registry.ts';
import { createProviderState, type ProviderState } from './provider-state.ts';

export interface ProviderStatesSettings {
  registry: ProviderRegistry;
  env: NodeJS.ProcessEnv;
  /** The state store (opened on first use) the health is shared through; without one it stays in this process. */
  store?: (() => Promise<Store>) | undefined;
  /** How long a shared pacing turn may be held (search.timeoutMs plus a margin); pacing is shared with a store. */
  leaseMs?: number;
}

/** Every provider's state (settings, pacer, health), with its health kept in step with the store. */
export interface ProviderStates {
  /**
   * The first call reads the stored health; later ones start a background re-read when the last is stale
   * (`refresh`), or, for `status()`, read it now (`fresh`) — one read either way.
   */
  get(health?: 'refresh' | 'fresh'): Promise<ReadonlyMap<string, ProviderState>>;
  readonly healthSync: HealthSync;
}

/** A shared pacing turn is held at most this long when the caller gives no lease. */
const DEFAULT_LEASE_MS = 60_000;

export function createProviderStates(settings: ProviderStatesSettings): ProviderStates {
  const { registry } = settings;
  const healthSync = createHealthSync(settings.store);
  let states: Promise<Map<string, ProviderState>> | undefined;

  /** Every provider's state, with the health other processes (or earlier runs) left in the store. */
  async function createStates(): Promise<Map<string, ProviderState>> {
    const all = new Map<string, ProviderState>();
    for (const [id, provider] of await registry.providers()) {
      all.set(
        id,
        createProviderState(
          provider,
          registry.entries[id],
          settings.env,
          registry.isBuiltIn(provider),
          settings.store === undefined
            ? undefined
            : { store: settings.store, leaseMs: settings.leaseMs ?? DEFAULT_LEASE_MS },
        ),
      );
    }
    await healthSync.load(all.values());
    return all;
  }

  return {
    healthSync,
    async get(health = 'refresh') {
      await registry.providers(); // a custom module that failed to load fails every call
      if (states === undefined) {
        states = createStates();
        return states;
      }
      const all = await states;
      if (health === 'fresh') await healthSync.load(all.values());
      else healthSync.refresh(all.values());
      return all;
    },
  };
}
