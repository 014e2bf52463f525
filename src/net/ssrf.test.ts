/**
 * SSRF tests against the real guarded client and real loopback sockets.
 *
 * Network rule: these tests only ever send traffic to 127.0.0.0/8. Private and public addresses other than
 * loopback appear only (a) in pure policy tests, or (b) as answers of an injected resolver / local DNS server in
 * tests that assert refusal. For (b) the client gets `beforeConnect` from createLoopbackConnectGuard(): every TCP
 * connect passes through it first, and it refuses (and records) anything outside loopback, so even a guard bug
 * cannot put a packet on the wire. Each test also asserts that the guard saw no violation.
 *
 * Loopback stands in for "public" where a real connection is needed: a server on 127.0.0.2 opened with
 * allowPrivateNetwork ['127.0.0.2/32'], while the canary on 127.0.0.1 (same port where it matters) stays closed.
 */
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { after, before, describe, it } from 'node:test';
import { createLoopbackConnectGuard } from '../testing/connect-guard.ts';
import { type DnsServer, startDnsServer } from '../testing/dns-server.ts';
import { type LoopbackServer, startCanaryServer, startHttpServerOn } from '../testing/loopback-server.ts';
import { periscopeRejection } from '../testing/rejection.ts';
import { createAllowList } from './allow-list.ts';
import type { HttpClientOptions } from './http-client.ts';
import { createHttpClient } from './http-client.ts';
import { resolveTarget } from './pinned-lookup.ts';
import type { LookupFunction } from './types.ts';
import { checkUrl } from './url-policy.ts';

const FAST = { connectTimeoutMs: 500, headersTimeoutMs: 500, bodyTimeoutMs: 500, totalTimeoutMs: 2_000 };

const failure = (promise: Promise<unknown>) => periscopeRejection(promise, 'the fetch');

