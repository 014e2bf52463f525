// The cache through createPeriscope: hits marked `cached`, keys covering what changes the answer, TTL, errors
// never kept, continuation from the store in another process, single flight.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, type TestContext, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { digest } from '../store/digest.ts';
import { createMemoryStore } from '../store/memory-store.ts';
import { outcome, type PolicyHarness, startPolicyHarness } from '../testing/policy-harness.ts';
import type { WebFetchData } from '../tools/web-fetch.ts';
import type { WebSearchData } from '../tools/web-search.ts';
import { createStoreCache } from './store-cache.ts';

let harness: PolicyHarness;
before(async () => {
  harness = await startPolicyHarness();
});
after(() => harness.close());

const cachedOf = (result: { data?: unknown }) => (result.data as { cached: boolean }).cached;

test('a repeated search is a hit (data.cached); the key covers count, filters, forced provider and tool', async () => {
  const periscope = harness.open();
  const start = harness.searches();
  const first = await periscope.search({ query: 'Spring tides' });
  assert.equal(cachedOf(first), false);
  const hit = await periscope.search({ query: '  spring   TIDES ' });
  assert.equal(cachedOf(hit), true);
  assert.match(hit.display ?? '', /^stand-in \(cached, \d+ s old\) → 2 results in \d+ ms$/);
  const note = /^\[From cache, \d+ s old; set maxAgeSeconds to 0 for a live answer\.\]\n\n/;
  assert.match(hit.output, note);
  // The same output, but for the query as given and the envelope's id (fresh for every output).
  const withoutId = (text: string) => text.replace(/ id="[0-9a-f]{12}"/g, ' id=…');
  assert.equal(
    withoutId(hit.output.replace(note, '')),
    withoutId(first.output).replace('Spring tides', 'spring   TIDES'),
  );
  assert.deepEqual((hit.data as WebSearchData).results, (first.data as WebSearchData).results);
  assert.equal(harness.searches() - start, 1);

  for (const different of [
    periscope.search({ query: 'spring tides', count: 1 }),
    periscope.search({ query: 'spring tides', freshness: 'week' }),
    periscope.search({ query: 'spring tides' }, { provider: 'stand-in' }),
    periscope.imageSearch({ query: 'spring tides' }),
  ])
    assert.equal(cachedOf(await different), false);
  assert.equal(harness.searches() - start, 5);
  await periscope.close();
});

test('errors are never cached: a failed search and an empty page go upstream every time', async () => {
  const periscope = harness.open();
  const start = harness.searches();
  assert.equal(outcome(await periscope.search({ query: 'fail-503 neap' })), 'ALL_FAILED');
  assert.equal(
    outcome(await periscope.search({ query: 'fail-503 neap' }, { provider: 'stand-in' })),
    'HTTP_STATUS',
  );
  assert.equal(harness.searches() - start, 2);
  const downloads = harness.downloads('/empty');
  for (let call = 0; call < 2; call++)
    assert.equal(outcome(await periscope.fetch({ url: `${harness.pages.url}/empty` })), 'EMPTY_CONTENT');
  assert.equal(harness.downloads('/empty') - downloads, 2);
  await periscope.close();
});

test('an entry lives cache.ttlMs (per tool override), then the next call goes upstream again', async () => {
  const periscope = harness.open({ cache: { perTool: { web_search: { ttlMs: 150 } } } });
  const start = harness.searches();
  await periscope.search({ query: 'ebb' });
  assert.equal(cachedOf(await periscope.search({ query: 'ebb' })), true);
  await sleep(250);
  assert.equal(cachedOf(await periscope.search({ query: 'ebb' })), false);
  assert.equal(harness.searches() - start, 2);
  await periscope.close();
});

