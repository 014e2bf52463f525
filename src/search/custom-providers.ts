import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CustomProviderConfig } from '../config/search-schema.ts';
import { PeriscopeError } from '../errors.ts';
import type { SearchProvider } from './types.ts';

/**
 * A provider as a library user or a module wrote it, checked and completed: `keyEnv` defaults to none,
 * `minIntervalMs` to 0, `isConfigured` to always. `id` (when given) replaces the object's own id.
 */
export function toSearchProvider(value: unknown, origin: string, id?: string): SearchProvider {
  const candidate = (typeof value === 'function' ? (value as () => unknown)() : value) as Record<
    string,
    unknown
  >;
  const problems: string[] = [];
  if (typeof candidate !== 'object' || candidate === null) {
    throw invalid(origin, ['it is not an object (export a SearchProvider, or a function that returns one)']);
  }
  const providerId = id ?? candidate.id;
  if (typeof providerId !== 'string' || !/^[a-z0-9][a-z0-9-]*$/.test(providerId)) {
    problems.push('id must be a kebab-case string');
  }
  if (typeof candidate.search !== 'function' && typeof candidate.searchImages !== 'function') {
    problems.push('it needs a search() or searchImages() method');
  }
  for (const name of ['isConfigured', 'quota'] as const) {
    if (candidate[name] !== undefined && typeof candidate[name] !== 'function') {
      problems.push(`${name} must be a function`);
    }
  }
  if (candidate.keyEnv !== undefined && !Array.isArray(candidate.keyEnv))
    problems.push('keyEnv must be an array');
  if (candidate.minIntervalMs !== undefined && !(Number(candidate.minIntervalMs) >= 0)) {
    problems.push('minIntervalMs must be a number ≥ 0');
  }
  if (candidate.queryLimits !== undefined && !isQueryLimits(candidate.queryLimits)) {
    problems.push(
      'queryLimits must be { web?, images? }, each { maxCharacters, maxWords? } (whole numbers ≥ 1)',
    );
  }
  if (candidate.parameters !== undefined && !isParameterTable(candidate.parameters)) {
    problems.push(
      'parameters must be { news, dates, safeSearch, offset }, each an object (src/search/parameter-table.ts)',
    );
  }
  if (
    candidate.siteFilter !== undefined &&
    candidate.siteFilter !== 'request' &&
    candidate.siteFilter !== 'query'
  )
    problems.push("siteFilter must be 'request' or 'query'");
  if (problems.length > 0) throw invalid(origin, problems);
  const provider = candidate as unknown as SearchProvider;
  // Methods are called on the original object, so providers written as classes keep their `this`.
  const completed: SearchProvider = {
    id: providerId as string,
    keyEnv: provider.keyEnv ?? [],
    minIntervalMs: provider.minIntervalMs ?? 0,
    isConfigured: (settings) =>
      typeof provider.isConfigured === 'function' ? provider.isConfigured(settings) : true,
  };
  const extra: { -readonly [K in keyof SearchProvider]?: SearchProvider[K] } = completed;
  if (provider.maxConcurrent !== undefined) extra.maxConcurrent = provider.maxConcurrent;
  if (typeof provider.note === 'string') extra.note = provider.note;
  if (provider.queryLimits !== undefined) extra.queryLimits = provider.queryLimits;
  if (provider.siteFilter !== undefined) extra.siteFilter = provider.siteFilter;
  if (provider.parameters !== undefined) extra.parameters = provider.parameters;
  if (provider.search) extra.search = (request, context) => provider.search!(request, context);
  if (provider.searchImages)
    extra.searchImages = (request, context) => provider.searchImages!(request, context);
  if (provider.quota) extra.quota = (context) => provider.quota!(context);
  return completed;
}

/**
 * Load `providers.custom` modules, once: `./acme.js#createAcme` is resolved against `baseDir` (the config file's
 * folder), a bare name is imported as a package; the export (default `default`) is a provider or a function
 * returning one. Any problem is CONFIG_INVALID naming the entry.
 */
export async function loadCustomProviders(
  entries: readonly CustomProviderConfig[],
  baseDir: string,
): Promise<SearchProvider[]> {
  return Promise.all(
    entries.map(async (entry, index) => {
      const origin = `providers.custom[${index}] (${entry.module})`;
      const hash = entry.module.lastIndexOf('#');
      const specifier = hash === -1 ? entry.module : entry.module.slice(0, hash);
      const exportName = hash === -1 ? 'default' : entry.module.slice(hash + 1) || 'default';
      const isPath = specifier.startsWith('.') || isAbsolute(specifier);
      const target = isPath ? pathToFileURL(resolve(baseDir, specifier)).href : specifier;
      let loaded: Record<string, unknown>;
      try {
        loaded = (await import(target)) as Record<string, unknown>;
      } catch (error) {
        throw invalid(origin, [`cannot import ${target}: ${(error as Error).message.split('\n')[0]}`]);
      }
      if (!(exportName in loaded)) {
        const names = Object.keys(loaded).join(', ') || 'none';
        throw invalid(origin, [`the module has no export "${exportName}" (exports: ${names})`]);
      }
      return toSearchProvider(loaded[exportName], origin, entry.id);
    }),
  );
}

function isQueryLimits(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const count = (n: unknown) => Number.isInteger(n) && (n as number) >= 1;
  return Object.entries(value).every(([kind, limit]) => {
    if (kind !== 'web' && kind !== 'images') return false;
    if (limit === undefined) return true;
    if (typeof limit !== 'object' || limit === null) return false;
    const { maxCharacters, maxWords } = limit as Record<string, unknown>;
    return count(maxCharacters) && (maxWords === undefined || count(maxWords));
  });
}

/** A parameter table's shape: its four entries, each an object (`{ how }`, `{ none }`, …). */
function isParameterTable(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const table = value as Record<string, unknown>;
  return ['news', 'dates', 'safeSearch', 'offset'].every(
    (name) => typeof table[name] === 'object' && table[name] !== null,
  );
}

function invalid(origin: string, problems: string[]): PeriscopeError {
  return new PeriscopeError(
    'CONFIG_INVALID',
    `${origin} is not a usable search provider; ${problems.join('; ')}`,
    {
      details: { problems },
    },
  );
}
