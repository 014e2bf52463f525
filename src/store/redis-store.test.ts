import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from '@redis/client';
import { isPeriscopeError } from '../errors.ts';
import { type RedisTestServer, redisTestGate, startRedisServer } from '../testing/redis-server.ts';
import { storeConformanceSuite } from '../testing/store-conformance.ts';
import {
  checkSharedTurns,
  runWorkersTogether,
  spawnStoreWorker,
  type TurnSpans,
  type WorkerSpec,
} from '../testing/store-processes.ts';
import { openStore } from './open-store.ts';
import { createRedisStore } from './redis-store.ts';
import type { Store } from './store.ts';
import { STORE_UNAVAILABLE } from './store-errors.ts';

// Skipped with the reason when redis-server is missing; PERISCOPE_REQUIRE_SERVICES=1 (CI) makes that a failure.
const { skip } = redisTestGate();
let server: RedisTestServer;
let prefixes = 0;
const freshPrefix = (): string => `test-${process.pid}-${++prefixes}:`;

before(async () => {
  if (skip === false) server = await startRedisServer();
});
after(async () => {
  await server?.stop();
});

storeConformanceSuite('redis', async () => createRedisStore({ url: server.url, keyPrefix: freshPrefix() }), {
  skip,
});

function unavailable(code: string, pattern: RegExp) {
  return (error: unknown): boolean =>
    isPeriscopeError(error) &&
    error.code === code &&
    error.details.reason === STORE_UNAVAILABLE &&
    pattern.test(error.message) &&
    !error.message.includes('\n');
}

/** Retries `step` until it stops throwing (the client reconnects with a backoff). */
async function eventually<RESULT>(step: () => Promise<RESULT>, timeoutMs = 8000): Promise<RESULT> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await step();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(50);
    }
  }
}

describe('redis store: connection', { skip }, () => {
  test('openStore(redis://…) connects; key prefixes keep deployments apart', async () => {
    const first = await openStore(server.url);
    const second = await createRedisStore({ url: server.url, keyPrefix: freshPrefix() });
    await first.set('shared-name', 'first');
    assert.equal(await second.get('shared-name'), undefined);
    assert.equal(first.kind, 'redis');
    await first.delete('shared-name');
    await Promise.all([first.close(), second.close()]);
  });

  test('scripts are loaded again when the server forgot them (SCRIPT FLUSH, restart)', async () => {
    const store = await createRedisStore({ url: server.url, keyPrefix: freshPrefix() });
    assert.equal((await store.consume('k', 1, 2, 60_000)).used, 1);
    const raw = createClient({ url: server.url });
    await raw.connect();
    await raw.scriptFlush();
    await raw.close();
    assert.equal((await store.consume('k', 1, 2, 60_000)).used, 2);
    await store.close();
  });

  test('nothing listening: openStore fails at once with NETWORK naming the URL (password masked)', async () => {
    const stopped = await startRedisServer();
    const url = `redis://user:hunter2@127.0.0.1:${stopped.port}`;
    await stopped.stop();
    const started = Date.now();
    await assert.rejects(
      openStore(url),
      unavailable('NETWORK', /127\.0\.0\.1:\d+.*check that the server is running/),
    );
    await assert.rejects(
      openStore(url),
      (error: unknown) => isPeriscopeError(error) && !error.message.includes('hunter2'),
    );
    assert.ok(Date.now() - started < 3000);
  });

  test('the server goes away mid-run: calls fail closed at once with NETWORK, and work again when it is back', async () => {
    const own = await startRedisServer();
    const store = await createRedisStore({ url: own.url, keyPrefix: freshPrefix() });
    try {
      assert.equal((await store.consume('k', 1, 5, 60_000)).allowed, true);
      await own.kill();
      const started = Date.now();
      await assert.rejects(
        store.consume('k', 1, 5, 60_000),
        unavailable('NETWORK', /unreachable.*fail closed/),
      );
      await assert.rejects(
        store.ledgerApply('a', { delta: -1, reason: 'reserve', requireNonNegative: true }),
        unavailable('NETWORK', /outcome of this credit change is unknown/),
      );
      await assert.rejects(store.get('k'), unavailable('NETWORK', /unreachable/));
      assert.ok(Date.now() - started < 2000, 'no waiting in a queue while the server is down');
      await own.restart();
      assert.equal((await eventually(() => store.consume('k', 1, 5, 60_000))).allowed, true);
    } finally {
      await store.close();
      await own.stop();
    }
  });

  test('a server that stops answering: TIMEOUT after operationTimeoutMs, then fine once it answers', async () => {
    const own = await startRedisServer();
    const store: Store = await createRedisStore({
      url: own.url,
      keyPrefix: freshPrefix(),
      operationTimeoutMs: 200,
    });
    try {
      process.kill(own.pid, 'SIGSTOP');
      await assert.rejects(store.increment('n', 1), unavailable('TIMEOUT', /did not answer within 200 ms/));
      process.kill(own.pid, 'SIGCONT');
      assert.equal(await eventually(() => store.increment('n', 1)), 2, 'the timed-out increment did land');
    } finally {
      process.kill(own.pid, 'SIGCONT');
      await store.close();
      await own.stop();
    }
  });
});

