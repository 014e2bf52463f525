import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TLSSocket } from 'node:tls';
import * as zlib from 'node:zlib';
import { createLoopbackConnectGuard } from '../testing/connect-guard.ts';
import { type LoopbackServer, startHttpServerOn } from '../testing/loopback-server.ts';
import { periscopeRejection } from '../testing/rejection.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { TEST_TLS_CERT } from '../testing/tls-fixtures.ts';
import type { HttpClientOptions } from './http-client.ts';
import { createHttpClient, DEFAULT_USER_AGENT } from './http-client.ts';
import type { LookupFunction } from './types.ts';

// All servers are on 127.0.0.1 / 127.0.0.2, opened explicitly; the connect guard refuses anything else.
const LOOPBACK = ['127.0.0.1/32', '127.0.0.2/32', '127.0.0.3/32'];
const FAST = {
  connectTimeoutMs: 1_000,
  headersTimeoutMs: 1_000,
  bodyTimeoutMs: 1_000,
  totalTimeoutMs: 3_000,
};

function client(options: HttpClientOptions = {}) {
  const guard = createLoopbackConnectGuard();
  return createHttpClient({
    ...FAST,
    allowPrivateNetwork: LOOPBACK,
    ...options,
    beforeConnect: guard.beforeConnect,
  });
}

const failure = (promise: Promise<unknown>) => periscopeRejection(promise, 'the fetch');

const text = (body: Uint8Array) => Buffer.from(body).toString('utf8');
const PAGE = 'hello '.repeat(1000);

let server: TestServer;
let other: LoopbackServer;

before(async () => {
  const encoded: Record<string, Buffer> = {
    gzip: zlib.gzipSync(PAGE),
    'x-gzip': zlib.gzipSync(PAGE),
    deflate: zlib.deflateSync(PAGE),
    'deflate-raw': zlib.deflateRawSync(PAGE),
    br: zlib.brotliCompressSync(PAGE),
    'deflate, gzip': zlib.gzipSync(zlib.deflateSync(PAGE)),
    zstd: typeof zlib.zstdCompressSync === 'function' ? zlib.zstdCompressSync(PAGE) : Buffer.alloc(0),
  };
  server = await startTestServer({
    '/echo': (request, response, body) => {
      response.writeHead(200, {
        'content-type': 'application/json',
        'X-Mixed-Case': 'yes',
        'set-cookie': 'a=1',
      });
      response.end(JSON.stringify({ method: request.method, headers: request.headers, body }));
    },
    '/status': (request, response) => {
      const code = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('code'));
      response.writeHead(code, { 'content-type': 'text/plain' }).end(`status ${code}`);
    },
    '/encoded': (request, response) => {
      const coding = new URL(request.url ?? '/', 'http://x').searchParams.get('coding') ?? '';
      const body = encoded[coding] ?? Buffer.from('not compressed');
      const header = coding === 'deflate-raw' ? 'deflate' : coding;
      response.writeHead(200, { 'content-encoding': header, 'content-length': body.length }).end(body);
    },
    '/corrupt-gzip': (_request, response) => {
      response.writeHead(200, { 'content-encoding': 'gzip' }).end(Buffer.from('definitely not gzip data'));
    },
    '/redirect': (request, response) => {
      const url = new URL(request.url ?? '/', 'http://x');
      const headers: Record<string, string> = {};
      const to = url.searchParams.get('to');
      if (to) headers.location = to;
      response.writeHead(Number(url.searchParams.get('code') ?? 302), headers).end('moved');
    },
    '/slow-headers': () => {},
    '/head-large': (_request, response) => {
      response.writeHead(200, { 'content-length': 50_000_000 }).end();
    },
    '/form': (request, response, body) => {
      if (request.method === 'POST') {
        response.writeHead(303, { location: '/form' }).end();
        return;
      }
      response.writeHead(200).end(`form page ${body}`);
    },
  });
  other = await startHttpServerOn('127.0.0.2', (request, response, body) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ method: request.method, headers: request.headers, body }));
  });
});

after(async () => {
  await server.close();
  await other.close();
});