test('cache off, globally or for one tool; scope agent keeps agents apart', async () => {
  const off = harness.open({ cache: { enabled: false } });
  const start = harness.searches();
  await off.search({ query: 'swell' });
  assert.equal(cachedOf(await off.search({ query: 'swell' })), false);
  const searchOff = harness.open({ cache: { perTool: { web_search: { enabled: false } } } });
  await searchOff.search({ query: 'swell' });
  assert.equal(cachedOf(await searchOff.search({ query: 'swell' })), false);
  assert.equal(harness.searches() - start, 4);
  await searchOff.imageSearch({ query: 'swell' });
  assert.equal(cachedOf(await searchOff.imageSearch({ query: 'swell' })), true);

  const scoped = harness.open({ cache: { scope: 'agent' } });
  await scoped.search({ query: 'surge' }, { agentId: 'a' });
  assert.equal(cachedOf(await scoped.search({ query: 'surge' }, { agentId: 'b' })), false);
  assert.equal(cachedOf(await scoped.search({ query: 'surge' }, { agentId: 'a' })), true);
});

test('the key covers the config: another User-Agent or private-network rule sharing the store misses', async () => {
  const store = createMemoryStore();
  const url = `${harness.pages.url}/article`;
  const first = harness.open({}, { store });
  const downloads = harness.downloads('/article');
  await first.fetch({ url });
  assert.equal(cachedOf(await harness.open({}, { store }).fetch({ url })), true);
  assert.equal(
    cachedOf(await harness.open({ network: { userAgent: 'Other/1.0' } }, { store }).fetch({ url })),
    false,
  );
  const wider = harness.open({ network: { allowPrivateNetwork: ['127.0.0.0/8'] } }, { store });
  assert.equal(cachedOf(await wider.fetch({ url })), false);
  assert.equal(harness.downloads('/article') - downloads, 3);
  // A deployment that may not reach 127.0.0.1 never gets the page from the shared cache.
  const strict = harness.open({ network: { allowPrivateNetwork: [] } }, { store });
  assert.equal(outcome(await strict.fetch({ url })), 'URL_BLOCKED');
  await store.close();
});

