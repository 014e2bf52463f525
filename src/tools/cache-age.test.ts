// maxAgeSeconds through createPeriscope, on a memory and a SQLite store: a cached answer young enough is served
// with its age, an older one is fetched again (and replaces it), 0 is always live but still kept; web_fetch's two
// caches (the store's pages, the in-process documents that focused and continuation reads use) follow one rule;
// single flight still joins a load in flight. The clock is Node's mocked Date, so ages are exact.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, type TestContext, test } from 'node:test';
import type { PeriscopeConfigInput } from '../config/schema.ts';
import { outcome, type PolicyHarness, startPolicyHarness } from '../testing/policy-harness.ts';
import { ageSeconds, cachedNote, formatAge, maxAgeMs } from './cache-age.ts';
import type { ImageSearchData } from './image-search.ts';
import type { WebFetchData } from './web-fetch.ts';

let harness: PolicyHarness;
let folder: string;
before(async () => {
  harness = await startPolicyHarness();
  folder = mkdtempSync(join(tmpdir(), 'periscope-cache-age-'));
});
after(async () => {
  await harness.close();
  rmSync(folder, { recursive: true, force: true });
});

type Data = { cached: boolean; cacheAgeSeconds?: number };
const cacheOf = (result: { data?: unknown }) => {
  const { cached, cacheAgeSeconds } = result.data as Data;
  return { cached, cacheAgeSeconds };
};
const HIT = (seconds: number) => ({ cached: true, cacheAgeSeconds: seconds });
const MISS = { cached: false, cacheAgeSeconds: undefined };

/** Date (and only Date) under the test's control: `tick(ms)` moves the clock every cache reads. */
function clock(t: TestContext): (ms: number) => void {
  t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
  return (ms) => t.mock.timers.tick(ms);
}

const STORES: Record<string, () => PeriscopeConfigInput> = {
  memory: () => ({ store: { url: 'memory:' } }),
  sqlite: () => ({
    store: { url: `sqlite://${join(folder, `state-${Math.random().toString(36).slice(2)}.db`)}` },
  }),
};

