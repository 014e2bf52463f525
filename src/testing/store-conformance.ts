import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { isPeriscopeError } from '../errors.ts';
import type { Store, TurnOutcome, TurnReserve } from '../store/store.ts';

export interface StoreConformanceOptions {
  /** A reason to skip the whole suite (e.g. no redis-server here), or false. */
  skip?: string | false;
}

/** Rejects with a PeriscopeError of `code`. */
async function rejectsWith(promise: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => isPeriscopeError(error) && error.code === code);
}

/** A step's result and the wall-clock span it ran in: it took effect no earlier than `from`, no later than `to`. */
interface Timed<RESULT> {
  value: RESULT;
  from: number;
  to: number;
}

async function timed<RESULT>(step: () => Promise<RESULT>): Promise<Timed<RESULT>> {
  const from = Date.now();
  const value = await step();
  return { value, from, to: Date.now() };
}

/**
 * Runs a scenario about expiry times with time unit `unitMs`, on a fresh key each try. A loaded machine can stall
 * between two steps for longer than a scenario's margin; the scenario measures its steps and returns false, before
 * asserting anything the stall could have changed, when one did. Then it runs again with the unit doubled (up to
 * five tries). A store that breaks the rule fails the first try that ran on time.
 */
async function onTimeline(
  unitMs: number,
  scenario: (unitMs: number, key: string) => Promise<boolean>,
): Promise<void> {
  const tries = 5;
  for (let index = 0; index < tries; index += 1) {
    if (await scenario(unitMs * 2 ** index, `timeline:${index}`)) return;
  }
  assert.fail(
    `the machine stalled past the margins in all ${tries} tries (unit ${unitMs} ms, doubled each try)`,
  );
}

/**
 * The expiry scenarios (TTLs, the sliding window): in the conformance suite, and on their own against a store that
 * answers late (late-store.ts), since what they assert must hold however slowly the machine runs.
 */
