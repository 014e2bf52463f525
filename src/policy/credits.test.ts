// Credits through createPeriscope: charge before the call, keep on success, refund what was not the agent's doing;
// no double spend under 1 000 concurrent calls on memory, SQLite and Redis.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ToolErrorData } from '../errors.ts';
import { errorOf, outcome, type PolicyHarness, startPolicyHarness } from '../testing/policy-harness.ts';
import { type RedisTestServer, redisTestGate, startRedisServer } from '../testing/redis-server.ts';
import { isRefundable } from './refund-rule.ts';

let harness: PolicyHarness;
before(async () => {
  harness = await startPolicyHarness();
});
after(() => harness.close());

const credited = { cache: { enabled: false }, limits: { credits: { enabled: true } } } as const;

test('a call is charged its cost; CREDITS_EXHAUSTED states the balance and the cost and reaches no provider', async () => {
  const periscope = harness.open(credited);
  await periscope.credits.grant('a', 5);
  const searched = await periscope.search({ query: 'charts' }, { agentId: 'a' });
  assert.equal(outcome(searched), 'ok');
  assert.match(searched.display ?? '', / · 2 credits$/);
  assert.equal(await periscope.credits.balance('a'), 3);
  assert.equal(
    outcome(await periscope.fetch({ url: `${harness.pages.url}/article` }, { agentId: 'a' })),
    'ok',
  );
  assert.equal(outcome(await periscope.search({ query: 'more charts' }, { agentId: 'a' })), 'ok');
  assert.equal(await periscope.credits.balance('a'), 0);

  const before = harness.searches();
  const refused = await periscope.search({ query: 'charts again' }, { agentId: 'a' });
  assert.equal(harness.searches(), before);
  const error = errorOf(refused);
  assert.equal(error.code, 'CREDITS_EXHAUSTED');
  assert.equal(
    error.message,
    'agent "a" has 0 credits left and web_search costs 2 (limits.credits.cost.web_search)',
  );
  assert.deepEqual(
    { balance: error.details?.balance, cost: error.details?.cost, tool: error.details?.tool },
    { balance: 0, cost: 2, tool: 'web_search' },
  );
  assert.match(refused.output, /^This agent does not have enough credits left for this call/);
  assert.equal(outcome(await periscope.search({ query: '' }, { agentId: 'a' })), 'INVALID_INPUT');
  const ledger = await periscope.credits.ledger('a');
  assert.deepEqual(
    ledger.map((entry) => [entry.reason, entry.delta, entry.balanceAfter, entry.tool]),
    [
      ['grant', 5, 5, null],
      ['charge', -2, 3, 'web_search'],
      ['charge', -1, 2, 'web_fetch'],
      ['charge', -2, 0, 'web_search'],
    ],
  );
  await periscope.close();
});

test('refunds: provider down, rate-limited or every provider failed, a 5xx page; kept: 4xx, blocked URL, empty page', async () => {
  const periscope = harness.open(credited);
  await periscope.credits.grant('r', 100);
  const as = { agentId: 'r' };
  const cases: Array<[string, Promise<{ isError: boolean; data?: unknown; display?: string }>, boolean]> = [
    ['ALL_FAILED', periscope.search({ query: 'fail-503 tides' }, as), true],
    ['RATE_LIMITED', periscope.search({ query: 'fail-429 tides' }, { ...as, provider: 'stand-in' }), true],
    ['ALL_FAILED', periscope.imageSearch({ query: 'fail-503 tides' }, as), true],
    ['HTTP_STATUS', periscope.fetch({ url: `${harness.pages.url}/broken` }, as), true],
    ['HTTP_STATUS', periscope.fetch({ url: `${harness.pages.url}/missing` }, as), false],
    ['URL_BLOCKED', periscope.fetch({ url: 'http://10.1.2.3/admin' }, as), false],
    ['EMPTY_CONTENT', periscope.fetch({ url: `${harness.pages.url}/empty` }, as), false],
  ];
  for (const [code, pending, refunded] of cases) {
    const result = await pending;
    assert.equal(outcome(result as never), code, result.display);
    assert.match(result.display ?? '', refunded ? / · refunded$/ : / · 1 credit$/, result.display);
  }
  const entries = await periscope.credits.ledger('r');
  assert.equal(entries.filter((entry) => entry.reason === 'refund').length, 4);
  assert.equal(await periscope.credits.balance('r'), 100 - 3);
  assert.equal(
    entries.reduce((sum, entry) => sum + entry.delta, 0),
    await periscope.credits.balance('r'),
  );
  await periscope.close();
});

