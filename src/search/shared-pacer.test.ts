import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { isPeriscopeError } from '../errors.ts';
import { createMemoryStore } from '../store/memory-store.ts';
import { createRedisStore } from '../store/redis-store.ts';
import { createSqliteStore } from '../store/sqlite-store.ts';
import type { Store } from '../store/store.ts';
import type { PacedSearchReport, PacedSearchSpec } from '../testing/paced-search-worker.ts';
import { type RedisTestServer, redisTestGate, startRedisServer } from '../testing/redis-server.ts';
import { checkPacedSpacing, monotonicNs, queryOf, type RequestArrival } from '../testing/request-leaves.ts';
import { runScriptsTogether } from '../testing/store-processes.ts';
import type { Pacer } from './pacing.ts';
import { createSharedPacer, pacingKey } from './shared-pacer.ts';

const dir = mkdtempSync(join(tmpdir(), 'periscope-pacer-'));
let files = 0;
const { skip: redisSkip } = redisTestGate();
let redis: RedisTestServer | undefined;
before(async () => {
  if (redisSkip === false) redis = await startRedisServer();
});
after(async () => {
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Two stores on one state, as two instances of Periscope would open it. */
type Pair = () => Promise<[Store, Store]>;
const sqlitePair: Pair = async () => {
  const path = join(dir, `state-${++files}.db`);
  return [createSqliteStore({ path }), createSqliteStore({ path })];
};
let prefixes = 0;
const redisPair: Pair = async () => {
  const url = (redis as RedisTestServer).url;
  const keyPrefix = `pacer-${process.pid}-${++prefixes}:`;
  return [await createRedisStore({ url, keyPrefix }), await createRedisStore({ url, keyPrefix })];
};

function pacerOn(
  store: Store,
  minIntervalMs: number,
  maxConcurrent?: number,
  leaseMs = 60_000,
  id = 'paced',
): Pacer {
  return createSharedPacer({
    id,
    minIntervalMs,
    ...(maxConcurrent === undefined ? {} : { maxConcurrent }),
    store: async () => store,
    key: pacingKey(id, {}),
    leaseMs,
  });
}

const never = new AbortController().signal;

const PACED_SEARCH_WORKER = new URL('../testing/paced-search-worker.ts', import.meta.url).pathname;

/** A Brave-shaped provider stand-in on 127.0.0.1 that notes when it read each search (the monotonic clock). */
async function startArrivalStandIn(): Promise<{ url: string; arrivals: RequestArrival[]; close(): void }> {
  const arrivals: RequestArrival[] = [];
  const server = createServer((request, response) => {
    const query = queryOf(request.url ?? '/');
    arrivals.push([query, monotonicNs()]);
    const results = [{ title: query, url: `https://one.example/${encodeURIComponent(query)}` }];
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ web: { results } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, arrivals, close: () => server.close() };
}

function queueRefusal(error: unknown): boolean {
  return isPeriscopeError(error) && error.code === 'RATE_LIMITED' && error.details.reason === 'queue';
}

for (const [name, pair, skip] of [
  ['sqlite', sqlitePair, false],
  ['redis', redisPair, redisSkip],
] as const) {
  describe(`shared pacing on ${name}`, { skip }, () => {
    test('two instances: every turn one interval after the last, whichever instance it came from', async (t) => {
      const [one, two] = await pair();
      const intervalMs = 60;
      const pacers = [pacerOn(one, intervalMs), pacerOn(two, intervalMs)];
      const startedAt = performance.now();
      const starts: number[] = [];
      await Promise.all(
        Array.from({ length: 12 }, async (_, index) => {
          const turn = await (pacers[index % 2] as Pacer).acquire(never, 10_000);
          starts.push(performance.now());
          await sleep(5);
          turn.release();
        }),
      );
      starts.sort((a, b) => a - b);
      // The k-th start comes at least k intervals after the calls (one late wake-up shortens the next gap, so gaps
      // alone prove nothing); each instance on its own would have started two at a time.
      starts.forEach((start, index) => {
        assert.ok(start - startedAt >= index * intervalMs - 1, `start ${index} at ${start - startedAt} ms`);
      });
      const gaps = starts.slice(1).map((start, index) => start - (starts[index] as number));
      t.diagnostic(`gaps (ms): ${gaps.map((gap) => gap.toFixed(0)).join(' ')}`);
      await Promise.all([one.close(), two.close()]);
    });

    test('two processes searching one provider: each request leaves at least one interval after the last, as it arrives', async (t) => {
      // The promise (README "Running several instances"), measured on real requests: two processes, each a library
      // Periscope on this store, search a stand-in here, twelve searches each, six at a time. Each request's
      // departure is bracketed in its process (between its end() and its 'finish', request-leaves.ts) and its
      // arrival read here, all on the machine's monotonic clock. Reading the time a worker got its turn (as the store
      // tests do) says nothing about when the request left: a worker can get to its turn late, or send late.
      const standIn = await startArrivalStandIn();
      t.after(() => standIn.close());
      const storeUrl =
        name === 'sqlite'
          ? `sqlite://${join(dir, `state-${++files}.db`)}`
          : `${(redis as RedisTestServer).url}`;
      const intervalMs = 40;
      const specs: PacedSearchSpec[] = ['left', 'right'].map((side) => ({
        storeUrl,
        baseUrl: standIn.url,
        intervalMs,
        name: `${name}-${side}-${++prefixes}`,
        searches: 12,
        lanes: 6,
      }));
      const reports = await runScriptsTogether<PacedSearchReport>(PACED_SEARCH_WORKER, specs);
      assert.deepEqual(
        reports.map(({ codes }) => codes.filter((code) => code !== 'ok')),
        [[], []],
      );
      const seen = checkPacedSpacing(
        reports.flatMap(({ leaves }) => leaves),
        standIn.arrivals,
        intervalMs,
      );
      assert.equal(seen.count, 24);
      t.diagnostic(
        `interval ${intervalMs} ms: smallest certain gap between departures ${seen.minLeaveGapMs.toFixed(1)} ms; between arrivals as read ${seen.minArrivalGapMs.toFixed(1)} ms (a request was read up to ${seen.maxReadDelayMs.toFixed(1)} ms after it had certainly left)`,
      );
    });

    test('an instance slow to send: the next turn, on either instance, waits one interval after its request was sent', async (t) => {
      const [one, two] = await pair();
      t.after(() => Promise.all([one.close(), two.close()]));
      const intervalMs = 60;
      const pacers = [pacerOn(one, intervalMs), pacerOn(two, intervalMs)];
      const spans: Array<{ granted: number; sent: number }> = [];
      await Promise.all(
        Array.from({ length: 8 }, async (_, index) => {
          const turn = await (pacers[index % 2] as Pacer).acquire(never, 20_000);
          const granted = performance.now();
          // Every other holder is slow between its turn and its send (a loaded event loop), longer than an interval.
          await sleep(index % 3 === 0 ? 90 : 2);
          const sent = performance.now();
          turn.sent();
          spans.push({ granted, sent });
          await sleep(5);
          turn.release();
        }),
      );
      spans.sort((a, b) => a.granted - b.granted);
      // Each grant comes one interval after the previous request was sent (1 ms: the stores count whole ms).
      spans.slice(1).forEach((span, index) => {
        const previous = spans[index] as { sent: number };
        assert.ok(
          span.granted - previous.sent >= intervalMs - 1,
          `turn ${index + 1} granted ${(span.granted - previous.sent).toFixed(1)} ms after turn ${index} was sent`,
        );
      });
    });

    test('a turn whose request never left is given back to every instance; one whose request left is kept', async (t) => {
      const [one, two] = await pair();
      t.after(() => Promise.all([one.close(), two.close()]));
      const hourMs = 3_600_000;
      // The store hears a release after it was made (it is not awaited): a step of one's own, on the same file or
      // connection, lands after it.
      const settled = (store: Store) => store.turn(pacingKey('paced', {}), { sent: 'none' });
      const unsent = await pacerOn(one, hourMs, 1).acquire(never, 1000);
      unsent.release({ neverSent: true });
      await settled(one);
      // An hour apart, yet the other instance's turn comes at once: nothing left with the first.
      const next = await pacerOn(two, hourMs, 1).acquire(never, 1000);
      next.sent();
      next.release({ neverSent: true }); // too late: it was reported sent
      await settled(two);
      await assert.rejects(pacerOn(one, hourMs, 1).acquire(never, 1000), queueRefusal);
    });

    test('maxConcurrent across instances: never more in flight than allowed, every call served', async () => {
      const [one, two] = await pair();
      const pacers = [pacerOn(one, 0, 1), pacerOn(two, 0, 1)];
      let inFlight = 0;
      let most = 0;
      await Promise.all(
        Array.from({ length: 10 }, async (_, index) => {
          const turn = await (pacers[index % 2] as Pacer).acquire(never, 10_000);
          inFlight++;
          most = Math.max(most, inFlight);
          await sleep(15);
          inFlight--;
          turn.release();
        }),
      );
      assert.equal(most, 1);
      await Promise.all([one.close(), two.close()]);
    });

    test('a turn too far off is refused at once with RATE_LIMITED (queue), so the chain can move on', async () => {
      const [one, two] = await pair();
      const first = await pacerOn(one, 1000).acquire(never, 5000);
      first.release();
      const asked = performance.now();
      const refusal = await pacerOn(two, 1000)
        .acquire(never, 200)
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      assert.ok(queueRefusal(refusal), String(refusal));
      assert.ok(performance.now() - asked < 150, 'refused without waiting');
      assert.ok(isPeriscopeError(refusal) && (refusal.retryAfterMs ?? 0) > 200);
      // Every place taken: refused once maxWaitMs has passed (another provider: the one above is still one interval
      // away from its next start).
      const held = await pacerOn(one, 0, 1, 60_000, 'limited').acquire(never, 1000);
      const waited = performance.now();
      await assert.rejects(pacerOn(two, 0, 1, 60_000, 'limited').acquire(never, 150), queueRefusal);
      assert.ok(performance.now() - waited >= 100);
      held.release();
      await Promise.all([one.close(), two.close()]);
    });

    test('cancelled while waiting for a shared turn: ABORTED, holding nothing', async () => {
      const [one, two] = await pair();
      const a = pacerOn(one, 300, 1);
      const b = pacerOn(two, 300, 1);
      (await a.acquire(never, 5000)).release();
      const cancel = new AbortController();
      const waiting = b.acquire(cancel.signal, 5000);
      await sleep(50);
      assert.equal(b.queued, 1);
      cancel.abort();
      await assert.rejects(waiting, (error: unknown) => isPeriscopeError(error) && error.code === 'ABORTED');
      // It held no lease (60 s) while it waited: the next turn is an interval away, not a minute.
      const asked = performance.now();
      (await a.acquire(never, 5000)).release();
      assert.ok(performance.now() - asked < 900, `waited ${performance.now() - asked} ms`);
      await Promise.all([one.close(), two.close()]);
    });

    test('a holder that crashed: its place comes back leaseMs after its start', async () => {
      const [one, two] = await pair();
      const key = pacingKey('paced', {});
      const crashed = await one.turn(key, { reserve: { intervalMs: 0, maxConcurrent: 1, leaseMs: 300 } });
      assert.equal(crashed.outcome, 'granted');
      const asked = performance.now();
      const turn = await pacerOn(two, 0, 1).acquire(never, 5000);
      const waited = performance.now() - asked;
      assert.ok(waited >= 250 && waited < 1500, `waited ${waited} ms`);
      turn.release();
      await Promise.all([one.close(), two.close()]);
    });
  });
}

describe('shared pacing: the store path is taken only where it helps', () => {
  test('a store that fails is passed over: pacing goes on in this process', async () => {
    const store = createSqliteStore({ path: join(dir, `state-${++files}.db`) });
    await store.close();
    const pacer = pacerOn(store, 50);
    const startedAt = performance.now();
    const starts: number[] = [];
    for (let index = 0; index < 3; index++) {
      (await pacer.acquire(never, 5000)).release();
      starts.push(performance.now() - startedAt);
    }
    assert.ok((starts[2] as number) >= 99, `starts: ${starts.join(', ')}`);
  });

  test('the memory store: this process paces alone, and the store is never asked for a turn', async () => {
    const memory = createMemoryStore();
    let turns = 0;
    const counting: Store = {
      ...memory,
      kind: memory.kind,
      location: memory.location,
      turn(key, step) {
        turns++;
        return memory.turn(key, step);
      },
    };
    const pacer = pacerOn(counting, 20, 1);
    for (let index = 0; index < 3; index++) (await pacer.acquire(never, 5000)).release();
    assert.equal(turns, 0);
    await memory.close();
  });
});