function mapLookup(map: Record<string, string[]>, calls: string[] = []): LookupFunction {
  return async (hostname) => {
    calls.push(hostname);
    const addresses = map[hostname];
    if (!addresses) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

let canary: LoopbackServer;
/**
 * A canary on ::1 at the same port as `canary`, so IPv6 forms that got through would have something to hit.
 * Undefined where ::1 (or that port on it) is not available: the IPv6 forms must still be URL_BLOCKED.
 */
let canary6: LoopbackServer | undefined;
let allowed: LoopbackServer;

/** TCP connections either canary accepted. */
const canaryHits = () => canary.connections + (canary6?.connections ?? 0);

before(async () => {
  canary = await startCanaryServer('127.0.0.1');
  canary6 = await startHttpServerOn('::1', (_request, response) => response.end('canary'), {
    port: canary.port,
  }).catch(() => undefined);
  allowed = await startHttpServerOn('127.0.0.2', (request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    const to = url.searchParams.get('to');
    if (to !== null) {
      response.writeHead(Number(url.searchParams.get('code') ?? 302), { location: to }).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/plain' }).end('allowed page');
  });
});

after(async () => {
  await canary.close();
  await canary6?.close();
  await allowed.close();
});

function client(options: HttpClientOptions = {}) {
  const guard = createLoopbackConnectGuard();
  const fetch = createHttpClient({ ...FAST, ...options, beforeConnect: guard.beforeConnect });
  return { fetch, guard };
}

/**
 * Every literal spelling of a loopback host the issue names, aimed at the canaries' port (127.0.0.1 and ::1):
 * IPv4 decimal/octal/hex/short forms, trailing dot, percent-encoding, 0 / 0.0.0.0, local names, and IPv6 loopback,
 * unspecified, mapped, compatible, NAT64, 6to4 and zone-id forms. Used by the direct and the redirect tables.
 */
const LOOPBACK_FORMS = [
  '127.0.0.1',
  '127.1',
  '127.0.1',
  '2130706433',
  '017700000001',
  '0x7f000001',
  '0177.0.0.1',
  '0x7f.0.0.1',
  '0x7f.1',
  '127.0.0.1.',
  '0x7f000001.',
  '127.000.000.001',
  '%31%32%37.0.0.1',
  '%30x7f.1',
  '127.0.0.1%2e',
  '\uff11\uff12\uff17.0.0.1',
  '0',
  '0.0.0.0',
  'localhost',
  'LOCALHOST',
  'localhost.',
  'sub.localhost',
  '%6c%6f%63%61%6c%68%6f%73%74',
  '[::1]',
  '[0:0:0:0:0:0:0:1]',
  '[::]',
  '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
  '[0:0:0:0:0:ffff:127.0.0.1]',
  '[::127.0.0.1]',
  '[64:ff9b::7f00:1]',
  '[2002:7f00:1::]',
  '[::1%25lo]',
  '[::ffff:127.0.0.1%25lo]',
  '[::1%251]',
];

/** A bracketed host with a zone id (`[::1%25lo]`): the WHATWG URL parser refuses the whole URL. */
const hasZoneId = (text: string) => /\[[^\]]*%25/.test(text);

describe('literal loopback forms aimed at a canary', () => {
  for (const form of LOOPBACK_FORMS) {
    it(`http://${form}:<canary>/ → URL_BLOCKED, zero hits`, async () => {
      const { fetch, guard } = client();
      const error = await failure(fetch(`http://${form}:${canary.port}/`));
      assert.equal(error.code, 'URL_BLOCKED');
      assert.equal(error.retryable, false);
      assert.equal(guard.attempts.length, 0);
      assert.equal(canaryHits(), 0);
    });
  }

  it('zone ids aimed at a canary on ::1, even allow-listed: URL_BLOCKED (scoped), zero hits', async (context) => {
    const own = await startCanaryServer('::1').catch((error: NodeJS.ErrnoException) => {
      context.skip(`::1 is not available on this machine (${error.code ?? error.message})`);
    });
    if (!own) return;
    try {
      const { fetch, guard } = client({ allowPrivateNetwork: ['::1/128', '127.0.0.0/8'] });
      for (const form of LOOPBACK_FORMS.filter(hasZoneId)) {
        const error = await failure(fetch(`http://${form}:${own.port}/`));
        assert.equal(error.code, 'URL_BLOCKED', form);
        assert.equal(error.details.reason, 'scoped', form);
        assert.match(error.message, /is a non-public address \(scoped, %/, form);
      }
      assert.equal(own.connections, 0);
      // The same allow-listed URL without the zone id reaches this canary: the zero above is not vacuous.
      const response = await fetch(`http://[::1]:${own.port}/`);
      assert.equal(Buffer.from(response.body).toString(), 'canary');
      assert.equal(own.connections, 1);
      assert.deepEqual(guard.attempts, [{ host: '::1', port: own.port, via: 'direct' }]);
    } finally {
      await own.close();
    }
  });

  it('https and IPv6 zone forms are refused too', async () => {
    const { fetch, guard } = client();
    for (const url of [
      `https://127.0.0.1:${canary.port}/`,
      'http://[fe80::1%25lo]/',
      'http://[fe80::1%25eth0]:80/',
    ]) {
      assert.equal((await failure(fetch(url))).code, 'URL_BLOCKED', url);
    }
    assert.equal(guard.attempts.length, 0);
    assert.equal(canary.connections, 0);
  });
});

describe('host names resolving to non-public addresses (injected resolver)', () => {
  const answers: Record<string, string[]> = {
    'private.test': ['10.0.0.1'],
    'metadata.test': ['169.254.169.254'],
    'loopback.test': ['127.0.0.1'],
    'v6-loopback.test': ['::1'],
    'ula.test': ['fd00::1'],
    'mapped.test': ['::ffff:127.0.0.1'],
    'nat64.test': ['64:ff9b::a9fe:a9fe'],
    'cgnat.test': ['100.64.0.1'],
    'mixed.test': ['127.0.0.2', '10.0.0.1'],
    'mixed-v6.test': ['127.0.0.2', 'fe80::1'],
  };
  for (const name of Object.keys(answers)) {
    it(`${name} (${answers[name]?.join(', ')}) → URL_BLOCKED before any connect`, async () => {
      const calls: string[] = [];
      const { fetch, guard } = client({
        lookup: mapLookup(answers, calls),
        allowPrivateNetwork: ['127.0.0.2/32'],
      });
      const error = await failure(fetch(`http://${name}:${canary.port}/`));
      assert.equal(error.code, 'URL_BLOCKED');
      assert.match(error.message, new RegExp(`host "${name.replace('.', '\\.')}" resolves to`));
      assert.deepEqual(calls, [name]);
      assert.deepEqual(guard.attempts, []);
      assert.equal(canary.connections, 0);
    });
  }

  it('refuses a mix of public and private answers (pure: nothing is connected)', async () => {
    const target = checkUrl('https://mixed.example/');
    const lookup = mapLookup({ 'mixed.example': ['93.184.216.34', '10.0.0.1'] });
    const error = await failure(
      resolveTarget(target, { lookup, allowList: createAllowList(), trusted: false }),
    );
    assert.equal(error.code, 'URL_BLOCKED');
    assert.equal(error.details.address, '10.0.0.1');
    const ok = await resolveTarget(checkUrl('https://public.example/'), {
      lookup: mapLookup({ 'public.example': ['93.184.216.34', '2606:4700::1'] }),
      allowList: createAllowList(),
      trusted: false,
    });
    assert.deepEqual(ok, [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:4700::1', family: 6 },
    ]);
  });

  it('an allow-listed host name may resolve to a private address', async () => {
    const { fetch, guard } = client({
      lookup: mapLookup({ 'intranet.test': ['127.0.0.2'] }),
      allowPrivateNetwork: ['intranet.test'],
    });
    const response = await fetch(`http://intranet.test:${allowed.port}/`);
    assert.equal(response.status, 200);
    assert.equal(response.remoteAddress, '127.0.0.2');
    assert.deepEqual(guard.violations, []);
  });

  it('a host that does not resolve is NETWORK, not retryable', async () => {
    const { fetch } = client({ lookup: mapLookup({}) });
    const error = await failure(fetch('http://missing.test/'));
    assert.equal(error.code, 'NETWORK');
    assert.equal(error.retryable, false);
    assert.equal(error.details.reason, 'dns-not-found');
  });
});

describe('dnsServer: a local DNS server instead of the system resolver', () => {
  let dns: DnsServer;
  before(async () => {
    dns = await startDnsServer({
      'private.test': ['10.0.0.1'],
      'loopback.test': ['127.0.0.1', '::1'],
      'ula.test': ['fd00::1'],
      'mixed.test': ['127.0.0.2', '192.168.1.1'],
      'allowed.test': ['127.0.0.2'],
      'v6only.test': ['fd12:3456::1'],
    });
  });
  after(() => dns.close());

  for (const name of ['private.test', 'loopback.test', 'ula.test', 'mixed.test', 'v6only.test']) {
    it(`${name} → URL_BLOCKED`, async () => {
      const { fetch, guard } = client({ dnsServer: dns.address, allowPrivateNetwork: ['127.0.0.2/32'] });
      assert.equal((await failure(fetch(`http://${name}:${canary.port}/`))).code, 'URL_BLOCKED');
      assert.deepEqual(guard.attempts, []);
      assert.equal(canary.connections, 0);
    });
  }

  it('fetches through an allow-listed answer, asking A and AAAA once each', async () => {
    const { fetch } = client({ dnsServer: dns.address, allowPrivateNetwork: ['127.0.0.2/32'] });
    const before = dns.queries.length;
    const response = await fetch(`http://allowed.test:${allowed.port}/`);
    assert.equal(response.status, 200);
    assert.equal(Buffer.from(response.body).toString(), 'allowed page');
    assert.deepEqual(
      dns.queries
        .slice(before)
        .map((query) => `${query.name} ${query.type}`)
        .sort(),
      ['allowed.test A', 'allowed.test AAAA'],
    );
  });

  it('an unknown name is NETWORK (not found)', async () => {
    const { fetch } = client({ dnsServer: dns.address });
    const error = await failure(fetch('http://nowhere.test/'));
    assert.equal(error.code, 'NETWORK');
    assert.equal(error.details.reason, 'dns-not-found');
  });

  it('rejects a malformed dnsServer with CONFIG_INVALID', () => {
    for (const dnsServer of ['dns.example:53', '1.2.3:53', '127.0.0.1:99999']) {
      assert.throws(() => createHttpClient({ dnsServer }), { code: 'CONFIG_INVALID' }, dnsServer);
    }
  });
});

describe('DNS rebinding: one resolution per hop, connection pinned to the checked address', () => {
  let pinned: LoopbackServer;
  before(async () => {
    // Same port as the canary, on another loopback address: a second resolution would reach the canary.
    pinned = await startHttpServerOn(
      '127.0.0.2',
      (request, response) => {
        if (request.url === '/hop') {
          response.writeHead(302, { location: '/landed' }).end();
          return;
        }
        response.writeHead(200).end('pinned');
      },
      { port: canary.port },
    );
  });
  after(() => pinned.close());

  function rebindingLookup(calls: string[]): LookupFunction {
    // First answer: the allow-listed "public" address; every later answer: the canary's (blocked) address.
    return async (hostname) => {
      calls.push(hostname);
      return [{ address: calls.length === 1 ? '127.0.0.2' : '127.0.0.1', family: 4 }];
    };
  }

  it('resolves once and connects to the address it checked', async () => {
    const calls: string[] = [];
    const { fetch, guard } = client({
      lookup: rebindingLookup(calls),
      allowPrivateNetwork: ['127.0.0.2/32'],
    });
    const response = await fetch(`http://rebind.test:${canary.port}/`);
    assert.equal(Buffer.from(response.body).toString(), 'pinned');
    assert.equal(response.remoteAddress, '127.0.0.2');
    assert.deepEqual(calls, ['rebind.test']);
    assert.deepEqual(guard.attempts, [{ host: '127.0.0.2', port: canary.port, via: 'direct' }]);
    assert.equal(pinned.calls[0]?.headers.host, `rebind.test:${canary.port}`);
    assert.equal(canary.connections, 0);
  });

  it('resolves again on the next hop and checks that answer too', async () => {
    const calls: string[] = [];
    const { fetch } = client({ lookup: rebindingLookup(calls), allowPrivateNetwork: ['127.0.0.2/32'] });
    const error = await failure(fetch(`http://rebind.test:${canary.port}/hop`));
    assert.equal(error.code, 'URL_BLOCKED');
    assert.match(error.message, /redirected from/);
    assert.deepEqual(calls, ['rebind.test', 'rebind.test']);
    assert.equal(canary.connections, 0);
  });
});

describe('redirects from an allow-listed origin to non-public targets', () => {
  /**
   * Every literal form of the canary table (a header carries non-ASCII as percent-encoded UTF-8), then other
   * non-public targets and schemes.
   */
  const targets = () => [
    ...LOOPBACK_FORMS.map(
      (form) => `http://${/[^\x20-\x7e]/.test(form) ? encodeURI(form) : form}:${canary.port}/`,
    ),
    `https://127.0.0.1:${canary.port}/`,
    `//127.0.0.1:${canary.port}/protocol-relative`,
    `//[::1]:${canary.port}/protocol-relative`,
    'http://169.254.169.254/latest/meta-data/',
    'http://0xa9fea9fe/',
    'http://10.0.0.1/',
    'http://[fd00::1]/',
    'http://[fe80::1%25eth0]/',
    'http://private-name.test/',
    'file:///etc/passwd',
    'gopher://127.0.0.1:70/',
  ];
  /** Followed (RFC 9110 §15.4); 300, 304, 305 and 306 are not redirects to follow and come back as they are. */
  const FOLLOWED = new Set([301, 302, 303, 307, 308]);
  const redirectingClient = () =>
    client({
      allowPrivateNetwork: ['127.0.0.2/32'],
      lookup: mapLookup({ 'private-name.test': ['192.168.0.10'] }),
    });
  const start = (code: number, target: string) =>
    `${allowed.url}/?code=${code}&to=${encodeURIComponent(target)}`;

  for (let code = 300; code <= 308; code += 1) {
    if (!FOLLOWED.has(code)) {
      it(`${code} to every encoding is not followed: returned as is, canaries zero hits`, async () => {
        const { fetch, guard } = redirectingClient();
        for (const target of targets()) {
          const response = await fetch(start(code, target));
          assert.equal(response.status, code, target);
          assert.equal(response.headers.location, target, target);
          assert.deepEqual(response.redirects, [], target);
          assert.equal(response.finalUrl, start(code, target), target);
        }
        assert.deepEqual(guard.violations, []);
        assert.ok(guard.attempts.every((attempt) => attempt.host === '127.0.0.2'));
        assert.equal(canaryHits(), 0);
      });
      continue;
    }
    it(`${code} to every encoding → URL_BLOCKED, canaries zero hits`, async () => {
      const { fetch, guard } = redirectingClient();
      const method = code === 307 || code === 308 ? 'POST' : 'GET';
      for (const target of targets()) {
        const request = fetch(start(code, target), { method, body: 'x' });
        if (hasZoneId(target)) {
          // The URL parser refuses a zone id: there is no URL to follow, so the 3xx comes back unfollowed.
          const response = await request;
          assert.equal(response.status, code, target);
          assert.deepEqual(response.redirects, [], target);
          continue;
        }
        const error = await failure(request);
        assert.equal(error.code, 'URL_BLOCKED', `${code} → ${target}`);
        assert.match(error.message, /redirected from/);
        assert.ok(Array.isArray(error.details.redirects));
      }
      assert.deepEqual(guard.violations, []);
      assert.ok(guard.attempts.every((attempt) => attempt.host === '127.0.0.2'));
      assert.equal(canaryHits(), 0);
    });
  }

  it('a redirect to file:///etc/passwd names the scheme', async () => {
    const { fetch } = client({ allowPrivateNetwork: ['127.0.0.2/32'] });
    const error = await failure(fetch(`${allowed.url}/?to=${encodeURIComponent('file:///etc/passwd')}`));
    assert.equal(error.code, 'URL_BLOCKED');
    assert.match(error.message, /"file:" is not allowed/);
  });
});

describe('non-http schemes', () => {
  for (const url of [
    'file:///etc/passwd',
    'ftp://127.0.0.1/',
    'gopher://127.0.0.1:70/_x',
    'data:text/plain,hi',
    'javascript:alert(1)',
  ]) {
    it(`${url} → URL_BLOCKED`, async () => {
      const { fetch, guard } = client();
      const error = await failure(fetch(url));
      assert.equal(error.code, 'URL_BLOCKED');
      assert.match(error.message, /only http and https/);
      assert.deepEqual(guard.attempts, []);
    });
  }
});

describe('trusted endpoints', () => {
  let endpoint: LoopbackServer;
  before(async () => {
    endpoint = await startHttpServerOn('127.0.0.1', (request, response) => {
      const url = new URL(request.url ?? '/', 'http://x');
      const to = url.searchParams.get('to');
      if (to) {
        response.writeHead(302, { location: to }).end();
        return;
      }
      response.writeHead(200).end('trusted');
    });
  });
  after(() => endpoint.close());

  it('a trusted request reaches a loopback endpoint without an allow-list', async () => {
    const { fetch, guard } = client();
    const response = await fetch(`${endpoint.url}/search`, { trusted: true });
    assert.equal(Buffer.from(response.body).toString(), 'trusted');
    assert.deepEqual(guard.violations, []);
    assert.equal((await failure(fetch(`${endpoint.url}/search`))).code, 'URL_BLOCKED');
  });

  it('a same-origin redirect stays trusted', async () => {
    const { fetch } = client();
    const response = await fetch(`${endpoint.url}/?to=/final`, { trusted: true });
    assert.equal(response.status, 200);
    assert.deepEqual(response.redirects, [`${endpoint.url}/final`]);
  });

  it('a redirect to another origin is not trusted', async () => {
    const { fetch } = client();
    const allowedCalls = allowed.calls.length;
    for (const target of [
      `http://127.0.0.1:${canary.port}/`,
      `${allowed.url}/`,
      `http://localhost:${endpoint.port}/`,
    ]) {
      const error = await failure(
        fetch(`${endpoint.url}/?to=${encodeURIComponent(target)}`, { trusted: true }),
      );
      assert.equal(error.code, 'URL_BLOCKED', target);
    }
    assert.equal(canary.connections, 0);
    assert.equal(allowed.calls.length, allowedCalls);
  });
});

describe('test harness sanity (the zero-hit assertions are not vacuous)', () => {
  it('a canary counts a connection', async () => {
    const other = await startCanaryServer('127.0.0.1');
    try {
      const response = await createHttpClient(FAST)(`${other.url}/`, { trusted: true });
      assert.equal(Buffer.from(response.body).toString(), 'canary');
      assert.equal(other.connections, 1);
    } finally {
      await other.close();
    }
  });

  it('the connect guard refuses and records anything but loopback', () => {
    const guard = createLoopbackConnectGuard();
    assert.doesNotThrow(() => guard.beforeConnect({ host: '127.0.0.9', port: 1, via: 'direct' }));
    assert.doesNotThrow(() => guard.beforeConnect({ host: '::1', port: 1, via: 'direct' }));
    assert.throws(() => guard.beforeConnect({ host: '10.0.0.1', port: 80, via: 'direct' }));
    assert.throws(() => guard.beforeConnect({ host: 'proxy.example', port: 80, via: 'proxy' }));
    assert.equal(guard.violations.length, 2);
  });

  it('a connect refused by the guard never reaches the network and fails the fetch', async () => {
    const guard = createLoopbackConnectGuard();
    const fetch = createHttpClient({
      ...FAST,
      lookup: async () => [{ address: '127.0.0.2', family: 4 }],
      allowPrivateNetwork: ['127.0.0.2/32'],
      beforeConnect: (attempt) => guard.beforeConnect({ ...attempt, host: '192.0.2.1' }),
    });
    const error = await failure(fetch(`http://x.test:${allowed.port}/`));
    assert.equal(error.code, 'NETWORK');
    assert.equal(guard.violations.length, 1);
  });
});