test('the refund rule, code by code', () => {
  const error = (code: ToolErrorData['code'], details: ToolErrorData['details'] = {}): ToolErrorData => ({
    code,
    message: '',
    retryable: false,
    details,
  });
  for (const code of [
    'NETWORK',
    'TIMEOUT',
    'RATE_LIMITED',
    'BLOCKED_BY_SITE',
    'ALL_FAILED',
    'NOT_CONFIGURED',
    'INTERNAL',
  ] as const)
    assert.equal(isRefundable('web_fetch', error(code)), true, code);
  for (const code of [
    'URL_BLOCKED',
    'ROBOTS_DISALLOWED',
    'BODY_TOO_LARGE',
    'UNSUPPORTED_CONTENT',
    'EMPTY_CONTENT',
  ] as const)
    assert.equal(isRefundable('web_fetch', error(code)), false, code);
  assert.equal(isRefundable('web_fetch', error('HTTP_STATUS', { status: 502 })), true);
  assert.equal(isRefundable('web_fetch', error('HTTP_STATUS', { status: 404 })), false);
  assert.equal(isRefundable('web_fetch', error('HTTP_STATUS', { status: 401, reason: 'invalid-key' })), true);
  for (const tool of ['web_search', 'image_search', 'web_fetch'] as const) {
    assert.equal(isRefundable(tool, error('INVALID_INPUT')), false);
    assert.equal(isRefundable(tool, error('ABORTED')), false);
  }
  assert.equal(isRefundable('web_search', error('HTTP_STATUS', { status: 401 })), true);
});

test('credits.initial: a new agent gets it once, even under concurrent first calls; an agent with grants does not', async () => {
  const periscope = harness.open({ ...credited, limits: { credits: { enabled: true, initial: 4 } } });
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, index) =>
      periscope.search({ query: `first ${index}` }, { agentId: 'fresh' }),
    ),
  );
  assert.equal(results.filter((result) => !result.isError).length, 2);
  assert.deepEqual(
    (await periscope.credits.ledger('fresh')).map((entry) => entry.reason),
    ['initial', 'charge', 'charge'],
  );
  await periscope.credits.grant('granted', 1);
  assert.equal(outcome(await periscope.search({ query: 'x' }, { agentId: 'granted' })), 'CREDITS_EXHAUSTED');
  assert.deepEqual(
    (await periscope.credits.ledger('granted')).map((entry) => entry.reason),
    ['grant'],
  );
  await assert.rejects(periscope.credits.grant('granted', 0), /whole number of credits ≥ 1/);
  await assert.rejects(periscope.credits.grant('granted', -3), /whole number of credits ≥ 1/);
  await assert.rejects(periscope.credits.grant('granted', 1.5), /whole number of credits ≥ 1/);
  assert.deepEqual(await periscope.credits.list(), [
    { agent: 'fresh', balance: 0 },
    { agent: 'granted', balance: 1 },
  ]);
  await periscope.close();
});

/** 1 000 concurrent web_search calls, balance 100, cost 2: exactly 50 answered, 50 debits, balance 0. */
async function noDoubleSpend(storeUrl: string): Promise<void> {
  const periscope = harness.open({ ...credited, store: { url: storeUrl } });
  await periscope.credits.grant('burst', 100);
  const before = harness.searches();
  const results = await Promise.all(
    Array.from({ length: 1000 }, (_, index) =>
      periscope.search({ query: `burst ${index}` }, { agentId: 'burst' }),
    ),
  );
  const codes = results.map(outcome);
  assert.equal(codes.filter((code) => code === 'ok').length, 50);
  assert.equal(codes.filter((code) => code === 'CREDITS_EXHAUSTED').length, 950);
  assert.equal(harness.searches() - before, 50, 'only the paid calls reached the provider');
  const ledger = await periscope.credits.ledger('burst');
  assert.equal(ledger.filter((entry) => entry.delta < 0).length, 50);
  assert.equal(ledger.filter((entry) => entry.reason === 'refund').length, 0);
  assert.equal(await periscope.credits.balance('burst'), 0);
  assert.equal(await (await periscope.store()).rebuildBalance('burst'), 0, 'the ledger sums to the balance');
  const usage = await periscope.usage({ agentId: 'burst' });
  assert.equal(usage.totals.calls, 1000);
  assert.equal(usage.totals.credits, 100);
  assert.equal(usage.totals.errors.CREDITS_EXHAUSTED, 950);
  await periscope.close();
}

describe('no double spend: 1 000 concurrent calls, balance 100, cost 2', () => {
  test('memory', () => noDoubleSpend('memory:'));

  test('SQLite', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'periscope-credits-'));
    try {
      await noDoubleSpend(`sqlite://${join(folder, 'state.db')}`);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  const { skip } = redisTestGate();
  test('Redis', { skip }, async () => {
    const redis: RedisTestServer = await startRedisServer();
    try {
      await noDoubleSpend(redis.url);
    } finally {
      await redis.stop();
    }
  });
});