describe('redis store: several processes on one server', { skip }, () => {
  test('two processes share turns: starts one interval apart, never more than maxConcurrent at once', async (t) => {
    const keyPrefix = freshPrefix();
    const clock = () => performance.timeOrigin + performance.now();
    for (const { intervalMs, maxConcurrent, holdMs } of [
      { intervalMs: 40, maxConcurrent: 100, holdMs: 5 },
      { intervalMs: 0, maxConcurrent: 2, holdMs: 20 },
    ]) {
      const key = `turns-${intervalMs}-${maxConcurrent}`;
      const task = { kind: 'turns', key, intervalMs, maxConcurrent, turns: 15, lanes: 4, holdMs } as const;
      const specs: WorkerSpec[] = [0, 1].map(() => ({
        store: { kind: 'redis', url: server.url, keyPrefix },
        task,
      }));
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

  test('two processes share one rate limit and one balance, exactly', async () => {
    const keyPrefix = freshPrefix();
    const store = await createRedisStore({ url: server.url, keyPrefix });
    await store.ledgerApply('shared', { delta: 300, reason: 'grant', requireNonNegative: false });
    const task = {
      kind: 'hammer',
      key: 'shared-limit',
      limit: 250,
      windowMs: 60_000,
      agent: 'shared',
      attempts: 400,
      lanes: 8,
    } as const;
    const specs: WorkerSpec[] = ['one', 'two'].map((name) => ({
      store: { kind: 'redis', url: server.url, keyPrefix },
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
    await store.close();
  });

  async function checkLedger(store: Store, agent: string, reported: string[]): Promise<void> {
    const entries = await store.ledger(agent);
    const ids = new Set(entries.map((entry) => entry.id));
    assert.deepEqual(
      reported.filter((id) => !ids.has(id)),
      [],
      'every entry reported as committed is in the ledger',
    );
    const sum = entries.reduce((total, entry) => total + entry.delta, 0);
    assert.equal(await store.balance(agent), sum);
    assert.equal(entries.at(-1)?.balanceAfter, sum);
    assert.equal(await store.rebuildBalance(agent), sum);
  }

  const committed = (lines: string[]): string[] =>
    lines.filter((line) => line.startsWith('committed ')).map((line) => line.slice('committed '.length));

  test('kill -9 of a client in the middle of a burst of debits: balance = ledger sum, nothing reported is lost', async () => {
    const keyPrefix = freshPrefix();
    const store = await createRedisStore({ url: server.url, keyPrefix });
    await store.ledgerApply('crash', { delta: 1_000_000, reason: 'grant', requireNonNegative: false });
    const worker = spawnStoreWorker({
      store: { kind: 'redis', url: server.url, keyPrefix },
      task: { kind: 'debit-forever', agent: 'crash' },
    });
    await worker.waitFor((lines) => lines.includes('ready'));
    worker.go();
    await worker.waitFor((lines) => committed(lines).length >= 300);
    worker.child.kill('SIGKILL');
    assert.equal(await worker.exited, null);
    await checkLedger(store, 'crash', committed(worker.lines));
    await store.close();
  });

  test('kill -9 of the server (append-only file, fsync always) mid-burst: the client fails closed, nothing acknowledged is lost', async () => {
    const own = await startRedisServer({ appendOnly: true });
    const keyPrefix = freshPrefix();
    try {
      const seed = await createRedisStore({ url: own.url, keyPrefix });
      await seed.ledgerApply('crash', { delta: 1_000_000, reason: 'grant', requireNonNegative: false });
      await seed.close();
      const worker = spawnStoreWorker({
        store: { kind: 'redis', url: own.url, keyPrefix },
        task: { kind: 'debit-forever', agent: 'crash' },
      });
      await worker.waitFor((lines) => lines.includes('ready'));
      worker.go();
      await worker.waitFor((lines) => committed(lines).length >= 200);
      await own.kill();
      assert.equal(await worker.exited, 3);
      assert.match(
        worker.lines.at(-1) ?? '',
        /^error (NETWORK|TIMEOUT) Redis store at redis:\/\/127\.0\.0\.1:\d+ /,
      );
      await own.restart();
      const store = await eventually(() => createRedisStore({ url: own.url, keyPrefix }));
      await checkLedger(store, 'crash', committed(worker.lines));
      await store.close();
    } finally {
      await own.stop();
    }
  });
});
