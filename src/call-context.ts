import type { HttpFetch } from './net/types.ts';

/** What a provider or back-end gets for one attempt. */
export interface CallContext {
  /** Caller cancellation and this attempt's deadline, already combined. */
  signal: AbortSignal;
  /** The guarded client; never globalThis.fetch. */
  fetch: HttpFetch;
}
