import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMemoryStore } from '../store/memory-store.ts';
import {
  createApiKey,
  formatRate,
  hashKey,
  listApiKeys,
  parseRate,
  revokeApiKey,
  verifyApiKey,
} from './api-keys.ts';

test('a key is psk_<id>_<43 random chars>; only its SHA-256 is stored', async () => {
  const store = createMemoryStore();
  const { key, record } = await createApiKey(store, { agent: 'alice', note: 'laptop' });
  assert.match(key, /^psk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
  assert.equal(record.hash, hashKey(key));
  const stored = JSON.stringify(await store.get(`gateway:key:${record.id}`));
  assert.ok(!stored.includes(key.slice(17)), 'the secret is not in the store');
  assert.equal(record.prefix, `psk_${record.id}_…`);
  const other = await createApiKey(store, { agent: 'alice' });
  assert.notEqual(other.key, key);
});

test('verify: the right key finds its record; a wrong secret, a malformed key or a revoked key do not', async () => {
  const store = createMemoryStore();
  const { key, record } = await createApiKey(store, { agent: 'alice', admin: true });
  assert.equal((await verifyApiKey(store, key))?.agent, 'alice');
  assert.equal(await verifyApiKey(store, `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`), undefined);
  assert.equal(await verifyApiKey(store, key.replace(record.id, '000000000000')), undefined);
  assert.equal(await verifyApiKey(store, 'psk_short'), undefined);
  assert.equal(await verifyApiKey(store, ''), undefined);
  await revokeApiKey(store, record.id);
  assert.equal(await verifyApiKey(store, key), undefined);
});

test('revoke by id, by the shown prefix, by the key, or by an unambiguous start of the id', async () => {
  const store = createMemoryStore();
  const keys = await Promise.all(['a', 'b', 'c', 'd'].map((agent) => createApiKey(store, { agent })));
  const [first, second, third, fourth] = keys as [
    (typeof keys)[0],
    (typeof keys)[0],
    (typeof keys)[0],
    (typeof keys)[0],
  ];
  assert.ok((await revokeApiKey(store, first.record.id)).revokedAt);
  assert.ok((await revokeApiKey(store, `psk_${second.record.id}_…`)).revokedAt);
  assert.ok((await revokeApiKey(store, third.key)).revokedAt);
  const unique = fourth.record.id.slice(0, 12);
  assert.ok((await revokeApiKey(store, unique)).revokedAt);
  await assert.rejects(revokeApiKey(store, 'abc'), /not a key id/);
  await assert.rejects(revokeApiKey(store, 'ffffffff'), /no API key matches/);
  const listed = await listApiKeys(store);
  assert.equal(listed.length, 4);
  assert.ok(listed.every((record) => record.revokedAt));
});

test('agent ids are short and printable', async () => {
  const store = createMemoryStore();
  await assert.rejects(createApiKey(store, { agent: '' }), /not valid/);
  await assert.rejects(createApiKey(store, { agent: 'has space' }), /not valid/);
  await assert.rejects(createApiKey(store, { agent: 'x'.repeat(129) }), /not valid/);
  assert.ok(await createApiKey(store, { agent: 'team:research@bots.example-1' }));
});

test('rates: N per s, min, hour or day', () => {
  assert.deepEqual(parseRate('60/min'), { limit: 60, windowMs: 60_000 });
  assert.deepEqual(parseRate('1_000/hour'), { limit: 1000, windowMs: 3_600_000 });
  assert.deepEqual(parseRate(' 5 / s '), { limit: 5, windowMs: 1000 });
  assert.equal(formatRate(parseRate('10000/day')), '10000/day');
  for (const bad of ['0/min', '60', '60/week', 'ten/min', '-1/s'])
    assert.throws(() => parseRate(bad), /not understood/);
});
