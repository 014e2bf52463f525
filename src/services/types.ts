// The types of the keyed-API layer shared by search providers and fetch back-ends; src/search/types.ts
// re-exports them under the same names.
import type { HttpFetch } from '../net/types.ts';

/** Per-provider settings from config (`providers.<id>`), with well-known environment variables already applied. */
export interface ProviderSettings {
  apiKey?: string | undefined;
  /** Trusted endpoint (SearXNG instance, or a local stand-in in tests). */
  baseUrl?: string | undefined;
  /** Provider-specific extras (Google CSE `cx`, Kagi API version, …). */
  [key: string]: unknown;
}

export interface ProviderContext {
  /** The guarded client. Requests to the provider's own endpoint pass `trusted: true`. */
  fetch: HttpFetch;
  /** Caller cancellation and this attempt's deadline, combined. */
  signal: AbortSignal;
  settings: ProviderSettings;
}

/** What a provider reports about its quota, live or from the last response's headers. */
export interface QuotaInfo {
  /** Requests / credits left in the current period, when known. */
  remaining?: number | undefined;
  limit?: number | undefined;
  /** ISO 8601 time the quota resets, when known. */
  resetsAt?: string | undefined;
  /** Free text, e.g. `Kagi balance $4.20`. */
  note?: string | undefined;
}
