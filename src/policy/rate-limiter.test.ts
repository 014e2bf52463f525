// Rate limits through createPeriscope: per agent and per tool, sliding windows in the store; store outages.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { validateConfig } from '../config/load-config.ts';
import { createMemoryStore } from '../store/memory-store.ts';
import { errorOf, outcome, type PolicyHarness, startPolicyHarness } from '../testing/policy-harness.ts';
import { formatDuration } from './format-duration.ts';

let harness: PolicyHarness;
before(async () => {
  harness = await startPolicyHarness();
});
after(() => harness.close());

test('per tool and per agent windows: RATE_LIMITED names the limit and when to retry; agents are apart', async () => {
  const periscope = harness.open({
    cache: { enabled: false },
    limits: {
      rate: {
        perAgent: { count: 3, windowMs: 60_000 },
        perTool: { web_search: { count: 2, windowMs: 60_000 } },
      },
    },
  });
  const as = (agentId: string) => ({ agentId });
  assert.equal(outcome(await periscope.search({ query: 'one' }, as('a'))), 'ok');
  assert.equal(outcome(await periscope.search({ query: 'two' }, as('a'))), 'ok');
  const before = harness.searches();
  const third = await periscope.search({ query: 'three' }, as('a'));
  assert.equal(harness.searches(), before);
  const error = errorOf(third);
  assert.equal(error.code, 'RATE_LIMITED');
  assert.match(
    error.message,
    /agent "a" may make 2 web_search calls per 1 min \(limits\.rate\.perTool\.web_search\)/,
  );
  assert.ok(error.retryAfterMs !== undefined && error.retryAfterMs > 55_000 && error.retryAfterMs <= 61_000);
  assert.match(third.output, /^Too many calls right now; do not retry at once/);
  assert.match(third.output, /Retry after about \d+ s\.$/);
  // The refused search took nothing from the agent window: one call is left there.
  assert.equal(outcome(await periscope.imageSearch({ query: 'one' }, as('a'))), 'ok');
  const fetched = await periscope.fetch({ url: `${harness.pages.url}/article` }, as('a'));
  assert.match(errorOf(fetched).message, /may make 3 calls per 1 min \(limits\.rate\.perAgent\)/);
  assert.equal(outcome(await periscope.search({ query: 'one' }, as('b'))), 'ok');
  assert.equal(
    outcome(await periscope.search({ query: 'one' })),
    'ok',
    'the default agent has its own windows',
  );
  await periscope.close();
});

test('a window slides: a refused agent gets through once retryAfterMs has passed', async () => {
  const periscope = harness.open({ limits: { rate: { perAgent: { count: 1, windowMs: 200 } } } });
  assert.equal(outcome(await periscope.search({ query: 'slide one' })), 'ok');
  const refused = errorOf(await periscope.search({ query: 'slide two' }));
  await new Promise((resolve) => setTimeout(resolve, (refused.retryAfterMs ?? 0) + 20));
  assert.equal(outcome(await periscope.search({ query: 'slide two' })), 'ok');
  await periscope.close();
});

test('the rate schema is validated: counts and windows are whole positive numbers, tools are known', () => {
  const bad = [
    { rate: { perAgent: { count: 0, windowMs: 1000 } } },
    { rate: { perAgent: { count: 10 } } },
    { rate: { perTool: { web_crawl: { count: 1, windowMs: 1000 } } } },
    { rate: { perAgent: { count: 1.5, windowMs: 1000 } } },
  ];
  for (const limits of bad) assert.throws(() => validateConfig({ limits }), /config is invalid/);
  assert.deepEqual(validateConfig({}).limits.rate, { perTool: {} });
});

test('store outage: the controls fail closed with one clear sentence; failOpen lets rate limits (only) through', async () => {
  const dead = createMemoryStore();
  await dead.close();
  const rate = { perAgent: { count: 10, windowMs: 60_000 } };

  const closed = harness.open({ limits: { rate } }, { store: dead });
  const refused = await closed.search({ query: 'outage' });
  const error = errorOf(refused);
  assert.equal(error.details?.reason, 'store-unavailable');
  assert.match(
    refused.output,
    /^Periscope's state store \(rate limits, credits, repeat checks\) is unavailable/,
  );
  assert.ok(!error.message.includes('\n'));

  const open = harness.open({ limits: { rate, failOpen: true } }, { store: dead });
  assert.equal(
    outcome(await open.search({ query: 'outage' })),
    'ok',
    'cache and usage failing do not fail the call',
  );

  const credits = harness.open({ limits: { credits: { enabled: true }, failOpen: true } }, { store: dead });
  assert.equal(errorOf(await credits.search({ query: 'outage' })).details?.reason, 'store-unavailable');

  const session = harness.open({}, { store: dead });
  assert.equal(outcome(await session.search({ query: 'outage' })), 'ok', 'no control on: the call goes on');
  assert.equal(
    errorOf(await session.search({ query: 'outage' }, { sessionId: 's' })).details?.reason,
    'store-unavailable',
  );
});

test('a store.url that cannot be opened refuses controlled calls with a one-line error, and is retried', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'periscope-policy-'));
  try {
    const periscope = harness.open({
      store: { url: `sqlite://${folder}` }, // a directory, not a database file
      limits: { credits: { enabled: true, initial: 5 } },
    });
    const first = errorOf(await periscope.search({ query: 'unopenable' }));
    assert.equal(first.details?.reason, 'store-unavailable');
    assert.match(first.message, new RegExp(folder.replace(/[/\\.]/g, '\\$&')));
    assert.ok(!first.message.includes('\n'));
    assert.equal(
      errorOf(await periscope.search({ query: 'unopenable' })).details?.reason,
      'store-unavailable',
    );
    await periscope.close();
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test('formatDuration: windows and waits read naturally', () => {
  assert.deepEqual(
    [1, 999, 1000, 90_000, 120_000, 3_600_000, 5_400_000, 86_400_000, 700_500].map(formatDuration),
    ['1 s', '1 s', '1 s', '90 s', '2 min', '1 h', '90 min', '1 d', '12 min'],
  );
});