function expiryScenarios(use: (scenario: (store: Store) => Promise<void>) => Promise<void>): void {
  test('a value with ttlMs expires; one without stays; set again replaces the expiry', () =>
    use(async (store) => {
      // Reads that must come before an expiry use a TTL no stall reaches (a minute); the values meant to expire
      // are read after sleeping past their TTL, which a loaded machine only lengthens.
      await store.set('short', 1, { ttlMs: 100 });
      await store.set('long', 5, { ttlMs: 60_000 });
      await store.set('kept', 2);
      await store.set('renewed', 3, { ttlMs: 100 });
      await store.set('renewed', 4);
      assert.equal(await store.get('long'), 5, 'readable before its TTL');
      await sleep(150);
      assert.equal(await store.get('short'), undefined);
      assert.equal(await store.delete('short'), false);
      assert.equal(await store.get('long'), 5);
      assert.equal(await store.get('kept'), 2);
      assert.equal(await store.get('renewed'), 4);
    }));

  test('the window slides: units free up windowMs after they were taken, and retryAfterMs says when', () =>
    use(async (store) => {
      await onTimeline(600, async (windowMs, key) => {
        const first = await timed(() => store.consume(key, 1, 2, windowMs));
        assert.equal(first.value.allowed, true);
        await sleep(windowMs / 2);
        const second = await timed(() => store.consume(key, 1, 2, windowMs));
        const refused = await timed(() => store.consume(key, 1, 2, windowMs));
        // Both units count for windowMs after they were taken: only a stall past that leaves the refusal open.
        if (refused.to >= first.from + windowMs) return false;
        assert.equal(second.value.allowed, true);
        assert.equal(refused.value.allowed, false);
        const bound = windowMs + Math.ceil(windowMs / 64) - (refused.from - first.to) + 2;
        const { retryAfterMs } = refused.value;
        assert.ok(
          retryAfterMs > 0 && retryAfterMs <= bound,
          `retryAfterMs ${retryAfterMs}, at most ${bound}`,
        );
        await sleep(retryAfterMs + 15);
        // The first unit has left the window; the second (taken windowMs / 2 later) has not: a sliding window,
        // not a fixed one that would have reset both.
        const both = await timed(() => store.consume(key, 2, 2, windowMs));
        const again = await timed(() => store.consume(key, 1, 2, windowMs));
        if (again.to >= second.from + windowMs) return false;
        assert.equal(both.value.allowed, false);
        assert.equal(again.value.allowed, true);
        assert.equal(again.value.used, 2);
        return true;
      });
    }));

  test('ttlMs applies when the counter is created and later increments keep that expiry', () =>
    use(async (store) => {
      await onTimeline(300, async (ttlMs, key) => {
        const created = await timed(() => store.increment(key, 1, { ttlMs }));
        assert.equal(created.value, 1);
        await sleep(ttlMs / 2);
        const later = await timed(() => store.increment(key, 1, { ttlMs }));
        if (later.to >= created.from + ttlMs) return false; // stalled past the expiry: a new counter is right
        assert.equal(later.value, 2);
        await sleep(Math.max(0, created.to + ttlMs + 5 - Date.now()));
        // Past the creation's expiry, before the one a renewing increment would have set.
        const read = await timed(() => store.get(key));
        if (read.to >= later.from + ttlMs) return false;
        assert.equal(read.value, undefined);
        assert.equal(await store.increment(key, 1), 1);
        return true;
      });
    }));

  test('incrementWithin with ttlMs (re)sets the expiry on every applied step; without, the expiry stays', () =>
    use(async (store) => {
      await onTimeline(300, async (ttlMs, key) => {
        await store.incrementWithin(key, { calls: 1 }, {}, { ttlMs });
        await sleep(ttlMs * 0.55);
        const renewed = await timed(() => store.incrementWithin(key, { calls: 1 }, {}, { ttlMs }));
        await sleep(ttlMs * 0.55); // past the first step's expiry
        const read = await timed(() => store.get(key));
        const kept = await timed(() => store.incrementWithin(key, { calls: 1 }, {}));
        if (kept.to >= renewed.from + ttlMs) return false; // stalled past the renewed expiry
        assert.deepEqual(read.value, { calls: 2 }, 'renewed by the second step');
        assert.deepEqual(kept.value.values, { calls: 3 });
        await sleep(Math.max(0, renewed.to + ttlMs + 5 - Date.now()));
        assert.equal(await store.get(key), undefined, 'a step without ttlMs kept the expiry');
        return true;
      });
      await store.incrementWithin('kept', { calls: 1 }, {});
      await sleep(50);
      assert.deepEqual(await store.get('kept'), { calls: 1 });
    }));
}

/** The expiry scenarios alone, each against a new store (closed after it), side by side: most of it is waiting. */
export function storeExpirySuite(name: string, createStore: () => Promise<Store>): void {
  describe(`${name}: Store expiry`, { concurrency: true }, () => {
    expiryScenarios(async (scenario) => {
      const store = await createStore();
      try {
        await scenario(store);
      } finally {
        await store.close();
      }
    });
  });
}

/**
 * The contract every `Store` keeps, run unchanged against each implementation (memory, SQLite, Redis):
 * `createStore` returns a new, empty store for each test, which the suite closes.
 */
