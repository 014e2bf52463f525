import type { SearchProvider } from '../types.ts';

/**
 * Every built-in provider, keyed by id. One line per provider; the order here is not the chain order
 * (that is `search.chain`, or the documented `auto` order).
 */
export const BUILT_IN_PROVIDERS: ReadonlyMap<string, SearchProvider> = new Map<string, SearchProvider>(
  [
    // Each provider file adds itself here.
  ].map((provider: SearchProvider) => [provider.id, provider]),
);
