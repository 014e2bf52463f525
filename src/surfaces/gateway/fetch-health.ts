/** How one web_fetch back-end has fared in this gateway's calls (the fetch chain keeps no health of its own). */
import type { ToolResult } from '../../tool-call.ts';
export interface FetchBackendHealth {
  ok: number;
  failed: number;
  skipped: number;
  /** ISO 8601 of its last page. */
  lastOkAt: string | null;
  lastFailure: { at: string; code: string; message: string } | null;
}

/** Longest failure message kept. */
const MAX_MESSAGE_CHARS = 300;
/** Back-end ids tracked at most (the chain has a handful; a bound against odd results). */
const MAX_BACKENDS = 32;

/**
 * The fetch chain's back-ends as web_fetch calls met them: each call's attempts (its result's `data.attempts`, or
 * its error's `details.attempts`) counted per back-end, with the last success and the last failure. In memory,
 * since the gateway started; cached answers (no back-end asked) count for none.
 */
export function createFetchHealth(options: { now?: () => number } = {}) {
  const now = options.now ?? Date.now;
  const backends = new Map<string, FetchBackendHealth>();

  const fetchHealth = {
    add(tool: string, result: ToolResult): void {
      if (tool !== 'web_fetch') return;
      const data = result.data as
        | {
            cached?: unknown;
            attempts?: unknown;
            error?: { details?: { attempts?: unknown } };
            results?: unknown;
          }
        | undefined;
      // web_fetch with `urls`: each page's result, a success's data or a failure's error, counts as its own call.
      if (Array.isArray(data?.results)) {
        for (const item of data.results as Array<{ ok?: unknown }>)
          fetchHealth.add(tool, { isError: item.ok === false, output: '', data: item } as ToolResult);
        return;
      }
      if (data?.cached === true) return;
      const attempts = data?.attempts ?? data?.error?.details?.attempts;
      if (!Array.isArray(attempts)) return;
      const at = new Date(now()).toISOString();
      for (const attempt of attempts as Array<Record<string, unknown>>) {
        if (typeof attempt?.backend !== 'string') continue;
        let health = backends.get(attempt.backend);
        if (!health) {
          if (backends.size >= MAX_BACKENDS) continue;
          health = { ok: 0, failed: 0, skipped: 0, lastOkAt: null, lastFailure: null };
          backends.set(attempt.backend, health);
        }
        if (attempt.outcome === 'ok') {
          health.ok += 1;
          health.lastOkAt = at;
        } else if (attempt.outcome === 'failed') {
          health.failed += 1;
          health.lastFailure = {
            at,
            code: String(attempt.code ?? 'UNKNOWN'),
            message: String(attempt.message ?? '').slice(0, MAX_MESSAGE_CHARS),
          };
        } else health.skipped += 1;
      }
    },
    /** Every back-end seen, by id. */
    snapshot(): Record<string, FetchBackendHealth> {
      return Object.fromEntries([...backends].map(([id, health]) => [id, { ...health }]));
    },
  };
  return fetchHealth;
}

export type FetchHealth = ReturnType<typeof createFetchHealth>;
