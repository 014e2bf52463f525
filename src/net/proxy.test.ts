/**
 * Proxies: real local HTTP CONNECT and SOCKS5 proxies (src/testing) that only ever tunnel to loopback, targets on
 * 127.0.0.2 / ::1 opened with allowPrivateNetwork, and the loopback connect guard on every client.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { TLSSocket } from 'node:tls';
import { createLoopbackConnectGuard } from '../testing/connect-guard.ts';
import { type ConnectProxyServer, startConnectProxyServer } from '../testing/connect-proxy-server.ts';
import { type LoopbackServer, startCanaryServer, startHttpServerOn } from '../testing/loopback-server.ts';
import { periscopeRejection } from '../testing/rejection.ts';
import { type Socks5Server, startSocks5Server } from '../testing/socks5-server.ts';
import { TEST_TLS_CERT } from '../testing/tls-fixtures.ts';
import type { HttpClientOptions } from './http-client.ts';
import { createHttpClient } from './http-client.ts';
import { createNoProxyMatcher, parseProxyUrl, proxyFromEnvironment } from './proxy.ts';
import type { LookupFunction, ProxySettings } from './types.ts';

const FAST = { connectTimeoutMs: 300, headersTimeoutMs: 1_000, bodyTimeoutMs: 1_000, totalTimeoutMs: 3_000 };
const text = (body: Uint8Array) => Buffer.from(body).toString('utf8');

const failure = (promise: Promise<unknown>) => periscopeRejection(promise, 'the fetch');

describe('proxy settings (pure)', () => {
  it('proxyFromEnvironment: lower case wins, ALL_PROXY fills gaps, empty is unset', () => {
    assert.deepEqual(
      proxyFromEnvironment({ HTTPS_PROXY: 'http://upper:1', https_proxy: 'http://lower:2', NO_PROXY: 'a,b' }),
      { httpsProxy: 'http://lower:2', noProxy: 'a,b' },
    );
    assert.deepEqual(proxyFromEnvironment({ ALL_PROXY: 'socks5://all:1080', HTTP_PROXY: 'http://h:3' }), {
      httpProxy: 'http://h:3',
      httpsProxy: 'socks5://all:1080',
    });
    assert.deepEqual(proxyFromEnvironment({ http_proxy: '', HTTP_PROXY: '  ' }), {});
  });

  it('parseProxyUrl: schemes, default ports, credentials kept out of display', () => {
    assert.deepEqual(parseProxyUrl('http://user:p%40ss@proxy.example:3128'), {
      protocol: 'http:',
      host: 'proxy.example',
      port: 3128,
      username: 'user',
      password: 'p@ss',
      display: 'http://proxy.example:3128',
    });
    assert.equal(parseProxyUrl('proxy.example:8080').protocol, 'http:');
    assert.equal(parseProxyUrl('socks5h://[::1]').port, 1080);
    assert.equal(parseProxyUrl('socks5h://[::1]').host, '::1');
    assert.equal(parseProxyUrl('https://proxy.example').port, 443);
    for (const bad of ['ftp://proxy:21', 'socks4://proxy:1080', 'http://']) {
      assert.throws(() => parseProxyUrl(bad), { code: 'CONFIG_INVALID' }, bad);
    }
    assert.throws(
      () => parseProxyUrl('pac+http://user:secret@x/'),
      (error: Error) => !error.message.includes('secret'),
    );
  });

  it('NO_PROXY matching', () => {
    const bypass = createNoProxyMatcher(
      'example.org, .corp.example *.lan.example,10.0.0.0/8, ::1, [fd00::1]:8443, api.test:8080',
    );
    const cases: Array<[string, number, boolean]> = [
      ['example.org', 443, true],
      ['www.example.org', 443, true],
      ['notexample.org', 443, false],
      ['corp.example', 80, true],
      ['a.corp.example', 80, true],
      ['x.lan.example', 80, true],
      ['10.1.2.3', 80, true],
      ['11.1.2.3', 80, false],
      ['[::1]', 80, true],
      ['fd00::1', 8443, true],
      ['fd00::1', 443, false],
      ['api.test', 8080, true],
      ['api.test', 443, false],
      ['EXAMPLE.ORG.', 80, true],
    ];
    for (const [host, port, expected] of cases) assert.equal(bypass(host, port), expected, `${host}:${port}`);
    assert.equal(createNoProxyMatcher('*')('anything.example', 1), true);
    assert.equal(createNoProxyMatcher(undefined)('anything.example', 1), false);
    assert.equal(createNoProxyMatcher('')('anything.example', 1), false);
  });
});

let site: LoopbackServer;
let secureSite: LoopbackServer;
let siteV6: LoopbackServer;
let canary: LoopbackServer;
const servernames: Array<string | false | null> = [];
const lookup: LookupFunction = async (hostname) => {
  const answers: Record<string, string> = {
    'site.test': '127.0.0.2',
    'periscope.test': '127.0.0.2',
    'private.test': '10.0.0.1',
    'v6.test': '::1',
  };
  const address = answers[hostname];
  if (!address) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return [{ address, family: address.includes(':') ? 6 : 4 }];
};

before(async () => {
  canary = await startCanaryServer('127.0.0.1');
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    response.end(`host=${String(request.headers.host)} path=${request.url}`);
  };
  site = await startHttpServerOn('127.0.0.2', (request, response) => {
    if (request.url?.startsWith('/to-private')) {
      response.writeHead(302, { location: `http://127.0.0.1:${canary.port}/` }).end();
      return;
    }
    handler(request, response);
  });
  secureSite = await startHttpServerOn(
    '127.0.0.2',
    (request, response) => {
      servernames.push((request.socket as TLSSocket).servername);
      handler(request, response);
    },
    { tls: true },
  );
  siteV6 = await startHttpServerOn('::1', handler);
});

after(async () => {
  await Promise.all([site.close(), secureSite.close(), siteV6.close(), canary.close()]);
});

function client(proxy: ProxySettings, options: HttpClientOptions = {}) {
  const guard = createLoopbackConnectGuard();
  const fetch = createHttpClient({
    ...FAST,
    lookup,
    ca: TEST_TLS_CERT,
    allowPrivateNetwork: ['127.0.0.2/32', '::1/128'],
    proxy,
    ...options,
    beforeConnect: guard.beforeConnect,
  });
  return { fetch, guard };
}

describe('HTTP CONNECT proxy', () => {
  let proxy: ConnectProxyServer;
  before(async () => {
    proxy = await startConnectProxyServer();
  });
  after(() => proxy.close());

  it('tunnels an http fetch to the checked IP, never sending the name to the proxy', async () => {
    const { fetch, guard } = client({ httpProxy: proxy.url });
    const response = await fetch(`http://site.test:${site.port}/page?q=1`);
    assert.equal(text(response.body), `host=site.test:${site.port} path=/page?q=1`);
    assert.deepEqual(proxy.connects, [`127.0.0.2:${site.port}`]);
    assert.deepEqual(proxy.plainRequests, []);
    assert.deepEqual(guard.attempts, [{ host: '127.0.0.1', port: proxy.port, via: 'proxy' }]);
    assert.equal(response.remoteAddress, '127.0.0.2');
  });

  it('does TLS over the tunnel with the original name as SNI', async () => {
    const { fetch } = client({ httpsProxy: proxy.url });
    const response = await fetch(`https://periscope.test:${secureSite.port}/secure`);
    assert.equal(text(response.body), `host=periscope.test:${secureSite.port} path=/secure`);
    assert.equal(proxy.connects.at(-1), `127.0.0.2:${secureSite.port}`);
    assert.equal(servernames.at(-1), 'periscope.test');
  });

  it('tunnels to IPv6 targets in brackets', async () => {
    const { fetch } = client({ httpProxy: proxy.url });
    const response = await fetch(`http://v6.test:${siteV6.port}/`);
    assert.equal(response.status, 200);
    assert.equal(proxy.connects.at(-1), `[::1]:${siteV6.port}`);
  });

  it('still blocks non-public targets: the proxy sees nothing', async () => {
    const before = proxy.connects.length;
    const { fetch, guard } = client({ httpProxy: proxy.url, httpsProxy: proxy.url });
    for (const url of [
      'http://10.0.0.1/',
      'https://169.254.169.254/',
      `http://127.0.0.1:${canary.port}/`,
      `http://localhost:${canary.port}/`,
      'http://private.test/',
      'http://[::ffff:7f00:1]/',
    ]) {
      assert.equal((await failure(fetch(url))).code, 'URL_BLOCKED', url);
    }
    assert.equal(proxy.connects.length, before);
    assert.deepEqual(guard.attempts, []);
    assert.deepEqual(proxy.refused, []);
  });

  it('checks redirects through the proxy too', async () => {
    const before = proxy.connects.length;
    const { fetch } = client({ httpProxy: proxy.url });
    const error = await failure(fetch(`http://site.test:${site.port}/to-private`));
    assert.equal(error.code, 'URL_BLOCKED');
    assert.deepEqual(proxy.connects.slice(before), [`127.0.0.2:${site.port}`]);
    assert.equal(canary.connections, 0);
  });

  it('NO_PROXY sends matching hosts direct', async () => {
    const before = proxy.connects.length;
    const { fetch, guard } = client({ httpProxy: proxy.url, noProxy: '.example, site.test' });
    const response = await fetch(`http://site.test:${site.port}/direct`);
    assert.equal(text(response.body), `host=site.test:${site.port} path=/direct`);
    assert.equal(proxy.connects.length, before);
    assert.deepEqual(guard.attempts, [{ host: '127.0.0.2', port: site.port, via: 'direct' }]);
  });

  it('sends Basic proxy credentials; a 407 is NETWORK, not retryable', async () => {
    const authenticated = await startConnectProxyServer({ auth: { username: 'u', password: 'p w' } });
    try {
      const good = client({ httpProxy: `http://u:p%20w@127.0.0.1:${authenticated.port}` });
      assert.equal((await good.fetch(`http://site.test:${site.port}/`)).status, 200);
      const bad = client({ httpProxy: `http://u:wrong@127.0.0.1:${authenticated.port}` });
      const error = await failure(bad.fetch(`http://site.test:${site.port}/`));
      assert.equal(error.code, 'NETWORK');
      assert.equal(error.retryable, false);
      assert.match(error.message, /407/);
      assert.doesNotMatch(error.message, /wrong/);
    } finally {
      await authenticated.close();
    }
  });

  it('speaks TLS to an https:// proxy, then TLS to the target inside the tunnel', async () => {
    const secureProxy = await startConnectProxyServer({ tls: true });
    try {
      const { fetch } = client({ httpsProxy: secureProxy.url, httpProxy: secureProxy.url });
      const response = await fetch(`https://periscope.test:${secureSite.port}/double`);
      assert.equal(text(response.body), `host=periscope.test:${secureSite.port} path=/double`);
      assert.equal((await fetch(`http://site.test:${site.port}/plain`)).status, 200);
      assert.deepEqual(secureProxy.connects, [`127.0.0.2:${secureSite.port}`, `127.0.0.2:${site.port}`]);
    } finally {
      await secureProxy.close();
    }
  });

  it('a proxy that never answers CONNECT hits connectTimeoutMs', async () => {
    const stalled = await startConnectProxyServer({ stall: true });
    try {
      const { fetch } = client({ httpProxy: stalled.url });
      const error = await failure(fetch(`http://site.test:${site.port}/`));
      assert.equal(error.code, 'TIMEOUT');
      assert.equal(error.details.phase, 'connect');
    } finally {
      await stalled.close();
    }
  });
});

describe('SOCKS5 proxy', () => {
  let socks: Socks5Server;
  before(async () => {
    socks = await startSocks5Server();
  });
  after(() => socks.close());

  it('carries an http fetch, asking for the checked IPv4 address', async () => {
    const { fetch, guard } = client({ httpProxy: socks.url });
    const response = await fetch(`http://site.test:${site.port}/socks`);
    assert.equal(text(response.body), `host=site.test:${site.port} path=/socks`);
    assert.deepEqual(socks.connects, [{ host: '127.0.0.2', port: site.port, addressType: 'ipv4' }]);
    assert.deepEqual(guard.attempts, [{ host: '127.0.0.1', port: socks.port, via: 'proxy' }]);
  });

  it('socks5h: still resolves locally and sends the IP; TLS keeps the name for SNI', async () => {
    const { fetch } = client({ httpsProxy: `socks5h://127.0.0.1:${socks.port}` });
    const response = await fetch(`https://periscope.test:${secureSite.port}/h`);
    assert.equal(text(response.body), `host=periscope.test:${secureSite.port} path=/h`);
    assert.deepEqual(socks.connects.at(-1), {
      host: '127.0.0.2',
      port: secureSite.port,
      addressType: 'ipv4',
    });
    assert.equal(servernames.at(-1), 'periscope.test');
  });

  it('uses the IPv6 address type for IPv6 targets', async () => {
    const { fetch } = client({ httpProxy: socks.url });
    assert.equal((await fetch(`http://v6.test:${siteV6.port}/`)).status, 200);
    assert.deepEqual(socks.connects.at(-1), { host: '::1', port: siteV6.port, addressType: 'ipv6' });
  });

  it('still blocks non-public targets: the proxy sees nothing', async () => {
    const before = socks.connects.length;
    const { fetch, guard } = client({
      httpProxy: socks.url,
      httpsProxy: `socks5h://127.0.0.1:${socks.port}`,
    });
    for (const url of [
      'http://10.0.0.1/',
      'https://private.test/',
      `http://0x7f.1:${canary.port}/`,
      'http://[fd00::1]/',
    ]) {
      assert.equal((await failure(fetch(url))).code, 'URL_BLOCKED', url);
    }
    assert.equal(socks.connects.length, before);
    assert.deepEqual(guard.attempts, []);
    assert.equal(canary.connections, 0);
  });

  it('a SOCKS refusal is NETWORK', async () => {
    // The test server refuses non-loopback targets; allow-list one so the client asks for it (no packet leaves:
    // the SOCKS server refuses it before dialling).
    const { fetch } = client({ httpProxy: socks.url }, { allowPrivateNetwork: ['10.9.9.9/32'] });
    const error = await failure(fetch('http://10.9.9.9/'));
    assert.equal(error.code, 'NETWORK');
    assert.match(error.message, /SOCKS5/);
    assert.deepEqual(socks.refused.at(-1), { host: '10.9.9.9', port: 80, addressType: 'ipv4' });
  });

  it('a SOCKS proxy that never answers hits connectTimeoutMs', async () => {
    const stalled = await startSocks5Server({ stall: true });
    try {
      const { fetch } = client({ httpProxy: stalled.url });
      const error = await failure(fetch(`http://site.test:${site.port}/`));
      assert.equal(error.code, 'TIMEOUT');
      assert.equal(error.details.phase, 'connect');
    } finally {
      await stalled.close();
    }
  });
});
