import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { decideWindow, type WindowBucket } from './sliding-window.ts';
import { sqliteFailure } from './sqlite-errors.ts';
import { prepareStatements, SCHEMA_VERSION, SQLITE_SCHEMA, TURN_TABLE } from './sqlite-schema.ts';
import { createSqliteWriter, type SqliteWriter } from './sqlite-writer.ts';
import type {
  ConsumeResult,
  IncrementWithinResult,
  LedgerApplyResult,
  LedgerEntry,
  LedgerEntryInput,
  SetOptions,
  Store,
  TurnOutcome,
  TurnStep,
} from './store.ts';
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
  storeUnavailable,
  toJson,
} from './store-errors.ts';
import { checkTurnStep, decideTurn, type TurnState } from './turn-slots.ts';

export interface SqliteStoreSettings {
  /** The database file; its directory is created when missing. */
  path: string;
  /** How long to wait for another process's write to finish before failing with TIMEOUT. Default 5000. */
  busyTimeoutMs?: number;
  /**
   * `set` on a thread of its own (sqlite-writer.ts), off the event loop: for a long-running server, where page-cache
   * entries are written on every call. Default false (a one-shot command would only pay the thread's start).
   */
  writerThread?: boolean;
}

/** Expired values and windows of every key are deleted every this many writes (and on open). */
const SWEEP_EVERY = 512;

type Row = Record<string, unknown>;

/**
 * The embedded default store: one SQLite file through `node:sqlite`, shared safely by every process that opens it.
 *
 * Concurrency: WAL journal (readers never wait for the writer), and every read-modify-write runs in a
 * `BEGIN IMMEDIATE` transaction, which takes the file's write lock before reading, so two processes can never
 * both read a balance or a window and then both write it. A process that finds the lock taken waits up to
 * `busyTimeoutMs` (SQLite's busy handler); inside one process the synchronous API runs each operation to the
 * end before the next starts. Needs a local file system (WAL uses shared memory; not NFS).
 *
 * Durability: `synchronous=NORMAL` with WAL: a committed transaction survives the process being killed at any
 * point; after an OS crash or power loss the last few commits may roll back (the file stays consistent).
 */
