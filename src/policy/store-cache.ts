import { isPeriscopeError } from '../errors.ts';
import { stageEnd, stageStart } from '../stage-timing.ts';
import { digest } from '../store/digest.ts';
import type { Store } from '../store/store.ts';
import type { ToolName } from '../tool-call.ts';
import type { ToolCache } from '../tools/tool-cache.ts';
import { createSingleFlight } from './single-flight.ts';

export interface StoreCacheSettings {
  tool: ToolName;
  store: () => Promise<Store>;
  ttlMs: number;
  /** Entries with more characters than this (their strings, keys and numbers) are not kept. */
  maxEntryChars: number;
  /** `agent`: each agent reads only what it loaded itself. */
  scope: 'shared' | 'agent';
  /** Everything besides the tool's key that changes the answer (config, resolved chain); asked once. */
  fingerprint: () => string | Promise<string>;
  /**
   * Given each entry's write, which then finishes after the read has answered (the write does not decide the
   * answer); the owner awaits them before closing the store. The write starts only once the event loop's turn that
   * answered is over (setImmediate): serialising tens of kilobytes and handing them to the store is no part of
   * the answer. Meanwhile the entry is read from memory. Default: the read waits for its write.
   */
  afterAnswer?: (write: Promise<void>) => void;
}

/**
 * Entries written after their answer and not yet in the store, per store (so two Periscopes of one process sharing a
 * store read each other's at once, as when the write was made in the answer's turn).
 */
const UNWRITTEN = new WeakMap<Store, Map<string, Entry>>();

interface Entry {
  value: unknown;
  /** When the value was loaded (ms since the epoch). An entry without it (written by an older version) is a miss. */
  storedAt?: number;
}

/**
 * A ToolCache on the store, shared by every process using it, with in-process single flight: concurrent
 * identical reads wait for one load. Only loaded values are kept (a failure is never cached), for `ttlMs`, when
 * their JSON fits `maxEntryChars`, with the time they were loaded: a read's `maxAgeMs` turns away older ones (the
 * new load replaces them) and the age of a hit is reported. The cache is not a control: when the store fails, a
 * read is a miss and a write is skipped, and the call goes on.
 */
