import { randomUUID } from 'node:crypto';
import { decideWindow, type WindowBucket } from './sliding-window.ts';
import type { ConsumeResult, IncrementWithinResult, LedgerApplyResult, LedgerEntry, Store } from './store.ts';
import {
  checkConsume,
  checkIncrement,
  checkIncrementWithin,
  checkKey,
  checkLedgerEntry,
  checkLedgerLimit,
  checkPrefix,
  checkTtl,
  countersValue,
  counterValue,
  stepCounters,
  storeClosed,
  toJson,
} from './store-errors.ts';
import { checkTurnStep, decideTurn, type TurnState } from './turn-slots.ts';

interface Entry {
  /** JSON text, so a caller never shares a mutable object with the store. */
  json: string;
  expiresAtMs: number | undefined;
}

interface Account {
  balance: number;
  entries: LedgerEntry[];
}

/** Expired values and windows are dropped when read, and all at once every this many writes. */
const SWEEP_EVERY = 1024;

/** A store in this process's memory: for tests and single-process use. State is lost on exit. */
export function createMemoryStore(): Store {
  const values = new Map<string, Entry>();
  const windows = new Map<string, WindowBucket[]>();
  const accounts = new Map<string, Account>();
  const turns = new Map<string, TurnState>();
  let closed = false;
  let writes = 0;

  function open(): void {
    if (closed) throw storeClosed('memory', 'memory:');
  }

  function afterWrite(nowMs: number): void {
    if (++writes % SWEEP_EVERY !== 0) return;
    for (const [key, entry] of values) if (isExpired(entry, nowMs)) values.delete(key);
    for (const [key, buckets] of windows) if (live(buckets, nowMs).length === 0) windows.delete(key);
  }

  function isExpired(entry: Entry, nowMs: number): boolean {
    return entry.expiresAtMs !== undefined && entry.expiresAtMs <= nowMs;
  }

  function read(key: string, nowMs: number): Entry | undefined {
    const entry = values.get(key);
    if (entry === undefined || !isExpired(entry, nowMs)) return entry;
    values.delete(key);
    return undefined;
  }

  function live(buckets: WindowBucket[], nowMs: number): WindowBucket[] {
    return buckets.filter((bucket) => bucket.expiresAtMs > nowMs);
  }

  function account(agent: string): Account {
    let found = accounts.get(agent);
    if (found === undefined) {
      found = { balance: 0, entries: [] };
      accounts.set(agent, found);
    }
    return found;
  }

  return {
    kind: 'memory',
    location: 'memory:',

    async get<VALUE>(key: string): Promise<VALUE | undefined> {
      open();
      checkKey(key);
      const entry = read(key, Date.now());
      return entry === undefined ? undefined : (JSON.parse(entry.json) as VALUE);
    },

    async set(key, value, options) {
      open();
      checkKey(key);
      const ttlMs = checkTtl(options);
      const nowMs = Date.now();
      values.set(key, {
        json: toJson(key, value),
        expiresAtMs: ttlMs === undefined ? undefined : nowMs + ttlMs,
      });
      afterWrite(nowMs);
    },

    async delete(key) {
      open();
      checkKey(key);
      const existed = read(key, Date.now()) !== undefined;
      values.delete(key);
      return existed;
    },

    async keys(prefix) {
      open();
      checkPrefix(prefix);
      const nowMs = Date.now();
      return [...values.keys()].filter((key) => key.startsWith(prefix) && read(key, nowMs) !== undefined);
    },

    async consume(key, amount, limit, windowMs): Promise<ConsumeResult> {
      open();
      checkKey(key);
      checkConsume(amount, limit, windowMs);
      const nowMs = Date.now();
      const buckets = live(windows.get(key) ?? [], nowMs);
      const decision = decideWindow(buckets, amount, limit, windowMs, nowMs);
      if (decision.allowed && amount > 0) {
        const current = buckets.find((bucket) => bucket.startMs === decision.bucketStartMs);
        if (current === undefined) {
          buckets.push({ startMs: decision.bucketStartMs, amount, expiresAtMs: decision.expiresAtMs });
        } else {
          current.amount += amount;
          current.expiresAtMs = Math.max(current.expiresAtMs, decision.expiresAtMs);
        }
      }
      if (buckets.length > 0) windows.set(key, buckets);
      else windows.delete(key);
      afterWrite(nowMs);
      const { allowed, used, remaining, retryAfterMs } = decision;
      return { allowed, used, remaining, limit, retryAfterMs };
    },

    async increment(key, by, options) {
      open();
      checkKey(key);
      checkIncrement(by);
      const ttlMs = checkTtl(options);
      const nowMs = Date.now();
      const entry = read(key, nowMs);
      const value = counterValue(key, entry === undefined ? undefined : JSON.parse(entry.json)) + by;
      const expiresAtMs =
        entry === undefined ? (ttlMs === undefined ? undefined : nowMs + ttlMs) : entry.expiresAtMs;
      values.set(key, { json: JSON.stringify(value), expiresAtMs });
      afterWrite(nowMs);
      return value;
    },

    async incrementWithin(key, amounts, limits, options): Promise<IncrementWithinResult> {
      open();
      checkKey(key);
      checkIncrementWithin(amounts, limits);
      const ttlMs = checkTtl(options);
      const nowMs = Date.now();
      const entry = read(key, nowMs);
      const counters = countersValue(key, entry === undefined ? undefined : JSON.parse(entry.json));
      const step = stepCounters(counters, amounts, limits);
      if (!step.applied) return { applied: false, values: counters, over: step.over };
      const expiresAtMs = ttlMs === undefined ? entry?.expiresAtMs : nowMs + ttlMs;
      values.set(key, { json: JSON.stringify(step.values), expiresAtMs });
      afterWrite(nowMs);
      return { applied: true, values: step.values };
    },

    async ledgerApply(agent, input): Promise<LedgerApplyResult> {
      open();
      checkLedgerEntry(agent, input);
      const found = account(agent);
      const balanceAfter = found.balance + input.delta;
      if (input.requireNonNegative && input.delta < 0 && balanceAfter < 0)
        return { applied: false, balance: found.balance };
      const entry: LedgerEntry = {
        id: randomUUID(),
        agent,
        tool: input.tool ?? null,
        delta: input.delta,
        balanceAfter,
        at: new Date().toISOString(),
        reason: input.reason,
      };
      found.entries.push(entry);
      found.balance = balanceAfter;
      return { applied: true, balance: balanceAfter, entry: { ...entry } };
    },

    async balance(agent) {
      open();
      checkKey(agent, 'agent');
      return accounts.get(agent)?.balance ?? 0;
    },

    async ledger(agent, options) {
      open();
      checkKey(agent, 'agent');
      const limit = checkLedgerLimit(options);
      const entries = accounts.get(agent)?.entries ?? [];
      const chosen = limit === undefined ? entries : limit === 0 ? [] : entries.slice(-limit);
      return chosen.map((entry) => ({ ...entry }));
    },

    async rebuildBalance(agent) {
      open();
      checkKey(agent, 'agent');
      const found = accounts.get(agent);
      if (found === undefined) return 0;
      found.balance = found.entries.reduce((sum, entry) => sum + entry.delta, 0);
      return found.balance;
    },

    async agents() {
      open();
      return [...accounts.keys()];
    },

    async close() {
      closed = true;
      values.clear();
      windows.clear();
      accounts.clear();
      turns.clear();
    },

    async turn(key, step) {
      open();
      checkKey(key);
      checkTurnStep(step);
      const nowMs = Date.now();
      const decision = decideTurn(turns.get(key), step, randomUUID(), nowMs);
      if (decision.state !== undefined) turns.set(key, decision.state);
      else if (decision.expiresAtMs <= nowMs) turns.delete(key);
      return decision.outcome;
    },
  };
}
