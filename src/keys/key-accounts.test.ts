// periscope.keys: the one key operation the CLI (`periscope keys`) and the gateway (`/v1/admin/keys`) both use.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isPeriscopeError } from '../errors.ts';
import { createPeriscope } from '../index.ts';
import { verifyApiKey } from './api-keys.ts';

function invalidInput(error: unknown): boolean {
  return isPeriscopeError(error) && error.code === 'INVALID_INPUT';
}

test('create: the key once, its record without the hash, and the credits granted through the credit ledger', async () => {
  const periscope = createPeriscope();
  try {
    const created = await periscope.keys.create({ agent: 'bot', credits: 10, rate: '60/min', admin: true });
    assert.match(created.key, /^psk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    assert.equal(created.balance, 10);
    assert.equal((created.record as { hash?: string }).hash, undefined, 'the hash is never handed out');
    assert.deepEqual(created.record.rate, { limit: 60, windowMs: 60_000 });
    assert.equal(created.record.admin, true);
    const verified = await verifyApiKey(await periscope.store(), created.key);
    assert.equal(verified?.id, created.record.id);
    const ledger = await periscope.credits.ledger('bot');
    assert.deepEqual(
      ledger.map((entry) => [entry.delta, entry.reason, entry.balanceAfter]),
      [[10, 'grant', 10]],
    );
    const without = await periscope.keys.create({ agent: 'bot', credits: 0 });
    assert.equal(without.balance, undefined, 'no grant, no balance');
    assert.equal((await periscope.credits.ledger('bot')).length, 1);
  } finally {
    await periscope.close();
  }
});

test('create checks everything before writing: a bad agent, credits or rate leaves no key and no grant', async () => {
  const periscope = createPeriscope();
  try {
    const mistakes = [
      { agent: 'two words', credits: 5 },
      { agent: '', credits: 5 },
      { agent: 'bot', credits: -5 },
      { agent: 'bot', credits: 1.5 },
      { agent: 'bot', credits: '5' as unknown as number },
      { agent: 'bot', credits: 5, rate: '1/fortnight' },
    ];
    for (const input of mistakes) {
      await assert.rejects(periscope.keys.create(input), invalidInput, JSON.stringify(input));
    }
    assert.deepEqual(await periscope.keys.list(), []);
    assert.deepEqual(await periscope.credits.list(), []);
    await assert.rejects(periscope.keys.create({ agent: 'bot', credits: -5 }), (error: unknown) => {
      assert.ok(isPeriscopeError(error));
      assert.deepEqual(error.details, { field: 'credits', constraint: { kind: 'at-least', minimum: 0 } });
      return true;
    });
  } finally {
    await periscope.close();
  }
});

test('the note is cut to 200 characters; list and revoke show records without the hash', async () => {
  const periscope = createPeriscope();
  try {
    const { record } = await periscope.keys.create({ agent: 'ci', note: 'n'.repeat(500) });
    assert.equal(record.note, 'n'.repeat(200));
    const [listed] = await periscope.keys.list();
    assert.equal(listed?.id, record.id);
    assert.equal((listed as { hash?: string }).hash, undefined);
    const revoked = await periscope.keys.revoke(record.id.slice(0, 6));
    assert.equal(revoked.id, record.id);
    assert.ok(revoked.revokedAt);
    assert.equal((revoked as { hash?: string }).hash, undefined);
    await assert.rejects(periscope.keys.revoke('ffffffffffff'), invalidInput);
  } finally {
    await periscope.close();
  }
});

test("create: a key's session budget is checked (known tools, whole numbers ≥ 0) and kept; nothing is written for a bad one", async () => {
  const periscope = createPeriscope();
  try {
    const created = await periscope.keys.create({
      agent: 'bot',
      session: { maxCalls: { web_fetch: 20, web_search: 0 }, maxCredits: 50 },
    });
    assert.deepEqual(created.record.session, { maxCalls: { web_fetch: 20, web_search: 0 }, maxCredits: 50 });
    assert.equal((await periscope.keys.create({ agent: 'bot', session: {} })).record.session, undefined);
    const mistakes: Array<[unknown, RegExp]> = [
      [
        { maxCalls: { web_crawl: 3 } },
        /^session: maxCalls\.web_crawl: not a tool; the tools are web_fetch, /,
      ],
      [{ maxCalls: { web_fetch: -1 } }, /^session: maxCalls\.web_fetch must be a whole number ≥ 0, not -1$/],
      [{ maxCredits: 1.5 }, /^session: maxCredits must be a whole number ≥ 0, not 1\.5$/],
      [{ maxCalls: [3] }, /^session: maxCalls must be an object of tool → calls/],
      [{ maxCallz: {} }, /^session: unknown field maxCallz; the fields are maxCalls and maxCredits$/],
      ['20', /^session: expected \{ maxCalls/],
    ];
    for (const [session, pattern] of mistakes)
      await assert.rejects(
        periscope.keys.create({ agent: 'other', session: session as never }),
        (error) => invalidInput(error) && pattern.test((error as Error).message),
      );
    assert.deepEqual(
      (await periscope.keys.list()).map((key) => key.agent),
      ['bot', 'bot'],
      'no key for the refused ones',
    );
  } finally {
    await periscope.close();
  }
});
