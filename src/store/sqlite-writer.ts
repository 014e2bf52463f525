import { Worker } from 'node:worker_threads';
import { PUT_VALUE_SQL, SWEEP_VALUES_SQL } from './sqlite-schema.ts';

/**
 * The SQLite store's value writes on a thread of their own, for a long-running process (`periscope serve`, the MCP
 * server): a page-cache entry is tens of kilobytes, and writing it (WAL frames, the busy wait when another process
 * holds the lock) on the event loop held every other call up — about a tenth of a millisecond a page, up to
 * `busyTimeoutMs` under contention. The thread has its own connection to the same file (WAL: readers on the main
 * connection see each write once it has committed). Writes are batched: those given during one turn of the event
 * loop go to the thread together, in one message, once the turn is over (setImmediate), and commit together in
 * one transaction, in the order they were given — so they succeed or fail together; a busy gateway finishing many
 * calls a turn pays one message and one commit for all of them. A write's promise settles once it has committed
 * (or failed), so `await store.set(...)` means what it means without the thread. Expired values are swept every
 * `sweepEvery` writes here too.
 */
export interface SqliteWriter {
  /** Writes `json` under `key` (expiring at `expiresAtMs`, or never). Rejects with the SQLite error. */
  put(key: string, json: string, expiresAtMs: number | null): Promise<void>;
  /** Waits for the writes given so far, then stops the thread. */
  close(): Promise<void>;
}

export interface SqliteWriterSettings {
  path: string;
  busyTimeoutMs: number;
  sweepEvery: number;
}

/** What a failed write sends back: enough of node:sqlite's error for `sqliteFailure` to name the cause. */
interface WriteFailure {
  message: string;
  code?: string;
  errcode?: number;
  errstr?: string;
}

type Reply = { id: number; failure?: WriteFailure };

interface QueuedWrite {
  key: string;
  json: string;
  expiresAtMs: number | null;
}

// Plain JavaScript (an eval'd worker is not type-stripped), the same from src/ and from dist/.
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const { path, busyTimeoutMs, sweepEvery, putSql, sweepSql } = workerData;
let db, put, sweep, failure, writes = 0;
try {
  db = new DatabaseSync(path);
  db.exec('PRAGMA busy_timeout = ' + Math.max(0, Math.floor(busyTimeoutMs)));
  db.exec('PRAGMA synchronous = NORMAL');
  put = db.prepare(putSql);
  sweep = db.prepare(sweepSql);
} catch (error) {
  failure = error;
}
const describe = (error) => ({
  message: String(error && error.message || error),
  code: error && typeof error.code === 'string' ? error.code : undefined,
  errcode: error && typeof error.errcode === 'number' ? error.errcode : undefined,
  errstr: error && typeof error.errstr === 'string' ? error.errstr : undefined,
});
parentPort.on('message', ({ id, batch }) => {
  if (failure) return parentPort.postMessage({ id, failure: describe(failure) });
  try {
    db.exec('BEGIN IMMEDIATE');
    try {
      for (const { key, json, expiresAtMs } of batch) put.run(key, json, expiresAtMs);
      db.exec('COMMIT');
    } catch (error) {
      if (db.isTransaction) db.exec('ROLLBACK');
      throw error;
    }
    parentPort.postMessage({ id });
  } catch (error) {
    return parentPort.postMessage({ id, failure: describe(error) });
  }
  const before = writes;
  writes += batch.length;
  if (Math.floor(writes / sweepEvery) > Math.floor(before / sweepEvery)) {
    try { sweep.run(Date.now()); } catch {}
  }
});
`;

export function createSqliteWriter(settings: SqliteWriterSettings): SqliteWriter {
  /** Batches sent, by id: each write's promise settles with its batch. */
  const sent = new Map<number, Array<{ resolve: () => void; reject: (error: Error) => void }>>();
  /** Writes given this turn, sent at the end of it. */
  let queued: QueuedWrite[] = [];
  let waiting: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  let nextId = 0;
  let stopped: Error | undefined;
  const worker = new Worker(THREAD, {
    eval: true,
    workerData: { ...settings, putSql: PUT_VALUE_SQL, sweepSql: SWEEP_VALUES_SQL },
  });
  // An idle writer does not keep the process alive; one with writes in flight does (see `send`).
  worker.unref();
  worker.on('message', ({ id, failure }: Reply) => {
    const batch = sent.get(id);
    if (!batch) return;
    sent.delete(id);
    if (sent.size === 0) worker.unref();
    if (failure) {
      const error = Object.assign(new Error(failure.message), failure);
      for (const write of batch) write.reject(error);
    } else for (const write of batch) write.resolve();
  });
  const fail = (error: Error) => {
    stopped ??= error;
    for (const batch of sent.values()) for (const write of batch) write.reject(stopped);
    sent.clear();
  };
  worker.on('error', fail);
  worker.on('exit', () => fail(new Error('the SQLite writer thread stopped')));

  // Batches commit in the order sent, so the newest one settling means every one before it has.
  let last: Promise<unknown> = Promise.resolve();
  function send(): void {
    if (queued.length === 0) return;
    const batch = queued;
    const settle = waiting;
    queued = [];
    waiting = [];
    if (stopped) {
      for (const write of settle) write.reject(stopped);
      return;
    }
    const id = nextId++;
    sent.set(id, settle);
    if (sent.size === 1) worker.ref();
    last = new Promise<void>((resolve) => {
      const whenDone = () => resolve();
      settle.push({ resolve: whenDone, reject: whenDone });
    });
    worker.postMessage({ id, batch });
  }

  return {
    put(key, json, expiresAtMs) {
      if (stopped) return Promise.reject(stopped);
      return new Promise<void>((resolve, reject) => {
        if (queued.length === 0) setImmediate(send);
        queued.push({ key, json, expiresAtMs });
        waiting.push({ resolve, reject });
      });
    },
    async close() {
      send(); // what this turn gave, now
      await last;
      stopped ??= new Error('the SQLite store is closed');
      await worker.terminate();
    },
  };
}