test('web_fetch: another process on the same SQLite file reads on from the cache; too-large entries are not kept', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'periscope-cache-'));
  try {
    const store = { url: `sqlite://${join(folder, 'state.db')}` };
    const url = `${harness.pages.url}/long`;
    const downloads = harness.downloads('/long');
    const first = harness.open({ store });
    const window = (await first.fetch({ url, maxChars: 1000 })).data as WebFetchData;
    assert.equal(window.cached, false);
    assert.equal(window.truncated, true);
    await first.close();

    const second = harness.open({ store });
    const next = await second.fetch({ url, maxChars: 1000, startIndex: window.nextStartIndex });
    assert.equal(cachedOf(next), true);
    assert.equal((next.data as WebFetchData).startIndex, window.nextStartIndex);
    assert.match(next.display ?? '', /from cache/);
    assert.equal(cachedOf(await second.fetch({ url })), true, 'a first read is served from the cache too');
    await second.close();
    assert.equal(harness.downloads('/long') - downloads, 1);

    const small = harness.open({ cache: { maxEntryChars: 5000 } });
    await small.fetch({ url, maxChars: 1000 });
    assert.equal(
      cachedOf(await small.fetch({ url, maxChars: 1000, startIndex: 1000 })),
      true,
      'read on from memory',
    );
    assert.equal(cachedOf(await small.fetch({ url, maxChars: 1000 })), false, 'not kept in the store');
    assert.equal(harness.downloads('/long') - downloads, 3);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test('single flight: 25 concurrent identical searches make one request, 25 fetches of a page one download', async () => {
  const periscope = harness.open();
  const start = harness.searches();
  const searches = await Promise.all(
    Array.from({ length: 25 }, () => periscope.search({ query: 'slow flight' })),
  );
  assert.ok(searches.every((result) => !result.isError));
  assert.equal(harness.searches() - start, 1);
  assert.equal(searches.filter((result) => !cachedOf(result)).length, 1);

  const downloads = harness.downloads('/slow');
  const url = `${harness.pages.url}/slow`;
  const fetches = await Promise.all(Array.from({ length: 25 }, () => periscope.fetch({ url })));
  assert.ok(fetches.every((result) => !result.isError));
  assert.equal(harness.downloads('/slow') - downloads, 1);
  await periscope.close();
});

test('single flight: when the caller that started the load cancels, the others still get their answer', async () => {
  const periscope = harness.open({ cache: { enabled: true } });
  const start = harness.searches();
  const leader = new AbortController();
  const first = periscope.search({ query: 'slow cancel' }, { signal: leader.signal });
  while (harness.searches() === start) await sleep(5); // its request has reached the stand-in
  const others = Array.from({ length: 5 }, () => periscope.search({ query: 'slow cancel' }));
  leader.abort();
  assert.equal(outcome(await first), 'ABORTED');
  const results = await Promise.all(others);
  assert.deepEqual(results.map(outcome), ['ok', 'ok', 'ok', 'ok', 'ok']);
  assert.equal(harness.searches() - start, 2);
  await periscope.close();
});

/** Date (and only Date) under the test's control: `tick(ms)` moves the clock the cache reads. */
function clock(t: TestContext): (ms: number) => void {
  t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
  return (ms) => t.mock.timers.tick(ms);
}

test('a store entry kept without its time (an older version wrote it) is a miss: loaded again, then kept with it', async (t) => {
  const tick = clock(t);
  const store = createMemoryStore();
  const cache = createStoreCache({
    tool: 'web_search',
    store: async () => store,
    ttlMs: 60_000,
    maxEntryChars: 10_000,
    scope: 'shared',
    fingerprint: () => 'fingerprint',
  });
  const storeKey = `cache:web_search:${digest('fingerprint\n\nkey')}`;
  await store.set(storeKey, { value: 'old' }, { ttlMs: 60_000 });
  let loads = 0;
  const load = async () => `new ${++loads}`;
  assert.deepEqual(await cache.read('key', load), { value: 'new 1', cached: false });
  // The same key the legacy entry sat under, now with its time.
  assert.deepEqual(await store.get(storeKey), { value: 'new 1', storedAt: Date.now() });
  tick(1_500);
  assert.deepEqual(await cache.read('key', load), { value: 'new 1', cached: true, ageMs: 1_500 });
  assert.deepEqual(await cache.read('key', load, { maxAgeMs: 1_499 }), { value: 'new 2', cached: false });
  assert.deepEqual(await cache.read('key', load, { maxAgeMs: 0 }), { value: 'new 3', cached: false });
  assert.deepEqual(await cache.read('key', load, { maxAgeMs: 0 }), { value: 'new 4', cached: false });
  assert.deepEqual(await cache.read('key', load, { maxAgeMs: 10 }), {
    value: 'new 4',
    cached: true,
    ageMs: 0,
  });
  await store.close();
});

test('a write after the answer: not in the store during the turn that answered, read from memory meanwhile, in the store after', async () => {
  const store = createMemoryStore();
  const writes: Array<Promise<void>> = [];
  const settings = {
    tool: 'web_fetch' as const,
    store: async () => store,
    ttlMs: 60_000,
    scope: 'shared' as const,
    fingerprint: () => 'fingerprint',
    afterAnswer: (write: Promise<void>) => writes.push(write),
  };
  const cache = createStoreCache({ ...settings, maxEntryChars: 10_000 });
  let loads = 0;
  const load = async () => ({ text: `page ${++loads}` });
  assert.deepEqual(await cache.read('key', load), { value: { text: 'page 1' }, cached: false });
  // Still the answering turn (only promises settled since): nothing written yet, but this cache reads it.
  assert.deepEqual(await store.keys('cache:'), []);
  const again = await cache.read('key', load);
  assert.equal(again.cached, true);
  assert.deepEqual(again.value, { text: 'page 1' });
  // So does another cache of this process on the same store (another Periscope sharing it).
  const other = createStoreCache({ ...settings, maxEntryChars: 10_000 });
  assert.equal((await other.read('key', load)).cached, true);
  assert.equal(writes.length, 1);
  await Promise.all(writes);
  assert.deepEqual(await store.keys('cache:'), [`cache:web_fetch:${digest('fingerprint\n\nkey')}`]);
  assert.equal((await cache.read('key', load)).cached, true);
  assert.equal(loads, 1);

  // A value too large to keep is neither written nor held in memory.
  const small = createStoreCache({ ...settings, maxEntryChars: 10, tool: 'web_search' });
  assert.equal((await small.read('key', load)).cached, false);
  assert.equal((await small.read('key', load)).cached, false);
  assert.equal(loads, 3);
  assert.equal(writes.length, 1);
  await store.close();
});