export function storeConformanceSuite(
  name: string,
  createStore: () => Promise<Store>,
  options: StoreConformanceOptions = {},
): void {
  describe(`${name}: Store conformance`, { skip: options.skip ?? false }, () => {
    let store: Store;
    beforeEach(async () => {
      store = await createStore();
    });
    afterEach(async () => {
      await store.close();
    });

    describe('values', () => {
      test('set, get and delete JSON values', async () => {
        const value = { title: 'Périscope', tags: ['a', 'b'], nested: { count: 3, ok: true, none: null } };
        await store.set('doc:1', value);
        assert.deepEqual(await store.get('doc:1'), value);
        value.tags.push('changed after set');
        assert.deepEqual((await store.get<typeof value>('doc:1'))?.tags, ['a', 'b']);
        for (const scalar of ['text', 0, -1.5, false, null, []]) {
          await store.set('scalar', scalar);
          assert.deepEqual(await store.get('scalar'), scalar);
        }
        await store.set('doc:1', 'replaced');
        assert.equal(await store.get('doc:1'), 'replaced');
        assert.equal(await store.delete('doc:1'), true);
        assert.equal(await store.delete('doc:1'), false);
        assert.equal(await store.get('doc:1'), undefined);
        assert.equal(await store.get('never-set'), undefined);
      });

      test('refuses empty keys, values JSON cannot carry and bad TTLs', async () => {
        await rejectsWith(store.set('', 1), 'INVALID_INPUT');
        await rejectsWith(store.set('k', undefined), 'INVALID_INPUT');
        await rejectsWith(
          store.set('k', () => 1),
          'INVALID_INPUT',
        );
        await rejectsWith(store.set('k', 1, { ttlMs: 0 }), 'INVALID_INPUT');
        await rejectsWith(store.set('k', 1, { ttlMs: Number.NaN }), 'INVALID_INPUT');
        assert.equal(await store.get('k'), undefined);
      });
    });

    describe('expiry', () => expiryScenarios((scenario) => scenario(store)));

    describe('listing', () => {
      test('keys(prefix) lists live values and counters with that prefix, not expired ones', async () => {
        await store.set('usage:2025-01-01:a', 1);
        await store.increment('usage:2025-01-01:b', 2);
        await store.set('usage:2025-01-01:gone', 3, { ttlMs: 100 });
        await store.set('usage:2025-01-02:a', 4);
        await store.set('usage:2025-01-01*odd[key]?', 5);
        await store.set('other', 6);
        await store.consume('usage:2025-01-01:window', 1, 5, 60_000);
        await sleep(150);
        assert.deepEqual((await store.keys('usage:2025-01-01:')).sort(), [
          'usage:2025-01-01:a',
          'usage:2025-01-01:b',
        ]);
        assert.deepEqual(await store.keys('usage:2025-01-01*'), ['usage:2025-01-01*odd[key]?']);
        assert.deepEqual(await store.keys('nothing-here:'), []);
        assert.equal((await store.keys('')).length, 5);
      });

      test('agents() lists every agent with a balance', async () => {
        assert.deepEqual(await store.agents(), []);
        await store.ledgerApply('team:one', { delta: 5, reason: 'grant', requireNonNegative: false });
        await store.ledgerApply('b}{x', { delta: 1, reason: 'grant', requireNonNegative: false });
        assert.deepEqual((await store.agents()).sort(), ['b}{x', 'team:one']);
      });
    });

    describe('consume', () => {
      test('takes all of an amount or none, and reports what is left', async () => {
        const windowMs = 60_000;
        assert.deepEqual(await store.consume('agent:a', 3, 5, windowMs), {
          allowed: true,
          used: 3,
          remaining: 2,
          limit: 5,
          retryAfterMs: 0,
        });
        const refused = await store.consume('agent:a', 3, 5, windowMs);
        assert.equal(refused.allowed, false);
        assert.equal(refused.used, 3);
        assert.equal(refused.remaining, 2);
        assert.ok(refused.retryAfterMs > 0 && refused.retryAfterMs <= windowMs + windowMs / 64 + 1);
        assert.equal((await store.consume('agent:a', 2, 5, windowMs)).remaining, 0);
        assert.equal((await store.consume('agent:a', 1, 5, windowMs)).allowed, false);
        assert.deepEqual(await store.consume('agent:a', 0, 5, windowMs), {
          allowed: true,
          used: 5,
          remaining: 0,
          limit: 5,
          retryAfterMs: 0,
        });
        assert.equal((await store.consume('agent:b', 5, 5, windowMs)).allowed, true, 'keys are independent');
      });

      test('refuses amounts that can never fit and malformed limits', async () => {
        await rejectsWith(store.consume('k', 6, 5, 1000), 'INVALID_INPUT');
        await rejectsWith(store.consume('k', -1, 5, 1000), 'INVALID_INPUT');
        await rejectsWith(store.consume('k', 1.5, 5, 1000), 'INVALID_INPUT');
        await rejectsWith(store.consume('k', 1, 0, 1000), 'INVALID_INPUT');
        await rejectsWith(store.consume('k', 1, 5, 0), 'INVALID_INPUT');
        await rejectsWith(store.consume('', 1, 5, 1000), 'INVALID_INPUT');
      });

      test('1 000 concurrent consumes against a limit of 37: exactly 37 allowed', async () => {
        const results = await Promise.all(
          Array.from({ length: 1000 }, () => store.consume('burst', 1, 37, 60_000)),
        );
        assert.equal(results.filter((result) => result.allowed).length, 37);
        const allowedUsed = results.filter((result) => result.allowed).map((result) => result.used);
        assert.deepEqual(
          allowedUsed.sort((left, right) => left - right),
          Array.from({ length: 37 }, (_, index) => index + 1),
        );
        assert.ok(results.filter((result) => !result.allowed).every((result) => result.retryAfterMs > 0));
        assert.equal((await store.consume('burst', 0, 37, 60_000)).used, 37);
      });
    });

    describe('counters', () => {
      test('increment starts at 0, adds whole numbers and is read back by get', async () => {
        assert.equal(await store.increment('calls', 1), 1);
        assert.equal(await store.increment('calls', 5), 6);
        assert.equal(await store.increment('calls', -2), 4);
        assert.equal(await store.get('calls'), 4);
        await store.set('preset', 10);
        assert.equal(await store.increment('preset', 1), 11);
      });

      test('refuses a fractional step and a value that is not a whole number', async () => {
        await rejectsWith(store.increment('calls', 1.5), 'INVALID_INPUT');
        await store.set('text', 'abc');
        await rejectsWith(store.increment('text', 1), 'INVALID_INPUT');
        await store.set('fraction', 1.5);
        await rejectsWith(store.increment('fraction', 1), 'INVALID_INPUT');
        assert.equal(await store.get('text'), 'abc');
      });

      test('1 000 concurrent increments all count', async () => {
        await Promise.all(Array.from({ length: 1000 }, () => store.increment('hits', 1)));
        assert.equal(await store.get('hits'), 1000);
      });
    });

    describe('counters within limits', () => {
      test('incrementWithin takes all or none, names the counter over its limit and is read back by get', async () => {
        const limits = { calls: 3, credits: 5 };
        assert.deepEqual(await store.incrementWithin('budget', { calls: 1, credits: 2 }, limits), {
          applied: true,
          values: { calls: 1, credits: 2 },
        });
        assert.deepEqual(await store.incrementWithin('budget', { calls: 1, credits: 4 }, limits), {
          applied: false,
          values: { calls: 1, credits: 2 },
          over: 'credits',
        });
        assert.deepEqual(await store.get('budget'), { calls: 1, credits: 2 });
        assert.deepEqual((await store.incrementWithin('budget', { calls: 2, credits: 3 }, limits)).values, {
          calls: 3,
          credits: 5,
        });
        const refused = await store.incrementWithin('budget', { calls: 1, credits: 1 }, limits);
        assert.equal(refused.applied, false);
        assert.equal(refused.over, 'calls', 'the first counter over, in the order of the amounts');
        // Giving back is never refused, a counter without a limit is never refused, and none goes below 0.
        const given = await store.incrementWithin('budget', { calls: -5, credits: -1, other: 7 }, limits);
        assert.deepEqual(given, { applied: true, values: { calls: 0, credits: 4, other: 7 } });
        assert.deepEqual(await store.incrementWithin('budget', { credits: 0 }, { credits: 0 }), {
          applied: true,
          values: { calls: 0, credits: 4, other: 7 },
        });
        assert.equal((await store.incrementWithin('fresh', { calls: 1 }, { calls: 0 })).applied, false);
        assert.equal(await store.get('fresh'), undefined, 'a refused step writes nothing');
      });

      test('incrementWithin refuses bad amounts, limits and a key holding something else', async () => {
        await rejectsWith(store.incrementWithin('b', { calls: 1.5 }, {}), 'INVALID_INPUT');
        await rejectsWith(store.incrementWithin('b', { '': 1 }, {}), 'INVALID_INPUT');
        await rejectsWith(store.incrementWithin('b', { calls: 1 }, { calls: -1 }), 'INVALID_INPUT');
        await rejectsWith(store.incrementWithin('', { calls: 1 }, {}), 'INVALID_INPUT');
        await store.set('text', 'abc');
        await rejectsWith(store.incrementWithin('text', { calls: 1 }, {}), 'INVALID_INPUT');
        await store.set('mixed', { calls: 'x' });
        await rejectsWith(store.incrementWithin('mixed', { calls: 1 }, {}), 'INVALID_INPUT');
        assert.equal(await store.get('text'), 'abc');
      });

      test('no overspend: 500 concurrent steps of 1 call and 3 credits against 40 calls and 90 credits → exactly 30', async () => {
        const results = await Promise.all(
          Array.from({ length: 500 }, () =>
            store.incrementWithin('spend', { calls: 1, credits: 3 }, { calls: 40, credits: 90 }),
          ),
        );
        assert.equal(results.filter((result) => result.applied).length, 30);
        assert.ok(results.filter((result) => !result.applied).every((result) => result.over === 'credits'));
        assert.deepEqual(await store.get('spend'), { calls: 30, credits: 90 });
      });
    });

    describe('credit ledger', () => {
      test('grant, debit, refuse when short, refund: every change an entry with the balance after it', async () => {
        const before = Date.now();
        const grant = await store.ledgerApply('agent-1', {
          delta: 10,
          reason: 'grant',
          requireNonNegative: false,
        });
        assert.equal(grant.applied, true);
        assert.ok(grant.applied);
        assert.equal(grant.balance, 10);
        assert.equal(typeof grant.entry.id, 'string');
        assert.ok(grant.entry.id.length > 0);
        assert.deepEqual(
          { ...grant.entry, id: 'x', at: 'x' },
          { id: 'x', agent: 'agent-1', tool: null, delta: 10, balanceAfter: 10, at: 'x', reason: 'grant' },
        );
        const at = Date.parse(grant.entry.at);
        assert.ok(at >= before - 2000 && at <= Date.now() + 2000, grant.entry.at);
        assert.equal(new Date(at).toISOString(), grant.entry.at);

        const debit = { delta: -4, tool: 'web_search', reason: 'reserve', requireNonNegative: true };
        const first = await store.ledgerApply('agent-1', debit);
        assert.ok(first.applied);
        assert.equal(first.entry.tool, 'web_search');
        assert.equal(first.entry.balanceAfter, 6);
        assert.deepEqual(await store.ledgerApply('agent-1', { ...debit, delta: -7 }), {
          applied: false,
          balance: 6,
        });
        assert.equal((await store.ledgerApply('agent-1', { ...debit, delta: -6 })).balance, 0);
        assert.equal((await store.ledgerApply('agent-1', { ...debit, delta: -1 })).applied, false);
        const refund = await store.ledgerApply('agent-1', {
          delta: 2,
          tool: 'web_search',
          reason: 'refund',
          requireNonNegative: true,
        });
        assert.equal(refund.balance, 2);

        assert.equal(await store.balance('agent-1'), 2);
        const entries = await store.ledger('agent-1');
        assert.deepEqual(
          entries.map((entry) => [entry.delta, entry.balanceAfter, entry.reason]),
          [
            [10, 10, 'grant'],
            [-4, 6, 'reserve'],
            [-6, 0, 'reserve'],
            [2, 2, 'refund'],
          ],
        );
        assert.equal(new Set(entries.map((entry) => entry.id)).size, 4);
        assert.ok(entries.every((entry) => entry.agent === 'agent-1'));
        assert.deepEqual(
          (await store.ledger('agent-1', { limit: 2 })).map((entry) => entry.delta),
          [-6, 2],
        );
        assert.deepEqual(await store.ledger('agent-1', { limit: 0 }), []);
      });

      test('an unknown agent has balance 0 and an empty ledger; agents are independent', async () => {
        assert.equal(await store.balance('nobody'), 0);
        assert.deepEqual(await store.ledger('nobody'), []);
        assert.equal(await store.rebuildBalance('nobody'), 0);
        await store.ledgerApply('a', { delta: 5, reason: 'grant', requireNonNegative: false });
        await store.ledgerApply('b', { delta: 7, reason: 'grant', requireNonNegative: false });
        assert.deepEqual([await store.balance('a'), await store.balance('b')], [5, 7]);
        assert.equal((await store.ledger('a')).length, 1);
      });

      test('without requireNonNegative a debit may go below zero (an operator correction)', async () => {
        const result = await store.ledgerApply('agent-2', {
          delta: -3,
          reason: 'correction',
          requireNonNegative: false,
        });
        assert.equal(result.applied, true);
        assert.equal(await store.balance('agent-2'), -3);
      });

      test('rebuildBalance equals the balance and the sum of the ledger', async () => {
        const deltas = [50, -7, -13, 4, -20, 100, -1];
        for (const delta of deltas)
          await store.ledgerApply('agent-3', {
            delta,
            reason: delta > 0 ? 'grant' : 'reserve',
            requireNonNegative: true,
          });
        const sum = (await store.ledger('agent-3')).reduce((total, entry) => total + entry.delta, 0);
        assert.equal(sum, 113);
        assert.equal(await store.balance('agent-3'), sum);
        assert.equal(await store.rebuildBalance('agent-3'), sum);
        assert.equal(await store.balance('agent-3'), sum);
      });

      test('refuses fractional, non-numeric or unexplained changes and writes nothing', async () => {
        const bad = [
          { delta: 1.5, reason: 'grant' },
          { delta: Number.NaN, reason: 'grant' },
          { delta: Number.POSITIVE_INFINITY, reason: 'grant' },
          { delta: '5' as unknown as number, reason: 'grant' },
          { delta: 5, reason: '' },
        ];
        for (const entry of bad)
          await rejectsWith(
            store.ledgerApply('agent-4', { ...entry, requireNonNegative: false }),
            'INVALID_INPUT',
          );
        await rejectsWith(
          store.ledgerApply('', { delta: 1, reason: 'grant', requireNonNegative: false }),
          'INVALID_INPUT',
        );
        assert.deepEqual(await store.ledger('agent-4'), []);
        assert.equal(await store.balance('agent-4'), 0);
      });

      test('no double spend: 1 000 concurrent debits of 2 against 100 → 50 succeed, 50 entries, balance 0', async () => {
        await store.ledgerApply('spender', { delta: 100, reason: 'grant', requireNonNegative: false });
        const results = await Promise.all(
          Array.from({ length: 1000 }, () =>
            store.ledgerApply('spender', {
              delta: -2,
              tool: 'web_search',
              reason: 'reserve',
              requireNonNegative: true,
            }),
          ),
        );
        const applied = results.filter((result) => result.applied);
        assert.equal(applied.length, 50);
        assert.ok(results.filter((result) => !result.applied).every((result) => result.balance === 0));
        const debits = (await store.ledger('spender')).filter((entry) => entry.delta < 0);
        assert.equal(debits.length, 50);
        assert.deepEqual(
          debits.map((entry) => entry.balanceAfter),
          Array.from({ length: 50 }, (_, index) => 98 - index * 2),
        );
        assert.equal(await store.balance('spender'), 0);
        assert.equal(await store.rebuildBalance('spender'), 0);
      });
    });

    describe('turns', () => {
      const reserve = (key: string, reserve: TurnReserve) => store.turn(key, { reserve });
      const granted = (outcome: TurnOutcome): string => {
        assert.equal(outcome.outcome, 'granted', JSON.stringify(outcome));
        return (outcome as { lease: string }).lease;
      };
      const waitOf = (outcome: TurnOutcome, expected: 'wait' | 'busy'): number => {
        assert.equal(outcome.outcome, expected, JSON.stringify(outcome));
        return (outcome as { waitMs: number }).waitMs;
      };

      test('a turn starts now, then none until one interval has passed; waiting writes nothing', async () => {
        const spaced = { intervalMs: 300, leaseMs: 60_000 };
        const started = Date.now();
        granted(await reserve('spaced', spaced));
        const first = waitOf(await reserve('spaced', spaced), 'wait');
        const second = waitOf(await reserve('spaced', spaced), 'wait');
        const elapsed = Date.now() - started;
        assert.ok(first <= 300 && first >= 300 - elapsed, `wait ${first}`);
        assert.ok(second <= first, 'a refused turn moves nothing');
        granted(await reserve('other-key', spaced));
        await sleep(second);
        const grantedAt = Date.now(); // the turn below is granted no earlier than this
        granted(await reserve('spaced', spaced));
        const next = waitOf(await reserve('spaced', spaced), 'wait');
        const sinceGrant = Date.now() - grantedAt; // however long a loaded machine took between the two
        assert.ok(
          next >= 300 - sinceGrant - 1 && next <= 300,
          `wait ${next}, ${sinceGrant} ms after the grant`,
        );
      });

      test('maxConcurrent leases at once: busy until one is released; a lease releases once', async () => {
        const spec = { intervalMs: 0, maxConcurrent: 2, leaseMs: 60_000 };
        const first = granted(await reserve('limited', spec));
        granted(await reserve('limited', spec));
        const busy = waitOf(await reserve('limited', spec), 'busy');
        assert.ok(busy > 59_000 && busy <= 60_000, `busy for ${busy}`);
        assert.deepEqual(await store.turn('limited', { release: first }), {
          outcome: 'released',
          held: true,
        });
        assert.deepEqual(await store.turn('limited', { release: first }), {
          outcome: 'released',
          held: false,
        });
        granted(await reserve('limited', spec));
        waitOf(await reserve('limited', spec), 'busy');
      });

      test('a lease never released expires leaseMs after it was granted (a crashed holder frees its place)', async () => {
        const spec = { intervalMs: 0, maxConcurrent: 1, leaseMs: 150 };
        const lost = granted(await reserve('crash', spec));
        waitOf(await reserve('crash', spec), 'busy');
        await sleep(200);
        const next = granted(await reserve('crash', spec));
        assert.deepEqual(await store.turn('crash', { release: lost }), { outcome: 'released', held: false });
        assert.deepEqual(await store.turn('crash', { release: next }), { outcome: 'released', held: true });
      });

      test('turns live apart from values; bad steps are refused', async () => {
        granted(await reserve('apart', { intervalMs: 10, leaseMs: 1000 }));
        assert.equal(await store.get('apart'), undefined);
        assert.deepEqual(await store.keys(''), []);
        const bad: TurnReserve[] = [
          { intervalMs: -1, leaseMs: 1000 },
          { intervalMs: 1.5, leaseMs: 1000 },
          { intervalMs: 10, leaseMs: 0 },
          { intervalMs: 10, leaseMs: 1000, maxConcurrent: 0 },
          { intervalMs: 10, leaseMs: Number.POSITIVE_INFINITY },
        ];
        for (const spec of bad) await rejectsWith(reserve('apart', spec), 'INVALID_INPUT');
        await rejectsWith(store.turn('apart', { release: '' }), 'INVALID_INPUT');
        await rejectsWith(store.turn('apart', { sent: '' }), 'INVALID_INPUT');
        await rejectsWith(
          reserve('apart', { intervalMs: 10, leaseMs: 1000, startingMs: 0 }),
          'INVALID_INPUT',
        );
        await rejectsWith(reserve('', { intervalMs: 10, leaseMs: 1000 }), 'INVALID_INPUT');
      });

      test('a starting claim: no turn until the holder reports its request sent, then one interval after the report', async () => {
        const claimed = { intervalMs: 100, leaseMs: 60_000, startingMs: 5000 };
        const first = granted(await reserve('claimed', claimed));
        await sleep(150); // a holder slow to send: the interval since the grant has passed
        const behind = waitOf(await reserve('claimed', claimed), 'wait');
        assert.ok(behind >= 100, `behind a claim, told to wait ${behind} ms: the report is still to come`);
        assert.deepEqual(await store.turn('claimed', { sent: 'not-a-lease' }), {
          outcome: 'sent',
          held: false,
        });
        const reportedAt = Date.now();
        assert.deepEqual(await store.turn('claimed', { sent: first }), { outcome: 'sent', held: true });
        assert.deepEqual(await store.turn('claimed', { sent: first }), { outcome: 'sent', held: false });
        const afterReport = waitOf(await reserve('claimed', claimed), 'wait');
        assert.ok(afterReport > 0 && afterReport <= 101, `wait ${afterReport} after the report`);
        await sleep(afterReport + 2); // timers and the stores' clocks count whole ms: a wake-up may come 1 ms early
        const second = granted(await reserve('claimed', claimed));
        assert.ok(Date.now() - reportedAt >= 99, 'one interval after the report');
        // A release before any report counts as the report; the lease is released too.
        await sleep(150);
        waitOf(await reserve('claimed', claimed), 'wait');
        assert.deepEqual(await store.turn('claimed', { release: second }), {
          outcome: 'released',
          held: true,
        });
        const afterRelease = waitOf(await reserve('claimed', claimed), 'wait');
        assert.ok(afterRelease > 0 && afterRelease <= 101, `wait ${afterRelease} after the release`);
        // No interval, no claim: maxConcurrent alone.
        granted(await reserve('unspaced', { intervalMs: 0, leaseMs: 60_000, startingMs: 5000 }));
        granted(await reserve('unspaced', { intervalMs: 0, leaseMs: 60_000, startingMs: 5000 }));
      });

      test('a starting claim never reported counts as sent when it expires (a crashed holder)', async () => {
        const claimed = { intervalMs: 50, leaseMs: 60_000, startingMs: 150 };
        const started = Date.now();
        granted(await reserve('lost', claimed));
        await sleep(100);
        waitOf(await reserve('lost', claimed), 'wait');
        let outcome = await reserve('lost', claimed);
        while (outcome.outcome === 'wait') {
          await sleep(outcome.waitMs);
          outcome = await reserve('lost', claimed);
        }
        granted(outcome);
        const elapsed = Date.now() - started;
        // Not before the claim expired and one interval passed; and long before the lease (60 s) would free it.
        assert.ok(elapsed >= 199 && elapsed < 30_000, `granted ${elapsed} ms after the lost claim`);
      });

      test('200 reservations at once: exactly one is granted, every other told to wait at most one interval', async () => {
        const outcomes = await Promise.all(
          Array.from({ length: 200 }, () => reserve('crowd', { intervalMs: 5000, leaseMs: 60_000 })),
        );
        assert.equal(outcomes.filter((outcome) => outcome.outcome === 'granted').length, 1);
        for (const outcome of outcomes.filter((outcome) => outcome.outcome !== 'granted'))
          assert.ok(waitOf(outcome, 'wait') <= 5000);
      });
    });

    test('after close every call fails with a PeriscopeError; closing twice is fine', async () => {
      const own = await createStore();
      await own.set('k', 1);
      await own.close();
      await own.close();
      await assert.rejects(own.get('k'), (error: unknown) => isPeriscopeError(error));
      await assert.rejects(own.consume('k', 1, 1, 1000), (error: unknown) => isPeriscopeError(error));
    });
  });
}
