import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, test } from 'node:test';
import { isPeriscopeError } from '../errors.ts';
import { storeConformanceSuite } from '../testing/store-conformance.ts';
import {
  checkSharedTurns,
  runWorkersTogether,
  spawnStoreWorker,
  type TurnSpans,
  type WorkerSpec,
} from '../testing/store-processes.ts';
import { createSqliteStore } from './sqlite-store.ts';
import { STORE_UNAVAILABLE } from './store-errors.ts';

const dir = mkdtempSync(join(tmpdir(), 'periscope-sqlite-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshPath = (): string => join(dir, `state-${++files}.db`);

storeConformanceSuite('sqlite', async () => createSqliteStore({ path: freshPath() }));
storeConformanceSuite('sqlite with its writer thread', async () =>
  createSqliteStore({ path: freshPath(), writerThread: true }),
);

describe('sqlite store: the file', () => {
  test('state survives reopening; the schema is versioned; WAL is on; directories are created', async () => {
    const path = join(dir, 'nested', 'deeper', 'state.db');
    const first = createSqliteStore({ path });
    await first.set('kept', { a: 1 });
    await first.ledgerApply('agent', { delta: 9, reason: 'grant', requireNonNegative: false });
    await first.close();
    const second = createSqliteStore({ path });
    assert.deepEqual(await second.get('kept'), { a: 1 });
    assert.equal(await second.balance('agent'), 9);
    await second.close();
    const raw = new DatabaseSync(path);
    assert.deepEqual({ ...raw.prepare('SELECT version FROM schema_version').get() }, { version: 1 });
    assert.equal(raw.prepare('PRAGMA journal_mode').get()?.journal_mode, 'wal');
    raw.close();
  });

  test('the ledger table refuses UPDATE and DELETE: it is append-only', async () => {
    const path = freshPath();
    const store = createSqliteStore({ path });
    await store.ledgerApply('agent', { delta: 5, reason: 'grant', requireNonNegative: false });
    await store.close();
    const raw = new DatabaseSync(path);
    assert.throws(() => raw.exec('UPDATE credit_ledger SET delta = 500'), /append-only/);
    assert.throws(() => raw.exec('DELETE FROM credit_ledger'), /append-only/);
    raw.close();
  });

  test('a file that is not a database: one CONFIG_INVALID error naming the path and what to do', () => {
    const path = join(dir, 'corrupt.db');
    writeFileSync(path, 'this is not a SQLite database\n'.repeat(200));
    assert.throws(
      () => createSqliteStore({ path }),
      (error: unknown) =>
        isPeriscopeError(error) &&
        error.code === 'CONFIG_INVALID' &&
        error.details.reason === STORE_UNAVAILABLE &&
        error.message.includes(path) &&
        /not a SQLite database/.test(error.message) &&
        /move it aside/.test(error.message) &&
        !error.message.includes('\n'),
    );
  });

  test('a database with damaged pages: the same CONFIG_INVALID error, naming the path', async () => {
    const path = freshPath();
    const store = createSqliteStore({ path });
    for (let index = 0; index < 100; index++) await store.set(`key-${index}`, 'x'.repeat(500));
    await store.close();
    const file = openSync(path, 'r+');
    writeSync(file, Buffer.alloc(8192, 0x5a), 0, 8192, 4096);
    closeSync(file);
    assert.throws(
      () => createSqliteStore({ path }),
      (error: unknown) =>
        isPeriscopeError(error) &&
        error.code === 'CONFIG_INVALID' &&
        error.message.includes(path) &&
        /damaged/.test(error.message),
    );
  });

  test('a file made before shared turns existed gets their table when opened', async () => {
    const path = freshPath();
    await createSqliteStore({ path }).close();
    const raw = new DatabaseSync(path);
    raw.exec('DROP TABLE turn');
    raw.close();
    const store = createSqliteStore({ path });
    const outcome = await store.turn('k', { reserve: { intervalMs: 10, leaseMs: 1000 } });
    assert.equal(outcome.outcome, 'granted');
    await store.close();
  });

  test('a file written by a newer schema is refused, not changed', () => {
    const path = freshPath();
    createSqliteStore({ path }).close();
    const raw = new DatabaseSync(path);
    raw.exec('INSERT INTO schema_version (version) VALUES (99)');
    raw.close();
    assert.throws(
      () => createSqliteStore({ path }),
      (error: unknown) =>
        isPeriscopeError(error) && error.code === 'CONFIG_INVALID' && /newer Periscope/.test(error.message),
    );
  });

  test('a file locked by another connection: TIMEOUT after busyTimeoutMs, naming the path; fine once released', async () => {
    const path = freshPath();
    const store = createSqliteStore({ path, busyTimeoutMs: 150 });
    const holder = new DatabaseSync(path);
    holder.exec('BEGIN EXCLUSIVE');
    const started = Date.now();
    await assert.rejects(
      store.consume('k', 1, 5, 1000),
      (error: unknown) =>
        isPeriscopeError(error) &&
        error.code === 'TIMEOUT' &&
        error.details.reason === STORE_UNAVAILABLE &&
        error.message.includes(path) &&
        /locked/.test(error.message),
    );
    assert.ok(Date.now() - started >= 140);
    assert.throws(
      () => createSqliteStore({ path, busyTimeoutMs: 100 }),
      (error: unknown) => isPeriscopeError(error) && error.code === 'TIMEOUT' && error.message.includes(path),
    );
    holder.exec('ROLLBACK');
    holder.close();
    assert.equal((await store.consume('k', 1, 5, 1000)).allowed, true);
    await store.close();
  });

  test('writer thread: a value set is read back at once, by this connection and by a new one; close waits for writes', async () => {
    const path = freshPath();
    const store = createSqliteStore({ path, writerThread: true });
    const page = { text: 'x'.repeat(30_000), storedAt: 1 };
    await store.set('cache:page', page, { ttlMs: 60_000 });
    assert.deepEqual(await store.get('cache:page'), page);
    // Given and not awaited, in order: the last one wins, and close() returns only once all are in the file.
    const writes = Array.from({ length: 50 }, (_, index) => store.set('cache:order', index));
    await store.close();
    await Promise.all(writes);
    const reader = new DatabaseSync(path);
    const row = reader.prepare('SELECT value FROM kv WHERE key = ?').get('cache:order') as { value: string };
    reader.close();
    assert.equal(row.value, '49');
    await assert.rejects(store.set('cache:late', 1), (error: unknown) => isPeriscopeError(error));
  });

  test('writer thread: a file locked by another connection is TIMEOUT naming the path, and the event loop runs meanwhile', async () => {
    const path = freshPath();
    const store = createSqliteStore({ path, busyTimeoutMs: 300, writerThread: true });
    const holder = new DatabaseSync(path);
    holder.exec('BEGIN EXCLUSIVE');
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    await assert.rejects(
      store.set('cache:blocked', { a: 1 }),
      (error: unknown) =>
        isPeriscopeError(error) &&
        error.code === 'TIMEOUT' &&
        error.message.includes(path) &&
        /locked/.test(error.message),
    );
    clearInterval(ticker);
    // The busy wait was the thread's: timers kept firing (on the event loop it would be one frozen stretch, and
    // no tick at all before the rejection). How many fire depends on the machine's load, so any one proves it.
    assert.ok(ticks >= 1, `no timer tick during a 300 ms busy wait`);
    holder.exec('ROLLBACK');
    holder.close();
    await store.set('cache:blocked', { a: 2 });
    assert.deepEqual(await store.get('cache:blocked'), { a: 2 });
    await store.close();
  });

  test('writer thread: the writes of one turn commit together, in one transaction: on a locked file they fail together after one busy wait', async () => {
    const path = freshPath();
    const store = createSqliteStore({ path, busyTimeoutMs: 400, writerThread: true });
    const holder = new DatabaseSync(path);
    holder.exec('BEGIN EXCLUSIVE');
    const writes = Array.from({ length: 5 }, (_, index) => store.set(`cache:batch:${index}`, index));
    const settled = await Promise.allSettled(writes);
    assert.deepEqual(
      settled.map((outcome) => outcome.status),
      ['rejected', 'rejected', 'rejected', 'rejected', 'rejected'],
    );
    // One transaction, one busy wait, one failure shared by the five (five transactions would fail five times):
    // counted by the failures, not the clock, which a loaded machine stretches.
    const causes = settled.map((outcome) =>
      outcome.status === 'rejected' ? outcome.reason?.cause : undefined,
    );
    assert.ok(causes[0] instanceof Error, 'the writer thread’s failure is the cause');
    assert.equal(new Set(causes).size, 1, 'one failure for the whole turn');
    holder.exec('ROLLBACK');
    holder.close();
    // The next turn's writes are a batch of their own, and the lock is gone.
    await Promise.all(Array.from({ length: 5 }, (_, index) => store.set(`cache:batch:${index}`, index * 10)));
    assert.deepEqual(await store.get('cache:batch:4'), 40);
    assert.equal((await store.keys('cache:batch:')).length, 5);
    await store.close();
  });

  test('an unwritable location: CONFIG_INVALID naming the path', () => {
    const blocker = join(dir, 'a-file');
    writeFileSync(blocker, 'x');
    const path = join(blocker, 'state.db');
    assert.throws(
      () => createSqliteStore({ path }),
      (error: unknown) =>
        isPeriscopeError(error) && error.code === 'CONFIG_INVALID' && error.message.includes(path),
    );
  });
});

describe('sqlite store: several processes on one file', () => {
  test('two processes share turns: starts one interval apart, never more than maxConcurrent at once', async (t) => {
    const path = freshPath();
    const clock = () => performance.timeOrigin + performance.now();
    for (const { intervalMs, maxConcurrent, holdMs } of [
      { intervalMs: 40, maxConcurrent: 100, holdMs: 5 },
      { intervalMs: 0, maxConcurrent: 2, holdMs: 20 },
    ]) {
      const key = `turns-${intervalMs}-${maxConcurrent}`;
      const task = { kind: 'turns', key, intervalMs, maxConcurrent, turns: 15, lanes: 4, holdMs } as const;
      const specs: WorkerSpec[] = [0, 1].map(() => ({ store: { kind: 'sqlite', path }, task }));
      let goMs = 0;
      const results = await runWorkersTogether<TurnSpans>(specs, () => {
        goMs = clock();
      });
      const seen = checkSharedTurns(results, goMs, intervalMs, maxConcurrent);
      assert.equal(seen.count, 30);
      if (maxConcurrent === 2) assert.equal(seen.mostAtOnce, 2, 'both processes used the two places');
      t.diagnostic(
        `interval ${intervalMs} ms, ${maxConcurrent} at once: smallest gap between grants as the workers noticed them ${seen.minGapMs.toFixed(1)} ms (not request departures: src/search/shared-pacer.test.ts times those), at most ${seen.mostAtOnce} at once`,
      );
    }
  });

  test('two processes share one rate limit and one balance, exactly', async (t) => {
    const path = freshPath();
    const store = createSqliteStore({ path });
    await store.ledgerApply('shared', { delta: 300, reason: 'grant', requireNonNegative: false });
    const task = {
      kind: 'hammer',
      key: 'shared-limit',
      limit: 250,
      windowMs: 60_000,
      agent: 'shared',
      attempts: 400,
      lanes: 4,
    } as const;
    const specs: WorkerSpec[] = ['one', 'two'].map((name) => ({
      store: { kind: 'sqlite', path },
      task: { ...task, name },
    }));
    const results = await runWorkersTogether<{ allowed: number; ids: string[] }>(specs);
    assert.equal(
      results.reduce((sum, result) => sum + result.allowed, 0),
      250,
    );
    assert.equal(
      results.reduce((sum, result) => sum + result.ids.length, 0),
      300,
    );
    assert.equal((await store.consume('shared-limit', 0, 250, 60_000)).used, 250);
    assert.equal(await store.balance('shared'), 0);
    const debits = (await store.ledger('shared')).filter((entry) => entry.delta < 0);
    assert.deepEqual(debits.map((entry) => entry.id).sort(), results.flatMap((result) => result.ids).sort());
    assert.deepEqual(
      debits.map((entry) => entry.balanceAfter),
      Array.from({ length: 300 }, (_, index) => 299 - index),
    );
    assert.equal(await store.rebuildBalance('shared'), 0);
    const switches = debits.filter(
      (entry, index) => index > 0 && entry.reason !== debits[index - 1]?.reason,
    ).length;
    t.diagnostic(
      `allowed ${results.map((result) => result.allowed).join('+')}, debits ${results.map((result) => result.ids.length).join('+')}, ${switches} hand-overs between the processes in the ledger`,
    );
    await store.close();
  });

  test('kill -9 in the middle of a burst of debits: every reported entry is there, balance = ledger sum', async () => {
    const path = freshPath();
    const store = createSqliteStore({ path });
    await store.ledgerApply('crash', { delta: 1_000_000, reason: 'grant', requireNonNegative: false });
    await store.close();

    const worker = spawnStoreWorker({
      store: { kind: 'sqlite', path },
      task: { kind: 'debit-forever', agent: 'crash' },
    });
    await worker.waitFor((lines) => lines.includes('ready'));
    worker.go();
    await worker.waitFor((lines) => lines.filter((line) => line.startsWith('committed ')).length >= 300);
    worker.child.kill('SIGKILL');
    assert.equal(await worker.exited, null);
    const reported = worker.lines
      .filter((line) => line.startsWith('committed '))
      .map((line) => line.slice(10));

    const reopened = createSqliteStore({ path });
    const entries = await reopened.ledger('crash');
    const ids = new Set(entries.map((entry) => entry.id));
    assert.deepEqual(
      reported.filter((id) => !ids.has(id)),
      [],
      'every entry the child reported as committed is in the ledger',
    );
    assert.ok(entries.length - 1 >= reported.length);
    const sum = entries.reduce((total, entry) => total + entry.delta, 0);
    assert.equal(await reopened.balance('crash'), sum);
    assert.equal(entries.at(-1)?.balanceAfter, sum);
    assert.equal(await reopened.rebuildBalance('crash'), sum);
    assert.equal(
      (await reopened.ledgerApply('crash', { delta: -1, reason: 'after', requireNonNegative: true })).balance,
      sum - 1,
    );
    await reopened.close();
    const raw = new DatabaseSync(path);
    assert.equal(raw.prepare('PRAGMA integrity_check').get()?.integrity_check, 'ok');
    raw.close();
  });
});
