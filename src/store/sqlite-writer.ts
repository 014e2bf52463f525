import { Worker } from 'node:worker_threads';
import { PUT_VALUE_SQL, SWEEP_VALUES_SQL } from './sqlite-schema.ts';

/**
 * The SQLite store's value writes on a thread of their own, for a long-running process (`periscope serve`, the MCP
 * server): a page-cache entry is tens of kilobytes, and writing it (WAL frames, the busy wait when another process
 * holds the lock) on the event loop held every other call up — about a tenth of a millisecond a page, up to
 * `busyTimeoutMs` under contention. The thread has its own connection to the same file (WAL: readers on the main
 * connection see each write once it has committed); writes run in the order they were given, each in its own
 * transaction, and a write's promise settles once it has committed (or failed), so `await store.set(...)` means
 * what it means without the thread. Expired values are swept every `sweepEvery` writes here too.
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
parentPort.on('message', ({ id, key, json, expiresAtMs }) => {
  if (failure) return parentPort.postMessage({ id, failure: describe(failure) });
  try {
    db.exec('BEGIN IMMEDIATE');
    try {
      put.run(key, json, expiresAtMs);
      db.exec('COMMIT');
    } catch (error) {
      if (db.isTransaction) db.exec('ROLLBACK');
      throw error;
    }
    parentPort.postMessage({ id });
  } catch (error) {
    return parentPort.postMessage({ id, failure: describe(error) });
  }
  if (++writes % sweepEvery === 0) {
    try { sweep.run(Date.now()); } catch {}
  }
});
`;

export function createSqliteWriter(settings: SqliteWriterSettings): SqliteWriter {
  const pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  let nextId = 0;
  let stopped: Error | undefined;
  const worker = new Worker(THREAD, {
    eval: true,
    workerData: { ...settings, putSql: PUT_VALUE_SQL, sweepSql: SWEEP_VALUES_SQL },
  });
  // An idle writer does not keep the process alive; one with writes in flight does (see `put`).
  worker.unref();
  worker.on('message', ({ id, failure }: Reply) => {
    const waiting = pending.get(id);
    if (!waiting) return;
    pending.delete(id);
    if (pending.size === 0) worker.unref();
    if (failure) waiting.reject(Object.assign(new Error(failure.message), failure));
    else waiting.resolve();
  });
  const fail = (error: Error) => {
    stopped ??= error;
    for (const waiting of pending.values()) waiting.reject(stopped);
    pending.clear();
  };
  worker.on('error', fail);
  worker.on('exit', () => fail(new Error('the SQLite writer thread stopped')));

  // Writes commit in the order given, so the newest one settling means every one before it has.
  let last: Promise<unknown> = Promise.resolve();
  return {
    put(key, json, expiresAtMs) {
      if (stopped) return Promise.reject(stopped);
      const id = nextId++;
      const written = new Promise<void>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        if (pending.size === 1) worker.ref();
        worker.postMessage({ id, key, json, expiresAtMs });
      });
      last = written.catch(() => undefined);
      return written;
    },
    async close() {
      await last;
      stopped ??= new Error('the SQLite store is closed');
      await worker.terminate();
    },
  };
}
