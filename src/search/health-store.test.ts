import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PeriscopeError } from '../errors.ts';
import { createMemoryStore } from '../store/memory-store.ts';
import type { Store } from '../store/store.ts';
import { createHealthSync, HEALTH_TTL_MS, healthKey, parseHealthRecord } from './health-store.ts';
import { createProviderHealth } from './provider-health.ts';
import type { ProviderState } from './provider-state.ts';

const iso = (ms: number) => new Date(ms).toISOString();

test('a stored record is read only when it has the expected shape', () => {
  const at = iso(Date.now());
  const good = { consecutiveFailures: 1, lastError: { code: 'RATE_LIMITED', message: 'slow down', at } };
  assert.deepEqual(parseHealthRecord(good), good);
  assert.equal(
    parseHealthRecord({ ...good, lastError: { code: 'NO_SUCH_CODE', message: 'x', at } }),
    undefined,
  );
  assert.equal(parseHealthRecord({ consecutiveFailures: 0, coolingUntil: 'soon' }), undefined);
  assert.equal(parseHealthRecord('cooling'), undefined);
  assert.equal(parseHealthRecord(undefined), undefined);
});

test('adopt: newest wins field by field; a success after a cooldown began ends it, one before does not', () => {
  let now = 1_000_000_000_000;
  const clock = () => now;
  const here = createProviderHealth(clock);
  here.recordSuccess();

  // Another process was rate limited after our success: its cooldown applies here.
  now += 1_000;
  const there = createProviderHealth(clock);
  there.recordFailure(new PeriscopeError('RATE_LIMITED', 'brave: rate limited', { retryAfterMs: 60_000 }));
  now += 1_000;
  here.adopt(there.toRecord());
  assert.equal(here.coolingForMs(), 59_000);
  assert.equal(here.lastError?.code, 'RATE_LIMITED');
  assert.equal(here.snapshot().consecutiveFailures, 1);

  // An older success elsewhere does not end it; a newer one does.
  const stale = createProviderHealth(() => 1_000_000_000_500);
  stale.recordSuccess();
  here.adopt(stale.toRecord());
  assert.equal(here.coolingForMs(), 59_000);
  there.recordSuccess({ remaining: 10, limit: 100 });
  here.adopt(there.toRecord());
  assert.equal(here.coolingForMs(), 0);
  assert.equal(here.snapshot().consecutiveFailures, 0);
  assert.deepEqual(here.snapshot().quota, { remaining: 10, limit: 100 });

  // A cooldown that began before this process's latest success is not taken in.
  now += 1_000;
  const old = there.toRecord();
  const blocked = createProviderHealth(() => now - 500);
  blocked.recordFailure(new PeriscopeError('BLOCKED_BY_SITE', 'blocked'));
  here.recordSuccess({ remaining: 9, limit: 100 });
  here.adopt(blocked.toRecord());
  assert.equal(here.coolingForMs(), 0);
  // An older quota does not replace a newer one.
  here.adopt(old);
  assert.deepEqual(here.snapshot().quota, { remaining: 9, limit: 100 });
});

test('the sync writes with a TTL under search-health:<id>:<account>, and a failing store never fails a call', async () => {
  const memory = createMemoryStore();
  const ttls: Array<number | undefined> = [];
  const store: Store = Object.assign(Object.create(memory) as Store, {
    set: (key: string, value: unknown, options?: { ttlMs?: number }) => {
      ttls.push(options?.ttlMs);
      return memory.set(key, value, options);
    },
  });
  const settings = { apiKey: 'secret-key-1', baseUrl: 'http://127.0.0.1:9/' };
  const state = {
    provider: { id: 'my/provider' },
    settings,
    health: createProviderHealth(),
  } as unknown as ProviderState;
  state.health.recordFailure(new PeriscopeError('NETWORK', 'refused'));
  await createHealthSync(async () => store).save(state, true);
  const key = healthKey('my/provider', settings);
  assert.match(key, /^search-health:my%2Fprovider:[\w-]{16}$/);
  assert.ok(!key.includes('secret-key-1'));
  assert.equal(((await memory.get(key)) as { lastError: { message: string } }).lastError.message, 'refused');
  // Another key, another endpoint, or neither: each its own record.
  const others = [
    { ...settings, apiKey: 'secret-key-2' },
    { ...settings, baseUrl: 'http://127.0.0.1:10/' },
    {},
  ].map((other) => healthKey('my/provider', other));
  assert.equal(new Set([key, ...others]).size, 4);
  assert.equal(await memory.get(others[0] as string), undefined);
  assert.deepEqual(ttls, [HEALTH_TTL_MS]);

  const broken = createHealthSync(() => Promise.reject(new Error('store down')));
  await broken.load([state]);
  await broken.save(state, true);
  assert.equal(createHealthSync(undefined).save(state, true), undefined);
  await memory.close();
});
