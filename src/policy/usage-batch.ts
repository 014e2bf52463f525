import type { UsageConfig } from '../config/policy-schema.ts';
import type { Store } from '../store/store.ts';
import { counterIncrements, type UsageEvent, usageIncrements } from './usage.ts';

export interface UsageBatch {
  /**
   * Counts one call: in memory until the next flush (resolves at once); with `flushIntervalMs: 0`, or once closed,
   * written now (resolves when written). Never rejects.
   */
  add(event: UsageEvent): Promise<void>;
  /** Writes what is counted so far; what cannot be written is lost (a lost count must not fail anything). */
  flush(): Promise<void>;
  /** Stops the timer and flushes. Later `add`s are written at once. */
  close(): Promise<void>;
}

const DAY_MS = 86_400_000;

/** The calls of one agent, tool, provider and day held in memory, added up. */
interface Held {
  time: number;
  event: UsageEvent;
  calls: number;
  cacheHits: number;
  credits: number;
  errors: Map<NonNullable<UsageEvent['errorCode']>, number>;
}

/**
 * The usage counters off the response path: each call adds to totals in memory (no key is built, nothing is
 * written), and every `flushIntervalMs` one increment per counter goes to the store (a hundred calls of one agent
 * and tool make one write, not a hundred). Exact across processes (increments add up); a graceful close writes
 * everything; a process killed outright loses at most one interval.
 */
export function createUsageBatch(
  store: () => Promise<Store>,
  config: UsageConfig,
  now: () => number = Date.now,
): UsageBatch {
  let pending = new Map<string, Held>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let flushing: Promise<void> = Promise.resolve();

  async function write(increments: Array<[string, number, number]>): Promise<void> {
    if (increments.length === 0) return;
    let opened: Store;
    try {
      opened = await store();
    } catch {
      return; // the store could not be opened: these counts are lost, the calls' results stand
    }
    await Promise.all(
      increments.map(([key, by, ttlMs]) => opened.increment(key, by, { ttlMs }).catch(() => 0)),
    );
  }

  /** The held totals as counter increments, one per counter. */
  function incrementsOf(batch: Map<string, Held>): Array<[string, number, number]> {
    return [...batch.values()].flatMap((held) => {
      const metrics: Array<[string, number]> = [['calls', held.calls]];
      if (held.cacheHits !== 0) metrics.push(['cacheHits', held.cacheHits]);
      if (held.credits !== 0) metrics.push(['credits', held.credits]);
      for (const [code, count] of held.errors) metrics.push([`errors.${code}`, count]);
      return counterIncrements(config, held.event, held.time, metrics);
    });
  }

  function flush(): Promise<void> {
    const batch = pending;
    pending = new Map();
    // One flush at a time, in order: a close waits for the timer's flush still writing.
    flushing = flushing.then(() => write(incrementsOf(batch)));
    return flushing;
  }

  return {
    add(event) {
      const time = now();
      if (config.flushIntervalMs === 0 || closed) return write(usageIncrements(config, event, time));
      const id = `${Math.floor(time / DAY_MS)}\n${event.agentId}\n${event.tool}\n${event.provider}`;
      let held = pending.get(id);
      if (held === undefined) {
        held = { time, event, calls: 0, cacheHits: 0, credits: 0, errors: new Map() };
        pending.set(id, held);
      }
      held.calls += 1;
      if (event.cached) held.cacheHits += 1;
      held.credits += event.credits;
      if (event.errorCode) held.errors.set(event.errorCode, (held.errors.get(event.errorCode) ?? 0) + 1);
      timer ??= setTimeout(() => {
        timer = undefined;
        void flush();
      }, config.flushIntervalMs).unref();
      return Promise.resolve();
    },
    flush,
    async close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      await flush();
    },
  };
}