describe('requests and responses', () => {
  it('sends user-agent and accept-encoding; caller headers win; Host comes from the URL', async () => {
    const fetch = client();
    const plain = JSON.parse(text((await fetch(`${server.url}/echo`)).body));
    assert.equal(plain.headers['user-agent'], DEFAULT_USER_AGENT);
    assert.equal(plain.headers['accept-encoding'], 'gzip, deflate, br');
    assert.equal(plain.headers.host, `127.0.0.1:${server.port}`);
    const custom = JSON.parse(
      text(
        (
          await fetch(`${server.url}/echo`, {
            headers: {
              'User-Agent': 'custom/1',
              'Accept-Encoding': 'identity',
              Host: 'evil.example',
              Accept: 'x/y',
            },
          })
        ).body,
      ),
    );
    assert.equal(custom.headers['user-agent'], 'custom/1');
    assert.equal(custom.headers['accept-encoding'], 'identity');
    assert.equal(custom.headers.accept, 'x/y');
    assert.equal(custom.headers.host, `127.0.0.1:${server.port}`);
  });

  it('returns status, lower-cased headers (no set-cookie), body, urls and remote address', async () => {
    const response = await client({ userAgent: 'ua-test' })(`${server.url}/echo#fragment`);
    assert.equal(response.status, 200);
    assert.equal(response.statusText, 'OK');
    assert.equal(response.headers['x-mixed-case'], 'yes');
    assert.equal(response.headers['set-cookie'], undefined);
    assert.equal(response.url, `${server.url}/echo#fragment`);
    assert.equal(response.finalUrl, `${server.url}/echo#fragment`);
    assert.deepEqual(response.redirects, []);
    assert.equal(response.remoteAddress, '127.0.0.1');
    assert.equal(JSON.parse(text(response.body)).headers['user-agent'], 'ua-test');
  });

  it('returns error statuses instead of throwing', async () => {
    const fetch = client();
    for (const code of [404, 429, 500, 503]) {
      const response = await fetch(`${server.url}/status?code=${code}`);
      assert.equal(response.status, code);
      assert.equal(text(response.body), `status ${code}`);
    }
  });

  it('sends bodies with content-length, and HEAD reads nothing', async () => {
    const fetch = client();
    const posted = JSON.parse(
      text((await fetch(`${server.url}/echo`, { method: 'post', body: 'a=1' })).body),
    );
    assert.equal(posted.method, 'POST');
    assert.equal(posted.body, 'a=1');
    assert.equal(posted.headers['content-length'], '3');
    const head = await fetch(`${server.url}/echo`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.body.length, 0);
    // HEAD's content-length describes the GET body: not a reason to refuse.
    const headLarge = await fetch(`${server.url}/head-large`, { method: 'HEAD', limits: { maxBytes: 1000 } });
    assert.equal(headLarge.headers['content-length'], '50000000');
  });

  it('turns userinfo into Basic authorization and keeps it out of results', async () => {
    const response = await client()(`http://user:p%40ss@127.0.0.1:${server.port}/echo`);
    const seen = JSON.parse(text(response.body));
    assert.equal(seen.headers.authorization, `Basic ${Buffer.from('user:p@ss').toString('base64')}`);
    assert.equal(response.url, `${server.url}/echo`);
  });

  it('refuses bad methods, headers and limits', async () => {
    const fetch = client();
    assert.equal((await failure(fetch(server.url, { method: 'CONNECT' }))).code, 'INVALID_INPUT');
    assert.equal(
      (await failure(fetch(server.url, { headers: { 'x-a': 'b\r\nc: d' } }))).code,
      'INVALID_INPUT',
    );
    assert.equal((await failure(fetch(server.url, { limits: { maxBytes: -1 } }))).code, 'INVALID_INPUT');
    assert.throws(() => createHttpClient({ connectTimeoutMs: 0 }), { code: 'CONFIG_INVALID' });
    assert.throws(() => createHttpClient({ maxRedirects: 1.5 }), { code: 'CONFIG_INVALID' });
    assert.throws(() => createHttpClient({ proxy: { httpProxy: 'ftp://proxy:21' } }), {
      code: 'CONFIG_INVALID',
    });
  });
});

