import type { ProviderEntryConfig, ProvidersConfig, SearchConfig } from '../config/search-schema.ts';
import { checkIds } from './chain-errors.ts';
import { loadCustomProviders, toSearchProvider } from './custom-providers.ts';
import { BUILT_IN_PROVIDERS } from './providers/registry.ts';
import type { SearchProvider } from './types.ts';

export interface ProviderRegistrySettings {
  chain: SearchConfig['chain'];
  providers: ProvidersConfig;
  /** Providers from the library caller; they replace built-ins of the same id. */
  extraProviders?: readonly SearchProvider[] | undefined;
  /** Folder that relative `providers.custom[].module` paths start from. */
  baseDir: string;
}

/** Every provider the chain knows: built-ins, the caller's and the `providers.custom` modules. */
export interface ProviderRegistry {
  /** Ids of the caller's and the custom providers, in that order (they lead `search.chain: auto`). */
  readonly customIds: readonly string[];
  /** `providers.<id>` of the config, by id. */
  readonly entries: Readonly<Record<string, ProviderEntryConfig | undefined>>;
  /** Every provider by id, once the custom modules are loaded; rejects with their load error. */
  providers(): Promise<ReadonlyMap<string, SearchProvider>>;
  isBuiltIn(provider: SearchProvider): boolean;
}

/** Throws CONFIG_INVALID for unknown ids in `search.chain` or `providers`. Custom modules load in the background. */
export function createProviderRegistry(settings: ProviderRegistrySettings): ProviderRegistry {
  const registry = new Map(BUILT_IN_PROVIDERS);
  const customIds: string[] = [];
  settings.extraProviders?.forEach((value, index) => {
    const provider = toSearchProvider(value, `providers option [${index}]`);
    registry.set(provider.id, provider);
    customIds.push(provider.id);
  });
  const { custom = [], ...rest } = settings.providers;
  for (const entry of custom) customIds.push(entry.id);
  checkIds(settings.chain, settings.providers, new Set([...registry.keys(), ...customIds]));

  let loadError: unknown;
  const ready =
    custom.length === 0
      ? Promise.resolve()
      : loadCustomProviders(custom, settings.baseDir).then(
          (providers) => {
            for (const provider of providers) registry.set(provider.id, provider);
          },
          (error: unknown) => {
            loadError = error;
          },
        );

  return {
    customIds,
    entries: rest as Record<string, ProviderEntryConfig | undefined>,
    async providers() {
      await ready;
      if (loadError !== undefined) throw loadError;
      return registry;
    },
    isBuiltIn: (provider) => BUILT_IN_PROVIDERS.get(provider.id) === provider,
  };
}