export function createStoreCache(settings: StoreCacheSettings): ToolCache {
  const flights = createSingleFlight();
  let fingerprint: Promise<string> | undefined;

  async function storeKey(key: string, agentId: string | undefined): Promise<string> {
    fingerprint ??= Promise.resolve().then(settings.fingerprint);
    let base: string;
    try {
      base = await fingerprint;
    } catch (error) {
      fingerprint = undefined;
      throw error;
    }
    const scope = settings.scope === 'agent' ? (agentId ?? '') : '';
    return `cache:${settings.tool}:${digest(`${base}\n${scope}\n${key}`)}`;
  }

  async function readEntry(key: string): Promise<Entry | undefined> {
    const started = stageStart();
    try {
      const store = await settings.store();
      const held = UNWRITTEN.get(store)?.get(key);
      if (held !== undefined && Date.now() - (held.storedAt ?? 0) < settings.ttlMs) return held;
      return await store.get<Entry>(key);
    } catch {
      return undefined;
    } finally {
      stageEnd('cache', started);
    }
  }

  async function writeEntry(key: string, entry: Entry): Promise<void> {
    // The stage counts this process's own work, up to the write handed over: a store that writes elsewhere
    // (the SQLite writer thread, Redis) settles later, and that wait is nobody's time on the event loop.
    // Nor is the await for the store: the rest of the call runs meanwhile.
    let started = stageStart();
    const kept = fits(entry.value);
    stageEnd('cache', started);
    if (!kept) return;
    try {
      const store = await settings.store();
      started = stageStart();
      const written = store.set(key, entry, { ttlMs: settings.ttlMs });
      stageEnd('cache', started);
      await written;
    } catch {
      // A lost write only costs a later miss.
    }
  }

  /** Entries given this turn, written together once it is over (one setImmediate a turn, not one a call). */
  let queued: Array<{ held: Map<string, Entry>; key: string; entry: Entry }> = [];

  /**
   * The write of an entry that does not decide the answer: after this turn. Until it settles, every cache on the
   * same store in this process reads it from memory (UNWRITTEN).
   */
  async function writeAfterAnswer(
    key: string,
    entry: Entry,
    afterAnswer: (write: Promise<void>) => void,
  ): Promise<void> {
    const started = stageStart();
    const kept = fits(entry.value);
    stageEnd('cache', started);
    if (!kept) return;
    let store: Store;
    try {
      store = await settings.store();
    } catch {
      return; // no store, no write
    }
    let held = UNWRITTEN.get(store);
    if (held === undefined) {
      held = new Map();
      UNWRITTEN.set(store, held);
    }
    held.set(key, entry);
    if (queued.length === 0) afterAnswer(new Promise((resolve) => setImmediate(resolve)).then(writeQueued));
    queued.push({ held, key, entry });
  }

  async function writeQueued(): Promise<void> {
    const batch = queued;
    queued = [];
    await Promise.all(
      batch.map(async ({ held, key, entry }) => {
        await writeEntry(key, entry);
        if (held.get(key) === entry) held.delete(key);
      }),
    );
  }

  /**
   * Whether a value is small enough to be kept. A loaded value is asked twice (by the write, then by `keeps`, a few
   * promises later): the last answer is remembered by identity (a WeakMap would cost every garbage collection).
   */
  let lastSized: { value: unknown; kept: boolean } | undefined;
  function fits(value: unknown): boolean {
    if (lastSized !== undefined && lastSized.value === value) return lastSized.kept;
    const kept = !exceeds(value, settings.maxEntryChars);
    if (value !== null && typeof value === 'object') lastSized = { value, kept };
    return kept;
  }

  return {
    keeps: fits,
    async read(key, load, options = {}) {
      const fullKey = await storeKey(key, options.agentId);
      const { maxAgeMs } = options;
      const hit = maxAgeMs === 0 ? undefined : await readEntry(fullKey);
      const ageMs = typeof hit?.storedAt === 'number' ? Math.max(0, Date.now() - hit.storedAt) : undefined;
      if (hit !== undefined && ageMs !== undefined && (maxAgeMs === undefined || ageMs <= maxAgeMs))
        return { value: hit.value as Awaited<ReturnType<typeof load>>, cached: true, ageMs };
      for (;;) {
        const flight = flights.run(fullKey, async () => {
          const value = await load();
          if (options.isCacheable?.(value) !== false) {
            const entry: Entry = { value, storedAt: Date.now() };
            // Not waited for, and written once this turn is over; a read that follows this one finds it meanwhile.
            if (settings.afterAnswer) await writeAfterAnswer(fullKey, entry, settings.afterAnswer);
            else await writeEntry(fullKey, entry);
          }
          return value;
        });
        try {
          const value = await flight.promise;
          return flight.shared ? { value, cached: true, ageMs: 0 } : { value, cached: false };
        } catch (error) {
          // The caller that started the shared load cancelled it; this one did not: load again for it.
          const cancelled =
            (isPeriscopeError(error) && error.code === 'ABORTED') ||
            (error instanceof Error && error.name === 'AbortError');
          if (flight.shared && cancelled && options.signal?.aborted !== true) continue;
          throw error;
        }
      }
    },
  };
}

/** Whether `value` holds more than `limit` characters, counted without serialising it (stops early). */
function exceeds(value: unknown, limit: number): boolean {
  let total = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') total += item.length + 2;
    else if (Array.isArray(item)) {
      total += item.length + 2;
      for (const entry of item) pending.push(entry);
    } else if (item !== null && typeof item === 'object') {
      for (const [key, entry] of Object.entries(item)) {
        total += key.length + 4;
        pending.push(entry);
      }
    } else total += 8;
    if (total > limit) return true;
  }
  return false;
}