describe('content decoding', () => {
  const codings = ['gzip', 'x-gzip', 'deflate', 'deflate-raw', 'br', 'deflate, gzip'];
  if (typeof zlib.zstdCompressSync === 'function') codings.push('zstd');
  for (const coding of codings) {
    it(`decodes ${coding}`, async () => {
      const response = await client()(`${server.url}/encoded?coding=${encodeURIComponent(coding)}`);
      assert.equal(text(response.body), PAGE);
      assert.equal(response.headers['content-encoding'], undefined);
      assert.equal(response.headers['content-length'], undefined);
    });
  }

  it('returns an unknown coding as is, header kept', async () => {
    const response = await client()(`${server.url}/encoded?coding=compress`);
    assert.equal(text(response.body), 'not compressed');
    assert.equal(response.headers['content-encoding'], 'compress');
  });

  it('a corrupt body is UNSUPPORTED_CONTENT', async () => {
    const error = await failure(client()(`${server.url}/corrupt-gzip`));
    assert.equal(error.code, 'UNSUPPORTED_CONTENT');
    assert.match(error.message, /could not be decoded/);
  });
});

describe('redirects', () => {
  const redirect = (code: number, to: string) =>
    `${server.url}/redirect?code=${code}&to=${encodeURIComponent(to)}`;

  it('303 turns POST into GET without the body', async () => {
    const response = await client()(redirect(303, `${server.url}/echo`), {
      method: 'POST',
      body: 'payload',
      headers: { 'content-type': 'text/plain' },
    });
    const seen = JSON.parse(text(response.body));
    assert.equal(seen.method, 'GET');
    assert.equal(seen.body, '');
    assert.equal(seen.headers['content-type'], undefined);
    assert.equal(response.finalUrl, `${server.url}/echo`);
    assert.deepEqual(response.redirects, [`${server.url}/echo`]);
  });

  it('301/302 turn POST into GET; 307/308 keep method and body', async () => {
    const fetch = client();
    for (const [code, method, body] of [
      [301, 'GET', ''],
      [302, 'GET', ''],
      [307, 'POST', 'payload'],
      [308, 'POST', 'payload'],
    ] as const) {
      const response = await fetch(redirect(code, `${server.url}/echo`), { method: 'POST', body: 'payload' });
      const seen = JSON.parse(text(response.body));
      assert.equal(seen.method, method, String(code));
      assert.equal(seen.body, body, String(code));
    }
    const put = await fetch(redirect(302, `${server.url}/echo`), { method: 'PUT', body: 'x' });
    assert.equal(JSON.parse(text(put.body)).method, 'PUT');
  });

  it('cross-origin redirects drop authorization, cookie and proxy-authorization; same-origin keeps them', async () => {
    const fetch = client();
    const headers = {
      authorization: 'Bearer secret',
      cookie: 'session=1',
      'proxy-authorization': 'Basic x',
      'x-keep': '1',
    };
    const same = JSON.parse(text((await fetch(redirect(302, `${server.url}/echo`), { headers })).body));
    assert.equal(same.headers.authorization, 'Bearer secret');
    assert.equal(same.headers.cookie, 'session=1');
    const cross = JSON.parse(text((await fetch(redirect(302, `${other.url}/`), { headers })).body));
    assert.equal(cross.headers.authorization, undefined);
    assert.equal(cross.headers.cookie, undefined);
    assert.equal(cross.headers['proxy-authorization'], undefined);
    assert.equal(cross.headers['x-keep'], '1');
    // Another port is another origin, too; and credentials from userinfo are dropped like any other.
    const userinfo = `http://u:p@127.0.0.1:${server.port}/redirect?to=${encodeURIComponent(`${other.url}/`)}`;
    assert.equal(JSON.parse(text((await fetch(userinfo)).body)).headers.authorization, undefined);
  });

  it('a redirect without location, or with an unusable one, is returned as is', async () => {
    const fetch = client();
    const response = await fetch(`${server.url}/redirect?code=302`);
    assert.equal(response.status, 302);
    assert.equal(text(response.body), 'moved');
    assert.equal((await fetch(redirect(301, 'http://[bad'))).status, 301);
    assert.equal((await fetch(redirect(300, `${server.url}/echo`))).status, 300);
  });

  it('POST → 303 → GET of the same URL is not a loop', async () => {
    const response = await client()(`${server.url}/form`, { method: 'POST', body: 'a=1' });
    assert.equal(text(response.body), 'form page ');
    assert.deepEqual(response.redirects, [`${server.url}/form`]);
  });

  it('error messages and details never carry credentials', async () => {
    const url = `http://user:hunter2@127.0.0.1:${server.port}/redirect?code=302&api_key=SECRET&to=/redirect`;
    const error = await failure(client()(url, { limits: { maxRedirects: 0 } }));
    const serialized = JSON.stringify(error.toJSON());
    assert.doesNotMatch(serialized, /hunter2|SECRET/);
    assert.match(error.message, /api_key=\*\*\*/);
  });

  it('maxRedirects 0 refuses the first redirect, naming the limit', async () => {
    const error = await failure(
      client()(redirect(302, `${server.url}/echo`), { limits: { maxRedirects: 0 } }),
    );
    assert.equal(error.code, 'HTTP_STATUS');
    assert.equal(error.details.limit, 'maxRedirects');
    assert.match(error.message, /more than 0 redirects \(maxRedirects\)/);
  });
});

