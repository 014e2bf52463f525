import type { ProviderEntryConfig } from '../config/search-schema.ts';
import type { ProviderSettings, SearchProvider } from './types.ts';

/**
 * Well-known environment variables for settings other than the key (the key's come from the provider's own
 * `keyEnv`). A variable in `keyEnv` whose name ends in `_URL` (SEARXNG_BASE_URL) fills `baseUrl` instead.
 */
const SETTING_ENV: Record<string, Record<string, readonly string[]>> = {
  searxng: { baseUrl: ['SEARXNG_BASE_URL'] },
  'google-cse': { cx: ['GOOGLE_CSE_ID', 'GOOGLE_CSE_CX'] },
};

export interface ResolvedSettings {
  settings: ProviderSettings;
  /**
   * Where the credentials came from, for `periscope status`: `config`, `env BRAVE_API_KEY`, `keyless` (none needed, or
   * none given to a provider that works without: Marginalia), `missing`.
   */
  credentials: string;
  /** The settings read from the environment, each with its variable (`apiKey` → `BRAVE_API_KEY`), for `config show`. */
  fromEnvironment: Record<string, string>;
}

/**
 * `providers.<id>` from config with the well-known variables as fallbacks: extras first, then `apiKey` and
 * `baseUrl` (config wins over the environment; an empty string counts as absent).
 */
export function resolveProviderSettings(
  provider: SearchProvider,
  entry: ProviderEntryConfig | undefined,
  env: NodeJS.ProcessEnv,
): ResolvedSettings {
  const settings: ProviderSettings = { ...(entry?.extras ?? {}) };
  if (nonEmpty(entry?.apiKey) !== undefined) settings.apiKey = entry?.apiKey;
  if (nonEmpty(entry?.baseUrl) !== undefined) settings.baseUrl = entry?.baseUrl;
  const wellKnown = wellKnownEnv(provider);
  const sources: string[] = [];
  const fromEnvironment: Record<string, string> = {};
  for (const [name, names] of Object.entries(wellKnown)) {
    if (nonEmpty(settings[name]) !== undefined) {
      sources.push('config');
      continue;
    }
    const found = names.find((variable) => nonEmpty(env[variable]) !== undefined);
    if (found === undefined) continue;
    settings[name] = env[found]?.trim();
    fromEnvironment[name] = found;
    sources.push(`env ${found}`);
  }
  const variables = Object.values(wellKnown).flat();
  let credentials: string;
  if (!provider.isConfigured(settings)) {
    credentials = variables.length > 0 ? `missing (${variables.join(' / ')})` : 'missing';
  } else if (variables.length === 0 || sources.length === 0) {
    // Configured without any credential given: keyless (Marginalia's shared key when none of your own is set).
    credentials = 'keyless';
  } else {
    credentials = [...new Set(sources)].join(', ');
  }
  return { settings, credentials, fromEnvironment };
}

/** Setting name → the variables that can supply it, for one provider. */
export function wellKnownEnv(provider: SearchProvider): Record<string, readonly string[]> {
  const urlEnv = provider.keyEnv.filter((name) => name.endsWith('_URL'));
  const keyEnv = provider.keyEnv.filter((name) => !name.endsWith('_URL'));
  const wellKnown: Record<string, readonly string[]> = {};
  if (keyEnv.length > 0) wellKnown.apiKey = keyEnv;
  for (const [name, names] of Object.entries(SETTING_ENV[provider.id] ?? {})) wellKnown[name] = names;
  if (urlEnv.length > 0) wellKnown.baseUrl = [...new Set([...urlEnv, ...(wellKnown.baseUrl ?? [])])];
  return wellKnown;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}
