// The policy as a whole: when the store is opened, usage counters, the principal's id, the defaults.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../config/load-config.ts';
import { createPeriscope } from '../index.ts';
import { outcome, type PolicyHarness, startPolicyHarness } from '../testing/policy-harness.ts';
import { usageDay } from './usage.ts';

let harness: PolicyHarness;
let folder: string;
before(async () => {
  harness = await startPolicyHarness();
  folder = mkdtempSync(join(tmpdir(), 'periscope-policy-'));
});
after(async () => {
  await harness.close();
  rmSync(folder, { recursive: true, force: true });
});

test('the store opens on first use (a tool call, or status reading the shared provider health), not before; close() closes it', async () => {
  const file = join(folder, 'lazy.db');
  const periscope = harness.open({ store: { url: `sqlite://${file}` } });
  assert.equal(periscope.tools.length, 3);
  assert.equal(existsSync(file), false, 'creating Periscope opened nothing');
  const statusFile = join(folder, 'status.db');
  const forStatus = harness.open({ store: { url: `sqlite://${statusFile}` } });
  await forStatus.status();
  assert.equal(existsSync(statusFile), true, 'status reads the provider health kept in the store');
  await forStatus.close();
  assert.equal(outcome(await periscope.search({ query: 'lazy' })), 'ok');
  assert.equal(existsSync(file), true);
  const store = await periscope.store();
  await periscope.close();
  await assert.rejects(store.get('x'), /closed/);
  await periscope.close();
});

test('defaults: a library config keeps state in memory; a loaded (CLI) config in the user state directory', async () => {
  const periscope = createPeriscope({}, { env: {} });
  assert.equal((await periscope.store()).kind, 'memory');
  await periscope.close();
  const { config } = loadConfig({ cwd: folder, homeDir: folder, env: {} });
  assert.equal(config.store.url, 'sqlite://default');
  const defaults = createPeriscope({}).config;
  assert.equal(defaults.limits.repeatLookups, 2);
  assert.deepEqual(defaults.limits.credits, {
    enabled: false,
    cost: { web_search: 2, web_fetch: 1, image_search: 2, verify_citation: 0 },
  });
  assert.equal(defaults.cache.ttlMs, 900_000);
  assert.equal(defaults.limits.failOpen, false);
});

test('agentId and sessionId are checked: empty or control characters are INVALID_INPUT', async () => {
  const periscope = harness.open();
  assert.equal(outcome(await periscope.search({ query: 'x' }, { agentId: '' })), 'INVALID_INPUT');
  assert.equal(outcome(await periscope.search({ query: 'x' }, { sessionId: 'a\nb' })), 'INVALID_INPUT');
  assert.equal(outcome(await periscope.search({ query: 'x' }, { agentId: 'team/agent:1 ü' })), 'ok');
  await periscope.close();
});

test('usage: calls, cache hits, errors by code and credits per agent, tool and provider, for a day', async () => {
  const periscope = harness.open({ limits: { repeatLookups: 1, credits: { enabled: true, initial: 10 } } });
  const a = { agentId: 'a', sessionId: 's1' };
  await periscope.search({ query: 'wrecks' }, a); // ok, 2 credits
  await periscope.search({ query: 'wrecks' }, { agentId: 'a' }); // cache hit, 2 credits
  await periscope.search({ query: 'wrecks' }, a); // REPEATED_LOOKUP
  await periscope.search({ query: 'fail-503 wrecks' }, a); // ALL_FAILED, refunded
  await periscope.fetch({ url: `${harness.pages.url}/article` }, a); // ok, 1 credit
  await periscope.fetch({ url: `${harness.pages.url}/missing` }, a); // HTTP_STATUS, 1 credit kept
  await periscope.search({ query: 'wrecks' }, { agentId: 'b' }); // cache hit
  await periscope.search({ query: '' }, { agentId: 'b' }); // INVALID_INPUT

  const report = await periscope.usage();
  assert.equal(report.day, usageDay());
  assert.deepEqual(
    report.rows.map((row) => [
      row.agent,
      row.tool,
      row.provider,
      row.calls,
      row.cacheHits,
      row.credits,
      row.errors,
    ]),
    [
      ['a', 'web_fetch', '-', 1, 0, 1, { HTTP_STATUS: 1 }],
      ['a', 'web_fetch', 'local', 1, 0, 1, {}],
      ['a', 'web_search', '-', 2, 0, 0, { REPEATED_LOOKUP: 1, ALL_FAILED: 1 }],
      ['a', 'web_search', 'stand-in', 2, 1, 4, {}],
      ['b', 'web_search', '-', 1, 0, 0, { INVALID_INPUT: 1 }],
      ['b', 'web_search', 'stand-in', 1, 1, 2, {}],
    ],
  );
  assert.deepEqual(report.totals, {
    calls: 8,
    cacheHits: 2,
    credits: 8,
    errors: { HTTP_STATUS: 1, REPEATED_LOOKUP: 1, ALL_FAILED: 1, INVALID_INPUT: 1 },
  });
  assert.deepEqual(
    (await periscope.usage({ agentId: 'b' })).rows.map((row) => row.agent),
    ['b', 'b'],
  );
  assert.deepEqual((await periscope.usage({ day: '2000-01-01' })).rows, []);
  await assert.rejects(periscope.usage({ day: 'yesterday' }), /usage day must be YYYY-MM-DD/);
  await periscope.close();
});

test('usage.enabled: false writes no counters', async () => {
  const periscope = harness.open({ usage: { enabled: false } });
  await periscope.search({ query: 'quiet' });
  assert.deepEqual((await periscope.usage()).rows, []);
  await periscope.close();
});