describe('cancellation', () => {
  it('an already aborted signal fails with ABORTED before connecting', async () => {
    const guard = createLoopbackConnectGuard();
    const fetch = createHttpClient({ allowPrivateNetwork: LOOPBACK, beforeConnect: guard.beforeConnect });
    const error = await failure(fetch(`${server.url}/echo`, { signal: AbortSignal.abort() }));
    assert.equal(error.code, 'ABORTED');
    assert.deepEqual(guard.attempts, []);
  });

  it('aborting while waiting for headers fails with ABORTED at once', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await failure(client()(`${server.url}/slow-headers`, { signal: controller.signal }));
    // ABORTED, not the TIMEOUT headersTimeoutMs would give: the abort ended the wait (a clock would say so only on
    // an idle machine).
    assert.equal(error.code, 'ABORTED');
    assert.equal(error.retryable, false);
  });
});

describe('connecting', () => {
  it('tries the next checked address when one refuses', async () => {
    const lookup: LookupFunction = async () => [
      { address: '127.0.0.3', family: 4 },
      { address: '127.0.0.2', family: 4 },
    ];
    const guard = createLoopbackConnectGuard();
    const fetch = createHttpClient({
      ...FAST,
      lookup,
      allowPrivateNetwork: LOOPBACK,
      beforeConnect: guard.beforeConnect,
    });
    const response = await fetch(`http://two.test:${other.port}/`);
    assert.equal(response.remoteAddress, '127.0.0.2');
    assert.deepEqual(
      guard.attempts.map((attempt) => attempt.host),
      ['127.0.0.3', '127.0.0.2'],
    );
  });

  it('a refused connection is NETWORK and retryable', async () => {
    const error = await failure(client()('http://127.0.0.3:9/'));
    assert.equal(error.code, 'NETWORK');
    assert.equal(error.retryable, true);
    assert.match(error.message, /refused/);
  });
});

describe('https', () => {
  let secure: LoopbackServer;
  const servernames: Array<string | false | null> = [];
  const lookup: LookupFunction = async () => [{ address: '127.0.0.2', family: 4 }];
  before(async () => {
    secure = await startHttpServerOn(
      '127.0.0.2',
      (request, response) => {
        servernames.push((request.socket as TLSSocket).servername);
        response.writeHead(200).end('secure');
      },
      { tls: true },
    );
  });
  after(() => secure.close());

  it('connects to the checked address with the original name for SNI and the certificate', async () => {
    const fetch = client({ lookup, ca: TEST_TLS_CERT });
    const response = await fetch(`https://periscope.test:${secure.port}/`);
    assert.equal(text(response.body), 'secure');
    assert.equal(response.remoteAddress, '127.0.0.2');
    assert.equal(servernames.at(-1), 'periscope.test');
  });

  it('verifies IP-literal hosts against the certificate without SNI', async () => {
    const response = await client({ ca: TEST_TLS_CERT })(`https://127.0.0.2:${secure.port}/`);
    assert.equal(text(response.body), 'secure');
    assert.equal(servernames.at(-1), false);
  });

  it('an untrusted certificate or a wrong name is NETWORK, not retryable', async () => {
    const untrusted = await failure(client({ lookup })(`https://periscope.test:${secure.port}/`));
    assert.equal(untrusted.code, 'NETWORK');
    assert.equal(untrusted.retryable, false);
    assert.match(untrusted.message, /TLS/);
    const wrongName = await failure(
      client({ lookup, ca: TEST_TLS_CERT })(`https://other.test:${secure.port}/`),
    );
    assert.equal(wrongName.code, 'NETWORK');
    assert.equal(wrongName.retryable, false);
  });
});
