import { normaliseQuery } from './normalise-query.ts';

/**
 * A search's cache key: the normalised query and every option that changes the answer (count, filters, a forced
 * provider). The cache adds the config and the resolved chain (see `searchFingerprint`).
 */
export function searchCacheKey(request: { query: string }, provider: string | undefined): string {
  const { query, ...options } = request;
  const sorted = Object.entries(options)
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([normaliseQuery(query), sorted, provider ?? null]);
}
