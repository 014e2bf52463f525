/**
 * The network policy: the allow-list and the resolver decided once, with the resolver's limits named and checked
 * when it is built. DNS queries go to the local DNS server on 127.0.0.1 only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isPeriscopeError, type PeriscopeError } from '../errors.ts';
import { type DnsServer, startDnsServer } from '../testing/dns-server.ts';
import { createHttpClient } from './http-client.ts';
import { DEFAULT_RESOLVER_LIMITS } from './network-limits.ts';
import { createNetworkPolicy } from './network-policy.ts';
import type { LookupFunction } from './types.ts';

let dns: DnsServer;

before(async () => {
  dns = await startDnsServer({ 'exists.test': ['127.0.0.1'], 'silent.test': { silent: true } });
});
after(() => dns.close());

function caught(run: () => unknown): PeriscopeError {
  try {
    run();
  } catch (error) {
    assert.ok(isPeriscopeError(error), String(error));
    return error;
  }
  assert.fail('expected a PeriscopeError');
}

async function rejected(promise: Promise<unknown>): Promise<PeriscopeError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isPeriscopeError(error), String(error));
    return error;
  }
  assert.fail('expected a PeriscopeError');
}

const queriesFor = (name: string) => dns.queries.filter((query) => query.name === name).length;

describe('the resolver limits (network.dnsTimeoutMs, network.dnsTries)', () => {
  test('documented defaults: 2 000 ms a query, 2 tries', () => {
    assert.deepEqual(DEFAULT_RESOLVER_LIMITS, { dnsTimeoutMs: 2_000, dnsTries: 2 });
  });

  test('dnsTries is how many times each question is sent to dnsServer; dnsTimeoutMs how long each waits', async () => {
    for (const dnsTries of [1, 2]) {
      const before = queriesFor('silent.test');
      const policy = createNetworkPolicy({ dnsServer: dns.address, dnsTimeoutMs: 100, dnsTries });
      const started = performance.now();
      const error = await rejected(policy.resolve(policy.checkUrl('http://silent.test/')));
      const elapsedMs = performance.now() - started;
      assert.equal(error.code, 'NETWORK');
      assert.match(error.message, /could not be resolved/);
      // A and AAAA, each sent dnsTries times.
      assert.equal(queriesFor('silent.test') - before, 2 * dnsTries, `dnsTries ${dnsTries}`);
      // One try of 100 ms (c-ares rounds short timeouts up a little): before the default's first try alone (2 000 ms)
      // would have given up, the bound that still tells them apart on a loaded machine.
      if (dnsTries === 1) assert.ok(elapsedMs < 2_000, `gave up after ${Math.round(elapsedMs)} ms`);
    }
  });

  test('a resolver limit out of range is CONFIG_INVALID naming the limit, when the policy is built', () => {
    for (const [settings, limit] of [
      [{ dnsTimeoutMs: 0 }, 'dnsTimeoutMs'],
      [{ dnsTimeoutMs: 1.5 }, 'dnsTimeoutMs'],
      [{ dnsTries: 0 }, 'dnsTries'],
    ] as const) {
      const error = caught(() => createNetworkPolicy(settings));
      assert.equal(error.code, 'CONFIG_INVALID');
      assert.equal(error.details.limit, limit);
      assert.match(error.message, new RegExp(`^${limit} must be`));
    }
  });

  test('the standalone client takes them too', async () => {
    const before = queriesFor('silent.test');
    const fetch = createHttpClient({ dnsServer: dns.address, dnsTimeoutMs: 100, dnsTries: 1 });
    const error = await rejected(fetch('http://silent.test/'));
    assert.equal(error.code, 'NETWORK');
    assert.equal(queriesFor('silent.test') - before, 2);
    assert.equal(caught(() => createHttpClient({ dnsTries: 0 })).code, 'CONFIG_INVALID');
  });
});

describe('one policy', () => {
  const lookup: LookupFunction = async (hostname) => {
    if (hostname === 'wiki.example') return [{ address: '10.1.1.1', family: 4 }];
    throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  };

  test('its checks use its own allow-list and resolver', async () => {
    const opened = createNetworkPolicy({ allowPrivateNetwork: ['10.0.0.0/8'] }, { lookup });
    const closed = createNetworkPolicy({}, { lookup });
    assert.equal(opened.lookup, lookup);
    assert.deepEqual(opened.allowList.entries, ['10.0.0.0/8']);
    assert.equal(opened.checkUrl('http://10.2.3.4/').hostname, '10.2.3.4');
    assert.equal(caught(() => closed.checkUrl('http://10.2.3.4/')).code, 'URL_BLOCKED');
    assert.equal(closed.checkUrl('http://10.2.3.4/', { trusted: true }).hostname, '10.2.3.4');
    const target = opened.checkUrl('http://wiki.example/');
    assert.deepEqual(await opened.resolve(target), [{ address: '10.1.1.1', family: 4 }]);
    assert.equal((await rejected(closed.resolve(target))).code, 'URL_BLOCKED');
  });

  test('a client handed a policy refuses the settings that would build a second one', () => {
    const policy = createNetworkPolicy({ allowPrivateNetwork: ['127.0.0.1/32'] });
    for (const settings of [
      { allowPrivateNetwork: ['10.0.0.0/8'] },
      { lookup },
      { dnsServer: dns.address },
      { dnsTimeoutMs: 500 },
      { dnsTries: 1 },
    ]) {
      const error = caught(() => createHttpClient({ policy, ...settings }));
      assert.equal(error.code, 'CONFIG_INVALID');
      assert.match(error.message, /network policy/);
    }
    assert.equal(typeof createHttpClient({ policy, totalTimeoutMs: 1_000 }), 'function');
  });

  test('the standalone client still builds its own from allowPrivateNetwork and lookup (the former options)', async () => {
    const fetch = createHttpClient({ lookup });
    const error = await rejected(fetch('http://wiki.example/'));
    assert.equal(error.code, 'URL_BLOCKED');
    assert.match(error.message, /10\.1\.1\.1/);
  });
});
