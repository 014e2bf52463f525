// The shared FIFO semaphore on real timers: order, limits, abort while waiting, spacing, weights, close.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTurnQueue, type Release } from './turn-queue.ts';

/** Lets every pending promise callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

test('turns start first in, first out, at most maxRunning at once; releasing twice gives back one turn', async () => {
  const turns = createTurnQueue({ maxRunning: 2 });
  const order: string[] = [];
  const releases = new Map<string, Release>();
  const all = ['a', 'b', 'c', 'd', 'e'].map((name) =>
    turns.acquire().then((release) => {
      order.push(name);
      releases.set(name, release);
    }),
  );
  await settle();
  assert.deepEqual(order, ['a', 'b']);
  assert.deepEqual([turns.running, turns.queued], [2, 3]);
  releases.get('b')?.();
  releases.get('b')?.();
  await settle();
  assert.deepEqual(order, ['a', 'b', 'c'], 'a second release of the same turn frees nothing');
  releases.get('a')?.();
  releases.get('c')?.();
  await settle();
  assert.deepEqual(order, ['a', 'b', 'c', 'd', 'e']);
  await Promise.all(all);
  releases.get('d')?.();
  releases.get('e')?.();
  assert.deepEqual([turns.running, turns.queued], [0, 0]);
});

test('maxQueued: past it acquire rejects at once with refuseWhenFull(); a free turn is never refused', async () => {
  const turns = createTurnQueue({
    maxRunning: 1,
    maxQueued: 1,
    refuseWhenFull: () => new Error('full'),
  });
  const first = await turns.acquire();
  const second = turns.acquire();
  await assert.rejects(turns.acquire(), /full/);
  first();
  (await second)();
  const again = await turns.acquire();
  again();
});

test('abort while waiting takes the turn out of the queue (rejecting with the signal reason); the next one moves up', async () => {
  const counts: Array<[number, number]> = [];
  const turns = createTurnQueue({ maxRunning: 1, onChange: (now) => counts.push([now.running, now.queued]) });
  const first = await turns.acquire();
  const leaving = new AbortController();
  const left = turns.acquire({ signal: leaving.signal });
  const stays = turns.acquire();
  assert.equal(turns.queued, 2);
  leaving.abort(new Error('gone'));
  await assert.rejects(left, /gone/);
  assert.equal(turns.queued, 1);
  first();
  (await stays)();
  assert.deepEqual(counts, [
    [1, 0],
    [1, 1],
    [1, 2],
    [1, 1],
    [1, 0],
    [0, 0],
  ]);
  const aborted = new AbortController();
  aborted.abort(new Error('already'));
  await assert.rejects(turns.acquire({ signal: aborted.signal }), /already/);
  assert.deepEqual([turns.running, turns.queued], [0, 0]);
});

test('minIntervalMs spaces the starts of turns, in order, even with turns free', async () => {
  const turns = createTurnQueue({ minIntervalMs: 60 });
  const started: number[] = [];
  const t0 = performance.now();
  const all = Promise.all(
    [0, 1, 2].map(() =>
      turns.acquire().then((release) => {
        started.push(performance.now() - t0);
        release();
      }),
    ),
  );
  // The first at once: started before any timer could run (microtasks only), however loaded the machine.
  for (let tick = 0; tick < 5; tick += 1) await Promise.resolve();
  assert.equal(started.length, 1, 'first at once, the others held back');
  await all;
  assert.ok((started[1] ?? 0) >= 59, `second after the interval (${started[1]} ms)`);
  assert.ok((started[2] ?? 0) - (started[1] ?? 0) >= 55, `third an interval later (${started.join(', ')})`);
  assert.ok(turns.nextStartInMs <= 60, 'the next start waits at most one interval');
});

test('a turn of weight maxRunning runs alone, and nothing overtakes it while it waits', async () => {
  const turns = createTurnQueue({ maxRunning: 3 });
  const log: string[] = [];
  const take = (name: string, weight = 1) =>
    turns.acquire({ weight }).then((release) => {
      log.push(name);
      return release;
    });
  const light = take('light');
  const heavy = take('heavy', 3);
  const after = take('after');
  const releaseLight = await light;
  await settle();
  assert.deepEqual(log, ['light'], 'heavy waits for light; after waits behind heavy');
  releaseLight();
  const releaseHeavy = await heavy;
  await settle();
  assert.deepEqual(log, ['light', 'heavy']);
  releaseHeavy();
  (await after)();
  assert.deepEqual(log, ['light', 'heavy', 'after']);
  const oversized = await turns.acquire({ weight: 10 });
  assert.equal(turns.running, 3, 'a weight above maxRunning counts as maxRunning');
  oversized();
});

test('close() refuses every waiting turn and every later one; running turns keep theirs', async () => {
  const turns = createTurnQueue({ maxRunning: 1, minIntervalMs: 10_000 });
  const holding = await turns.acquire();
  const waiting = [turns.acquire(), turns.acquire()];
  turns.close(() => new Error('closing'));
  for (const refused of waiting) await assert.rejects(refused, /closing/);
  await assert.rejects(turns.acquire(), /closing/);
  assert.equal(turns.running, 1);
  holding();
  assert.equal(turns.running, 0);
});

test('a turn released unused (its request never left) does not space the next start; a used one does', async () => {
  let clockMs = 0; // a logical clock: nothing here depends on how fast the machine is
  const turns = createTurnQueue({ maxRunning: 1, minIntervalMs: 1000, now: () => clockMs });
  const first = await turns.acquire();
  const order: string[] = [];
  const second = turns.acquire().then((release) => {
    order.push('second');
    return release;
  });
  await settle();
  assert.deepEqual(order, [], 'the second waits behind the first');
  first({ unused: true });
  await settle();
  assert.deepEqual(order, ['second'], 'the first never started its work: the second starts at once');
  clockMs += 10;
  (await second)();
  assert.equal(turns.nextStartInMs, 990, 'a turn released as used spaces the next one');
  clockMs += 990;
  const third = await turns.acquire();
  const fourth = turns.acquire();
  third({ unused: true });
  const late = await fourth;
  assert.equal(turns.nextStartInMs, 1000, 'given back, the third let the fourth start at once');
  late();

  const pair = createTurnQueue({ maxRunning: 2, minIntervalMs: 1000, now: () => clockMs });
  const early = await pair.acquire();
  clockMs += 1000;
  const later = await pair.acquire();
  early({ unused: true });
  assert.equal(
    pair.nextStartInMs,
    1000,
    'a turn started since keeps spacing the next: giving back an earlier one undoes nothing',
  );
  later();
});

test('a turn whose work begins late (a request slow to connect) spaces the next start from then', async () => {
  let clockMs = 0;
  const turns = createTurnQueue({ minIntervalMs: 1000, now: () => clockMs });
  const first = await turns.acquire();
  clockMs = 300; // its request was written to the network only now
  first.begun();
  assert.equal(turns.nextStartInMs, 1000);
  const second = await new Promise<Release>((resolve) => {
    clockMs = 1300;
    void turns.acquire().then(resolve);
  });
  clockMs = 1350;
  first.begun(); // a turn started since: too late to matter
  assert.equal(turns.nextStartInMs, 950);
  first();
  second();
});
