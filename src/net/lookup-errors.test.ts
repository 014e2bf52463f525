/**
 * What a failed name lookup tells the caller: "does not exist" only for NXDOMAIN, "has no address" for a name
 * without A/AAAA records, and "could not be resolved" (retryable) when the resolver itself failed — SERVFAIL,
 * REFUSED, no answer, no DNS server at all. Every query goes to the local DNS server on 127.0.0.1 (or to a closed
 * port there); the system resolver's getaddrinfo is replaced by an injected one.
 */
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import type { LookupAddress } from 'node:dns';
import { after, before, describe, test } from 'node:test';
import { createLoopbackConnectGuard } from '../testing/connect-guard.ts';
import { type DnsServer, startDnsServer } from '../testing/dns-server.ts';
import { periscopeRejection } from '../testing/rejection.ts';
import { createHttpClient } from './http-client.ts';
import { createDnsServerLookup, createSystemLookup } from './pinned-lookup.ts';
import type { LookupFunction } from './types.ts';

let dns: DnsServer;
/** A UDP port on 127.0.0.1 with nothing listening: queries to it are refused (ICMP port unreachable). */
let closedPort = 0;

before(async () => {
  dns = await startDnsServer({
    'exists.test': ['127.0.0.1'],
    'no-address.test': [],
    'servfail.test': { rcode: 'SERVFAIL' },
    'refused.test': { rcode: 'REFUSED' },
    'silent.test': { silent: true },
  });
  const probe = createSocket('udp4');
  await new Promise<void>((resolve) => probe.bind(0, '127.0.0.1', resolve));
  closedPort = probe.address().port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});
after(() => dns.close());

const failure = (promise: Promise<unknown>) => periscopeRejection(promise, 'the lookup');

function fetchWith(lookup: LookupFunction) {
  const guard = createLoopbackConnectGuard();
  return createHttpClient({ lookup, beforeConnect: guard.beforeConnect, totalTimeoutMs: 10_000 });
}

const quick = { timeoutMs: 200, tries: 1 };

describe('a DNS server instead of the system resolver (dnsServer)', () => {
  const lookup = () => createDnsServerLookup(dns.address, quick);

  test('NXDOMAIN: the host does not exist, not retryable', async () => {
    const error = await failure(fetchWith(lookup())('http://nowhere.test/'));
    assert.equal(error.code, 'NETWORK');
    assert.match(error.message, /host "nowhere\.test" does not exist/);
    assert.equal(error.retryable, false);
    assert.equal(error.details.reason, 'dns-not-found');
  });

  test('a name without A or AAAA records has no address: it is not "does not exist"', async () => {
    const error = await failure(fetchWith(lookup())('http://no-address.test/'));
    assert.equal(error.code, 'NETWORK');
    assert.match(error.message, /host "no-address\.test" has no address/);
    assert.doesNotMatch(error.message, /does not exist/);
    assert.equal(error.retryable, false);
    assert.equal(error.details.reason, 'dns-no-address');
  });

  for (const [name, code] of [
    ['servfail.test', 'ESERVFAIL'],
    ['refused.test', 'EREFUSED'],
    ['silent.test', 'ETIMEOUT'],
  ] as const) {
    test(`${code} from the resolver: could not be resolved, retryable`, async () => {
      const error = await failure(fetchWith(lookup())(`http://${name}/`));
      assert.equal(error.code, 'NETWORK');
      assert.match(
        error.message,
        new RegExp(`host "${name.replace('.', '\\.')}" could not be resolved \\(${code}`),
      );
      assert.doesNotMatch(error.message, /does not exist/);
      assert.equal(error.retryable, true);
      assert.equal(error.details.reason, 'dns-failure');
    });
  }

  test('no DNS server listening: could not be resolved, retryable', async () => {
    const error = await failure(
      fetchWith(createDnsServerLookup(`127.0.0.1:${closedPort}`, quick))('http://nowhere.test/'),
    );
    assert.match(error.message, /host "nowhere\.test" could not be resolved/);
    assert.equal(error.retryable, true);
  });
});

describe('the system resolver: getaddrinfo ENOTFOUND is checked against DNS before "does not exist" is said', () => {
  /** getaddrinfo as glibc answers offline and for NXDOMAIN alike: EAI_NONAME, which Node reports as ENOTFOUND. */
  const notFound = async (hostname: string): Promise<LookupAddress[]> => {
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
      code: 'ENOTFOUND',
      syscall: 'getaddrinfo',
      hostname,
    });
  };
  const system = (server: string) =>
    createSystemLookup({ getaddrinfo: notFound, dnsServers: [server], ...quick });

  test('DNS says NXDOMAIN too: the host does not exist', async () => {
    const error = await failure(fetchWith(system(dns.address))('http://nowhere.test/'));
    assert.match(error.message, /host "nowhere\.test" does not exist/);
    assert.equal(error.details.reason, 'dns-not-found');
    assert.equal(error.retryable, false);
  });

  test('DNS unreachable (offline): could not be resolved, retryable — not "does not exist"', async () => {
    for (const server of [`127.0.0.1:${closedPort}`, dns.address]) {
      const host = server === dns.address ? 'silent.test' : 'example.com';
      const error = await failure(fetchWith(system(server))(`http://${host}/`));
      assert.match(error.message, new RegExp(`host "${host.replace('.', '\\.')}" could not be resolved`));
      assert.doesNotMatch(error.message, /does not exist/);
      assert.equal(error.retryable, true);
      assert.equal(error.details.reason, 'dns-failure');
    }
  });

  test('DNS fails (SERVFAIL): could not be resolved', async () => {
    const error = await failure(fetchWith(system(dns.address))('http://servfail.test/'));
    assert.match(error.message, /could not be resolved \(ESERVFAIL/);
    assert.equal(error.retryable, true);
  });

  test('DNS has no address for it: has no address', async () => {
    const error = await failure(fetchWith(system(dns.address))('http://no-address.test/'));
    assert.match(error.message, /has no address/);
    assert.equal(error.details.reason, 'dns-no-address');
  });

  test('getaddrinfo EAI_AGAIN (resolver failure) is could not be resolved, without asking DNS again', async () => {
    const before = dns.queries.length;
    const lookup = createSystemLookup({
      getaddrinfo: async (hostname) => {
        throw Object.assign(new Error(`getaddrinfo EAI_AGAIN ${hostname}`), { code: 'EAI_AGAIN' });
      },
      dnsServers: [dns.address],
      ...quick,
    });
    const error = await failure(fetchWith(lookup)('http://nowhere.test/'));
    assert.match(error.message, /could not be resolved \(EAI_AGAIN/);
    assert.equal(error.retryable, true);
    assert.equal(dns.queries.length, before);
  });

  test('a name getaddrinfo finds is used as it is, without asking DNS', async () => {
    const before = dns.queries.length;
    const lookup = createSystemLookup({
      getaddrinfo: async () => [{ address: '127.0.0.1', family: 4 }],
      dnsServers: [dns.address],
    });
    assert.deepEqual(await lookup('exists.test'), [{ address: '127.0.0.1', family: 4 }]);
    assert.equal(dns.queries.length, before);
  });
});

test('a resolver that throws something that is not a DNS error is an internal failure, not a DNS verdict', async () => {
  const error = await failure(
    fetchWith(async () => {
      throw new TypeError("Cannot read properties of undefined (reading 'address')");
    })('http://broken.test/'),
  );
  assert.equal(error.code, 'INTERNAL');
  assert.doesNotMatch(error.message, /could not be resolved|does not exist/);
});