export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly location: string;
  readonly #busyTimeoutMs: number;
  readonly #db: DatabaseSync;
  readonly #statements: ReturnType<typeof prepareStatements>;
  readonly #writer: SqliteWriter | undefined;
  #writes = 0;

  constructor(settings: SqliteStoreSettings) {
    this.location = settings.path;
    this.#busyTimeoutMs = settings.busyTimeoutMs ?? 5000;
    this.#db = this.#open();
    try {
      this.#migrate();
      this.#statements = prepareStatements(this.#db);
      this.#sweep();
      this.#writer = settings.writerThread
        ? createSqliteWriter({
            path: this.location,
            busyTimeoutMs: this.#busyTimeoutMs,
            sweepEvery: SWEEP_EVERY,
          })
        : undefined;
    } catch (error) {
      this.#db.close();
      throw sqliteFailure(error, this.location, this.#busyTimeoutMs, 'opening');
    }
  }

  async get<VALUE>(key: string): Promise<VALUE | undefined> {
    checkKey(key);
    const row = this.#run('reading', () => this.#statements.get.get(key) as Row | undefined);
    if (row === undefined || isExpired(row.expires_at, Date.now())) return undefined;
    return JSON.parse(row.value as string) as VALUE;
  }

  async set(key: string, value: unknown, options?: SetOptions): Promise<void> {
    checkKey(key);
    const ttlMs = checkTtl(options);
    const json = toJson(key, value);
    if (this.#writer) {
      if (!this.#db.isOpen) throw storeClosed('sqlite', this.location);
      const expiresAtMs = ttlMs === undefined ? null : Date.now() + ttlMs;
      try {
        await this.#writer.put(key, json, expiresAtMs);
      } catch (error) {
        throw sqliteFailure(error, this.location, this.#busyTimeoutMs, 'writing');
      }
      return;
    }
    this.#write('writing', (nowMs) => {
      this.#statements.put.run(key, json, ttlMs === undefined ? null : nowMs + ttlMs);
    });
  }

  async delete(key: string): Promise<boolean> {
    checkKey(key);
    return this.#write('deleting', (nowMs) => {
      const row = this.#statements.remove.get(key) as Row | undefined;
      return row !== undefined && !isExpired(row.expires_at, nowMs);
    });
  }

  async keys(prefix: string): Promise<string[]> {
    checkPrefix(prefix);
    return this.#run('listing keys', () => {
      const found: string[] = [];
      // Keys sort by their bytes, so the ones with `prefix` are one run starting at `prefix`.
      for (const row of this.#statements.keysFrom.iterate(prefix, Date.now()) as Iterable<Row>) {
        const key = row.key as string;
        if (!key.startsWith(prefix)) break;
        found.push(key);
      }
      return found;
    });
  }

  async consume(key: string, amount: number, limit: number, windowMs: number): Promise<ConsumeResult> {
    checkKey(key);
    checkConsume(amount, limit, windowMs);
    return this.#write('consuming', (nowMs) => {
      const statements = this.#statements;
      statements.dropExpiredBuckets.run(key, nowMs);
      const buckets = statements.buckets.all(key) as unknown as WindowBucket[];
      const decision = decideWindow(buckets, amount, limit, windowMs, nowMs);
      if (decision.allowed && amount > 0)
        statements.addToBucket.run(key, decision.bucketStartMs, amount, decision.expiresAtMs);
      const { allowed, used, remaining, retryAfterMs } = decision;
      return { allowed, used, remaining, limit, retryAfterMs };
    });
  }

  async increment(key: string, by: number, options?: SetOptions): Promise<number> {
    checkKey(key);
    checkIncrement(by);
    const ttlMs = checkTtl(options);
    return this.#write('incrementing', (nowMs) => {
      const row = this.#statements.get.get(key) as Row | undefined;
      const current = row === undefined || isExpired(row.expires_at, nowMs) ? undefined : row;
      const value =
        counterValue(key, current === undefined ? undefined : JSON.parse(current.value as string)) + by;
      const expiresAt =
        current === undefined ? (ttlMs === undefined ? null : nowMs + ttlMs) : current.expires_at;
      this.#statements.put.run(key, JSON.stringify(value), expiresAt as number | null);
      return value;
    });
  }

  async incrementWithin(
    key: string,
    amounts: Readonly<Record<string, number>>,
    limits: Readonly<Record<string, number>>,
    options?: SetOptions,
  ): Promise<IncrementWithinResult> {
    checkKey(key);
    checkIncrementWithin(amounts, limits);
    const ttlMs = checkTtl(options);
    return this.#write('incrementing', (nowMs): IncrementWithinResult => {
      const row = this.#statements.get.get(key) as Row | undefined;
      const current = row === undefined || isExpired(row.expires_at, nowMs) ? undefined : row;
      const counters = countersValue(
        key,
        current === undefined ? undefined : JSON.parse(current.value as string),
      );
      const step = stepCounters(counters, amounts, limits);
      if (!step.applied) return { applied: false, values: counters, over: step.over };
      const expiresAt =
        ttlMs === undefined ? ((current?.expires_at as number | null | undefined) ?? null) : nowMs + ttlMs;
      this.#statements.put.run(key, JSON.stringify(step.values), expiresAt);
      return { applied: true, values: step.values };
    });
  }

  async ledgerApply(agent: string, input: LedgerEntryInput): Promise<LedgerApplyResult> {
    checkLedgerEntry(agent, input);
    return this.#write('applying a credit change', (nowMs) => {
      const row = this.#statements.balance.get(agent) as Row | undefined;
      const balance = (row?.balance as number | undefined) ?? 0;
      const balanceAfter = balance + input.delta;
      if (input.requireNonNegative && input.delta < 0 && balanceAfter < 0) return { applied: false, balance };
      const entry: LedgerEntry = {
        id: randomUUID(),
        agent,
        tool: input.tool ?? null,
        delta: input.delta,
        balanceAfter,
        at: new Date(nowMs).toISOString(),
        reason: input.reason,
      };
      this.#statements.append.run(
        entry.id,
        agent,
        entry.tool,
        entry.delta,
        balanceAfter,
        entry.at,
        entry.reason,
      );
      this.#statements.setBalance.run(agent, balanceAfter);
      return { applied: true, balance: balanceAfter, entry };
    });
  }

  async balance(agent: string): Promise<number> {
    checkKey(agent, 'agent');
    const row = this.#run('reading a balance', () => this.#statements.balance.get(agent) as Row | undefined);
    return (row?.balance as number | undefined) ?? 0;
  }

  async ledger(agent: string, options?: { limit?: number }): Promise<LedgerEntry[]> {
    checkKey(agent, 'agent');
    const limit = checkLedgerLimit(options) ?? -1;
    const rows = this.#run('reading the ledger', () => this.#statements.ledger.all(agent, limit) as Row[]);
    return rows.map((row) => ({
      id: row.id as string,
      agent: row.agent as string,
      tool: row.tool as string | null,
      delta: row.delta as number,
      balanceAfter: row.balance_after as number,
      at: row.at as string,
      reason: row.reason as string,
    }));
  }

  async rebuildBalance(agent: string): Promise<number> {
    checkKey(agent, 'agent');
    return this.#write('rebuilding a balance', () => {
      const sum = (this.#statements.ledgerSum.get(agent) as Row).total as number;
      this.#statements.setBalance.run(agent, sum);
      return sum;
    });
  }

  async agents(): Promise<string[]> {
    const rows = this.#run('listing agents', () => this.#statements.agents.all() as Row[]);
    return rows.map((row) => row.agent as string);
  }

  async close(): Promise<void> {
    if (!this.#db.isOpen) return;
    this.#db.close();
    await this.#writer?.close();
  }

  async turn(key: string, step: TurnStep): Promise<TurnOutcome> {
    checkKey(key);
    checkTurnStep(step);
    return this.#write('taking a turn', (nowMs) => {
      const row = this.#statements.turn.get(key, nowMs) as Row | undefined;
      const current = row === undefined ? undefined : (JSON.parse(row.state as string) as TurnState);
      const decision = decideTurn(current, step, randomUUID(), nowMs);
      if (decision.state !== undefined)
        this.#statements.putTurn.run(key, JSON.stringify(decision.state), decision.expiresAtMs);
      return decision.outcome;
    });
  }

  #open(): DatabaseSync {
    try {
      mkdirSync(dirname(this.location), { recursive: true, mode: 0o700 });
      const db = new DatabaseSync(this.location);
      try {
        db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(this.#busyTimeoutMs))}`);
        const mode = db.prepare('PRAGMA journal_mode = WAL').get() as Row | undefined;
        if (mode?.journal_mode !== 'wal')
          throw new Error(`journal_mode is ${String(mode?.journal_mode)}, not wal`);
        db.exec('PRAGMA synchronous = NORMAL');
      } catch (error) {
        db.close();
        throw error;
      }
      return db;
    } catch (error) {
      throw sqliteFailure(error, this.location, this.#busyTimeoutMs, 'opening');
    }
  }

  #migrate(): void {
    this.#transaction(() => {
      this.#db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
      const row = this.#db.prepare('SELECT max(version) AS version FROM schema_version').get() as Row;
      const version = row.version as number | null;
      if (version === null) {
        this.#db.exec(SQLITE_SCHEMA);
        this.#db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(SCHEMA_VERSION);
      } else if (version > SCHEMA_VERSION) {
        throw storeUnavailable(
          'CONFIG_INVALID',
          'sqlite',
          `SQLite store ${this.location} was written by a newer Periscope (schema ${version}, this one knows ${SCHEMA_VERSION}): upgrade Periscope or set store.url to another file.`,
        );
      }
      this.#db.exec(TURN_TABLE); // a file made before the table existed gets it
    });
  }

  #sweep(): void {
    this.#transaction(() => {
      const nowMs = Date.now();
      this.#statements.sweepValues.run(nowMs);
      this.#statements.sweepBuckets.run(nowMs);
      this.#statements.sweepTurns.run(nowMs);
    });
  }

  /** A read-modify-write under the file's write lock; expired rows are swept now and then. */
  #write<RESULT>(operation: string, step: (nowMs: number) => RESULT): RESULT {
    return this.#run(operation, () => {
      const result = this.#transaction(() => step(Date.now()));
      if (++this.#writes % SWEEP_EVERY === 0) {
        try {
          this.#sweep();
        } catch {
          // Housekeeping only: the next sweep tries again, and expired rows are never read as live.
        }
      }
      return result;
    });
  }

  #transaction<RESULT>(step: () => RESULT): RESULT {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const result = step();
      this.#db.exec('COMMIT');
      return result;
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      throw error;
    }
  }

  #run<RESULT>(operation: string, step: () => RESULT): RESULT {
    if (!this.#db.isOpen) throw storeClosed('sqlite', this.location);
    try {
      return step();
    } catch (error) {
      throw sqliteFailure(error, this.location, this.#busyTimeoutMs, operation);
    }
  }
}

export function createSqliteStore(settings: SqliteStoreSettings): SqliteStore {
  return new SqliteStore(settings);
}

function isExpired(expiresAt: unknown, nowMs: number): boolean {
  return typeof expiresAt === 'number' && expiresAt <= nowMs;
}
