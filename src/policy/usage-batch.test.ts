// The usage counters off the response path, and the store writes a call makes: counted in memory, written on an
// interval and at close, exact; no write for a check that cannot trigger.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createMemoryStore } from '../store/memory-store.ts';
import { openStore } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';
import { outcome, type PolicyHarness, startPolicyHarness } from '../testing/policy-harness.ts';
import { readUsage } from './usage.ts';

let harness: PolicyHarness;
let folder: string;
before(async () => {
  harness = await startPolicyHarness();
  folder = mkdtempSync(join(tmpdir(), 'periscope-usage-batch-'));
});
after(async () => {
  await harness.close();
  rmSync(folder, { recursive: true, force: true });
});

/** A store that counts the writes made to it, by method. */
function countingStore(inner: Store): { store: Store; writes: Record<string, number>; total(): number } {
  const writes: Record<string, number> = {};
  const counted = new Set(['set', 'delete', 'consume', 'increment', 'incrementWithin', 'ledgerApply']);
  const store = new Proxy(inner, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (typeof name === 'string' && counted.has(name)) writes[name] = (writes[name] ?? 0) + 1;
        return value.apply(target, args);
      };
    },
  });
  return { store, writes, total: () => Object.values(writes).reduce((sum, count) => sum + count, 0) };
}

test('usage is batched: none written during the interval, all of it by usage() and close(), exact', async () => {
  const url = `sqlite://${join(folder, 'batched.db')}`;
  const periscope = harness.open({
    store: { url },
    cache: { enabled: false },
    usage: { flushIntervalMs: 60_000 },
  });
  const page = `${harness.pages.url}/article`;
  for (let index = 0; index < 10; index++)
    assert.equal(outcome(await periscope.fetch({ url: page }, { agentId: 'a' })), 'ok');
  await periscope.fetch({ url: `${harness.pages.url}/missing` }, { agentId: 'a' });
  // Another process reading the same file sees nothing yet: the counts are in this one's memory.
  const reader = await openStore(url);
  try {
    assert.equal((await readUsage(reader)).totals.calls, 0);
    // usage() writes this process's counts before it reads: status is current.
    const report = await periscope.usage();
    assert.equal(report.totals.calls, 11);
    assert.deepEqual(report.totals.errors, { HTTP_STATUS: 1 });
    assert.equal((await readUsage(reader)).totals.calls, 11);
    for (let index = 0; index < 5; index++) await periscope.fetch({ url: page }, { agentId: 'b' });
    assert.equal((await readUsage(reader)).totals.calls, 11);
    await periscope.close(); // a graceful stop writes what is held
    const closed = await readUsage(reader);
    assert.equal(closed.totals.calls, 16);
    assert.deepEqual(
      closed.rows.map((row) => [row.agent, row.provider, row.calls]),
      [
        ['a', '-', 1],
        ['a', 'local', 10],
        ['b', 'local', 5],
      ],
    );
  } finally {
    await reader.close();
  }
});

test('usage is written on its interval without a close, one increment per counter', async () => {
  const counting = countingStore(createMemoryStore());
  const periscope = harness.open(
    { cache: { enabled: false }, usage: { flushIntervalMs: 300 } },
    { store: counting.store },
  );
  const page = `${harness.pages.url}/article`;
  const started = performance.now();
  await Promise.all(Array.from({ length: 20 }, () => periscope.fetch({ url: page }, { agentId: 'a' })));
  const took = performance.now() - started;
  // Under a heavy load the calls may outlast one interval; then a flush has rightly happened meanwhile.
  if (took < 250) assert.equal(counting.writes.increment ?? 0, 0, 'nothing written on the calls’ path');
  await sleep(700);
  const flushes = Math.ceil(took / 300) + 1;
  assert.ok(counting.writes.increment !== undefined && counting.writes.increment <= flushes);
  if (took < 250) assert.equal(counting.writes.increment, 1, 'twenty calls, one counter: one increment');
  assert.equal((await readUsage(counting.store)).totals.calls, 20, 'written by the timer, no close');
  await periscope.close();
});

test('flushIntervalMs 0 writes each call before it answers', async () => {
  const counting = countingStore(createMemoryStore());
  const periscope = harness.open(
    { cache: { enabled: false }, usage: { flushIntervalMs: 0 } },
    { store: counting.store },
  );
  await periscope.fetch({ url: `${harness.pages.url}/article` });
  assert.equal(counting.writes.increment, 1);
  assert.equal((await readUsage(counting.store)).totals.calls, 1);
  await periscope.close();
});

test('store writes per call: none for a session-less call with the cache off; the throttle writes only in a session', async () => {
  const counting = countingStore(createMemoryStore());
  const periscope = harness.open(
    { cache: { enabled: false }, usage: { flushIntervalMs: 60_000 } },
    { store: counting.store },
  );
  const page = `${harness.pages.url}/article`;
  for (let index = 0; index < 25; index++) assert.equal(outcome(await periscope.fetch({ url: page })), 'ok');
  assert.deepEqual(counting.writes, {}, 'no repeat-throttle row, no usage row, no cache row on the path');
  // Two: the default limits.repeatLookups (a third would be refused, and counted under another provider, `-`).
  for (let index = 0; index < 2; index++) await periscope.fetch({ url: page }, { sessionId: 's' });
  assert.deepEqual(counting.writes, { increment: 2 }, 'in a session, one throttle increment per call');
  await periscope.close();
  assert.deepEqual(counting.writes, { increment: 3 }, 'and at close the usage: one counter, one write');
  assert.equal((await readUsage(counting.store)).totals.calls, 27);
});

test('the page cache is written after the answer, and close() waits for it', async () => {
  const counting = countingStore(createMemoryStore());
  const periscope = harness.open({ usage: { enabled: false } }, { store: counting.store });
  const page = `${harness.pages.url}/article`;
  assert.equal(outcome(await periscope.fetch({ url: page })), 'ok');
  await periscope.close();
  assert.equal(counting.writes.set, 1);
  assert.equal((await counting.store.keys('cache:web_fetch:')).length, 1);
});

test('a page read again within the page cache TTL is answered from the process, without a store read; past it, fetched again', async () => {
  const counting = countingStore(createMemoryStore());
  const reads = { count: 0 };
  const store = new Proxy(counting.store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (name !== 'get' || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (String(args[0]).startsWith('cache:web_fetch:')) reads.count += 1;
        return value.apply(target, args);
      };
    },
  });
  const periscope = harness.open(
    { usage: { enabled: false }, cache: { perTool: { web_fetch: { ttlMs: 300 } } } },
    { store },
  );
  const url = `${harness.pages.url}/article`;
  const downloads = harness.downloads('/article');
  const first = await periscope.fetch({ url });
  assert.equal(outcome(first), 'ok');
  assert.equal(reads.count, 1, 'a miss in the store');
  const again = await periscope.fetch({ url });
  assert.equal((again.data as { cached: boolean }).cached, true);
  assert.equal(reads.count, 1, 'answered from the process: no store read');
  assert.equal(harness.downloads('/article') - downloads, 1);
  // maxAgeSeconds 0 takes nothing from either cache.
  await periscope.fetch({ url, maxAgeSeconds: 0 });
  assert.equal(harness.downloads('/article') - downloads, 2);
  await sleep(400); // past the page cache's TTL: the process's copy is not used, the store's entry has expired
  const late = await periscope.fetch({ url });
  assert.equal((late.data as { cached: boolean }).cached, false);
  assert.equal(harness.downloads('/article') - downloads, 3);
  await periscope.close();
});
