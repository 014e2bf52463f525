import type { PeriscopeConfig } from '../config/schema.ts';

/** Keys that never change an answer, or are secrets, left out of fingerprints. */
const IGNORED = new Set([
  'apiKey',
  'maxChars',
  'maxTokens',
  'continuationTtlMs',
  'continuationMaxChars',
  'timeoutMs',
  'totalTimeoutMs',
  'connectTimeoutMs',
  'headersTimeoutMs',
  'bodyTimeoutMs',
  'dnsTimeoutMs',
  'dnsTries',
  'minIntervalMs',
  'maxConcurrent',
]);

/** JSON with sorted keys and the ignored ones dropped, so equal settings give equal text. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (key, item: unknown) => {
    if (IGNORED.has(key)) return undefined;
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
    return Object.fromEntries(
      Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  });
}

/**
 * What besides the request changes a fetched document: every `network` setting (what may be reached, how, with
 * which User-Agent) and every `fetch` setting (back-end chain, extraction limits), minus timeouts, windows and
 * secrets. New settings count by default: a missing entry in IGNORED costs cache hits, never correctness.
 */
export function fetchFingerprint(config: PeriscopeConfig): string {
  return canonicalJson({ network: config.network, fetch: config.fetch });
}

/** What besides the request changes search results: the resolved chain, the search and provider settings. */
export function searchFingerprint(config: PeriscopeConfig, chain: readonly string[]): string {
  return canonicalJson({
    chain,
    search: config.search,
    providers: config.providers,
    network: { allowPrivateNetwork: config.network.allowPrivateNetwork, userAgent: config.network.userAgent },
  });
}
