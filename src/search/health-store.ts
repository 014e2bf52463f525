import { z } from 'zod';
import { ERROR_CODES } from '../errors.ts';
import type { Store } from '../store/store.ts';
import { providerAccount } from './provider-account.ts';
import type { HealthRecord } from './provider-health.ts';
import type { ProviderState } from './provider-state.ts';
import type { ProviderSettings } from './types.ts';

/** Store keys: `search-health:<provider id>:<account>`, one record per provider and account (see healthKey). */
const HEALTH_KEY_PREFIX = 'search-health:';
/** A record outlives its last change by a week: a cooldown lasts at most a day, the last quota seen stays longer. */
export const HEALTH_TTL_MS = 7 * 86_400_000;
/**
 * A long-running process reads the others' health again once its last read is older than this: the next call
 * starts the read in the background (never in a call's way); there is no timer.
 */
const HEALTH_REFRESH_MS = 5_000;
/**
 * A quota alone is written at most this often per provider: Brave's remaining count changes with every response,
 * and a write per call would put the store in every call's way.
 */
const QUOTA_REWRITE_MS = 60_000;

/**
 * `search-health:<id>:<account>`: the account is a short digest of the key and endpoint the provider is used with
 * (its resolved `apiKey` and `baseUrl`), never the key itself. So health learned with one key or endpoint — a
 * refused key, a used-up quota — does not bench the provider once another one is configured, while every process
 * using the same key shares it.
 */
export function healthKey(id: string, settings: Pick<ProviderSettings, 'apiKey' | 'baseUrl'>): string {
  return `${HEALTH_KEY_PREFIX}${encodeURIComponent(id)}:${providerAccount(settings)}`;
}

const isoTime = z.string().refine((value) => !Number.isNaN(Date.parse(value)));
const count = z.number().optional();
/** What another process (maybe another version) left in the store; anything else is ignored. */
const healthRecordSchema = z.object({
  coolingUntil: isoTime.optional(),
  coolingSince: isoTime.optional(),
  consecutiveFailures: z.number().int().min(0).max(1_000_000),
  lastError: z.object({ code: z.enum(ERROR_CODES), message: z.string().max(2_000), at: isoTime }).optional(),
  lastSuccessAt: isoTime.optional(),
  quota: z
    .object({
      remaining: count,
      limit: count,
      resetsAt: z.string().max(100).optional(),
      note: z.string().max(500).optional(),
    })
    .optional(),
  quotaAt: isoTime.optional(),
});

export function parseHealthRecord(value: unknown): HealthRecord | undefined {
  if (value === undefined) return undefined;
  const parsed = healthRecordSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Provider health shared through the Store (memory, SQLite or Redis: whatever `store.url` names), so a cooldown,
 * the last error and the last quota a response reported reach every process using the same store — the next
 * `periscope search`, `periscope status`, other gateway instances. One record per provider and account (healthKey).
 * Read once before the first call, again by `status()`, and again in the background by the first call made after
 * HEALTH_REFRESH_MS since the last read (there is no timer: an idle process reads nothing). Written when the health
 * changes (a failure, a cooldown or failure streak ended by a success) and, for the quota responses report, at most
 * once a minute. A store that fails is ignored: health then stays in this process. Pacing is shared through the
 * store's turns (shared-pacer.ts), not here.
 */
export interface HealthSync {
  /** Takes in every provider's stored record. Never rejects. */
  load(states: Iterable<ProviderState>): Promise<void>;
  /** Starts `load` in the background when the last one is older than HEALTH_REFRESH_MS; otherwise does nothing. */
  refresh(states: Iterable<ProviderState>): void;
  /**
   * Writes the provider's record (merged with what is stored) after its health changed, or for a `quota` when this
   * process has not written the provider's record for QUOTA_REWRITE_MS. Undefined when there is nothing to write;
   * never rejects.
   */
  save(state: ProviderState, changed: boolean, quota?: unknown): Promise<void> | undefined;
}

export function createHealthSync(
  store: (() => Promise<Store>) | undefined,
  now: () => number = Date.now,
): HealthSync {
  let lastLoadMs = Number.NEGATIVE_INFINITY;
  let loading: Promise<void> | undefined;
  /** Per provider: when this process last wrote its record. */
  const writtenAtMs = new Map<string, number>();

  async function load(states: Iterable<ProviderState>): Promise<void> {
    if (store === undefined) return;
    lastLoadMs = now();
    try {
      const opened = await store();
      const list = [...states];
      const values = await Promise.all(
        list.map((state) => opened.get(healthKey(state.provider.id, state.settings))),
      );
      list.forEach((state, index) => {
        const record = parseHealthRecord(values[index]);
        if (record) state.health.adopt(record);
      });
    } catch {
      // The store is unusable: health stays in this process.
    }
  }

  async function write(state: ProviderState): Promise<void> {
    try {
      const opened = await (store as () => Promise<Store>)();
      const key = healthKey(state.provider.id, state.settings);
      const stored = parseHealthRecord(await opened.get(key));
      if (stored) state.health.adopt(stored);
      const record = state.health.toRecord();
      await opened.set(key, record, { ttlMs: HEALTH_TTL_MS });
      writtenAtMs.set(state.provider.id, now());
    } catch {
      // Not shared this time; the next change tries again.
    }
  }

  return {
    load,
    refresh(states) {
      if (store === undefined || loading !== undefined || now() - lastLoadMs < HEALTH_REFRESH_MS) return;
      loading = load(states).finally(() => {
        loading = undefined;
      });
    },
    save(state, changed, quota) {
      if (store === undefined) return undefined;
      if (!changed) {
        if (quota === undefined) return undefined;
        const lastMs = writtenAtMs.get(state.provider.id);
        if (lastMs !== undefined && now() - lastMs < QUOTA_REWRITE_MS) return undefined;
      }
      return write(state);
    },
  };
}