for (const [kind, storeConfig] of Object.entries(STORES)) {
  describe(`maxAgeSeconds, ${kind} store`, () => {
    test('web_search: young enough is a hit with its age; older is searched again and replaces it; 0 is live but kept', async (t) => {
      const tick = clock(t);
      const periscope = harness.open(storeConfig());
      const start = harness.searches();
      const query = `neap ${kind}`;
      assert.deepEqual(cacheOf(await periscope.search({ query })), MISS);
      tick(5_000);
      const young = await periscope.search({ query, maxAgeSeconds: 60 });
      assert.deepEqual(cacheOf(young), HIT(5));
      assert.ok(young.output.startsWith(`${cachedNote(5)}\n\nResults for: ${query}`), young.output);
      assert.match(young.display ?? '', /^stand-in \(cached, 5 s old\) → 2 results/);
      assert.equal(harness.searches() - start, 1);

      assert.deepEqual(cacheOf(await periscope.search({ query, maxAgeSeconds: 4 })), MISS, 'older than 4 s');
      assert.equal(harness.searches() - start, 2);
      tick(2_000);
      // The answer fetched for maxAgeSeconds 4 replaced the old one: it is 2 s old now, not 7.
      assert.deepEqual(cacheOf(await periscope.search({ query })), HIT(2));
      assert.deepEqual(
        cacheOf(await periscope.search({ query, maxAgeSeconds: 2 })),
        HIT(2),
        'as old as allowed',
      );

      for (let call = 0; call < 2; call++) {
        const live = await periscope.search({ query, maxAgeSeconds: 0 });
        assert.deepEqual(cacheOf(live), MISS);
        assert.ok(live.output.startsWith('Results for: '));
      }
      assert.equal(harness.searches() - start, 4);
      tick(1_000);
      assert.deepEqual(cacheOf(await periscope.search({ query })), HIT(1), 'the live answer was kept');
      assert.equal(harness.searches() - start, 4);
      await periscope.close();
    });

    test('web_fetch: the page cache and the in-process documents (query, startIndex) follow one rule', async (t) => {
      const tick = clock(t);
      const periscope = harness.open(storeConfig());
      const url = `${harness.pages.url}/long`;
      const downloads = harness.downloads('/long');
      const first = await periscope.fetch({ url, maxChars: 1000 });
      assert.deepEqual(cacheOf(first), MISS);
      tick(8_000);

      // A first read comes from the store's page cache; a focused one from the document in memory.
      const plain = await periscope.fetch({ url, maxChars: 1000, maxAgeSeconds: 30 });
      assert.deepEqual(cacheOf(plain), HIT(8));
      assert.ok(plain.output.startsWith(`${cachedNote(8)}\n`), plain.output.slice(0, 120));
      assert.match(plain.display ?? '', /→ from cache \(8 s old\), /);
      const focused = await periscope.fetch({ url, query: 'harbour ledger', maxAgeSeconds: 30 });
      assert.deepEqual(cacheOf(focused), HIT(8));
      const next = (first.data as WebFetchData).nextStartIndex;
      assert.deepEqual(cacheOf(await periscope.fetch({ url, startIndex: next, maxAgeSeconds: 30 })), HIT(8));
      assert.equal(harness.downloads('/long') - downloads, 1);

      // Older than allowed in both caches: downloaded again, and the new copy replaces the old in both.
      assert.deepEqual(
        cacheOf(await periscope.fetch({ url, query: 'harbour ledger', maxAgeSeconds: 7 })),
        MISS,
      );
      assert.equal(harness.downloads('/long') - downloads, 2);
      tick(3_000);
      assert.deepEqual(cacheOf(await periscope.fetch({ url, query: 'cargo flag' })), HIT(3));
      assert.deepEqual(cacheOf(await periscope.fetch({ url, maxChars: 1000 })), HIT(3));

      // 0: live from every source, a continuation read too; what it fetched is what the next read gets.
      for (const input of [{ url }, { url, query: 'tide' }, { url, startIndex: 1000 }]) {
        assert.deepEqual(
          cacheOf(await periscope.fetch({ ...input, maxAgeSeconds: 0 })),
          MISS,
          JSON.stringify(input),
        );
      }
      assert.equal(harness.downloads('/long') - downloads, 5);
      assert.deepEqual(cacheOf(await periscope.fetch({ url, startIndex: 2000 })), HIT(0));
      await periscope.close();
    });

    test('image_search: 0 is live, a number bounds the age', async (t) => {
      const tick = clock(t);
      const periscope = harness.open(storeConfig());
      const start = harness.searches();
      const query = `kelp ${kind}`;
      await periscope.imageSearch({ query });
      tick(61_000);
      const hit = await periscope.imageSearch({ query, maxAgeSeconds: 120 });
      assert.deepEqual(cacheOf(hit), HIT(61));
      assert.match(hit.output, /^\[From cache, 1 min old;/);
      assert.equal((hit.data as ImageSearchData).results.length, 1);
      assert.deepEqual(cacheOf(await periscope.imageSearch({ query, maxAgeSeconds: 60 })), MISS);
      assert.deepEqual(cacheOf(await periscope.imageSearch({ query, maxAgeSeconds: 0 })), MISS);
      assert.equal(harness.searches() - start, 3);
      await periscope.close();
    });
  });
}

test('web_fetch with the store cache off: the in-process documents alone still answer to maxAgeSeconds', async (t) => {
  const tick = clock(t);
  const periscope = harness.open({ cache: { enabled: false } });
  const url = `${harness.pages.url}/article`;
  const downloads = harness.downloads('/article');
  await periscope.fetch({ url });
  tick(4_000);
  assert.deepEqual(cacheOf(await periscope.fetch({ url, query: 'ledger cargo' })), HIT(4));
  assert.deepEqual(cacheOf(await periscope.fetch({ url, query: 'ledger cargo', maxAgeSeconds: 3 })), MISS);
  assert.deepEqual(cacheOf(await periscope.fetch({ url, query: 'ledger cargo', maxAgeSeconds: 0 })), MISS);
  assert.equal(harness.downloads('/article') - downloads, 3);
  await periscope.close();
});

test('single flight with maxAgeSeconds 0: a kept answer is never used, concurrent live calls share one request', async () => {
  const periscope = harness.open();
  const start = harness.searches();
  await periscope.search({ query: 'slow live flight' });
  const live = await Promise.all(
    Array.from({ length: 6 }, () => periscope.search({ query: 'slow live flight', maxAgeSeconds: 0 })),
  );
  assert.deepEqual(live.map(outcome), Array(6).fill('ok'));
  assert.equal(harness.searches() - start, 2);
  const shared = live.map(cacheOf).filter((read) => read.cached);
  assert.equal(shared.length, 5);
  assert.ok(shared.every((read) => read.cacheAgeSeconds === 0));
  await periscope.close();
});

test('the age helpers: whole seconds, rounded down, in the words the note uses', () => {
  assert.equal(maxAgeMs({}), undefined);
  assert.equal(maxAgeMs({ maxAgeSeconds: 0 }), 0);
  assert.equal(maxAgeMs({ maxAgeSeconds: 90 }), 90_000);
  assert.equal(ageSeconds(1_999), 1);
  assert.equal(ageSeconds(undefined), 0);
  assert.deepEqual([0, 1, 59, 60, 3599, 3600, 86_399, 86_400, 200_000].map(formatAge), [
    '0 s',
    '1 s',
    '59 s',
    '1 min',
    '59 min',
    '1 h',
    '23 h',
    '1 d',
    '2 d',
  ]);
});
