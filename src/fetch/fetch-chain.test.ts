/**
 * The web_fetch chain through createPeriscope: an origin on 127.0.0.1 (opened by the allow-list, 127.0.0.1/32
 * only) and reader stand-ins on 127.0.0.1 speaking their APIs. Fallback order, escalation on evidence, the privacy
 * rules, URL_BLOCKED stopping everything, and the display line.
 *
 * An internal URL is never handed to a reader, so the tests that need a reader to be asked use a public name:
 * `rivers.example`, which the injected resolver answers with a public address, reached through a CONNECT proxy on
 * 127.0.0.1 that tunnels every non-loopback target to the origin (network.proxy; loopback endpoints bypass it).
 * No packet leaves 127.0.0.1: the `before` hook checks that the name goes through the proxy before any test runs.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { FetchAttempt, ToolErrorData } from '../errors.ts';
import { createPeriscope } from '../index.ts';
import type { LookupFunction } from '../net/types.ts';
import { type ConnectProxyServer, startConnectProxyServer } from '../testing/connect-proxy-server.ts';
import { type LoopbackServer, startCanaryServer } from '../testing/loopback-server.ts';
import { type StandInReply, startProviderStandIn } from '../testing/provider-stand-in.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import type { WebFetchData } from '../tools/web-fetch.ts';
import type { FetchBackend, FetchedPage } from './fetch-backend.ts';

const ARTICLE = `<!doctype html><html lang="en"><head><title>Rivers of Europe</title></head><body>
<article><h1>Rivers of Europe</h1>
${Array.from({ length: 12 }, (_, index) => `<p>Paragraph ${index}: the Danube flows through ten countries, more than any other river in the world.</p>`).join('\n')}
</article></body></html>`;
const SHELL = readFileSync(new URL('__fixtures__/spa/index.html', import.meta.url), 'utf8');
const JINA_OK = {
  code: 200,
  status: 20000,
  data: {
    title: 'Rivers (via Jina)',
    url: '',
    content: '# Rivers\n\nRendered by the reader: the Danube delta.',
  },
};

/** A page built by a short script of its own (no `src=`): nothing to read until a browser runs it. */
const INLINE_BUILT = `<!doctype html><html><head><title>Rivers</title></head><body><div id=app></div>
<script>document.getElementById('app').innerHTML = '<article><h1>Rivers</h1><p>The Danube flows through ten countries.</p></article>';</script></body></html>`;

/** A bot check as a challenge vendor serves it: 403, a challenge title, a script that would let a browser on. */
const CHALLENGE = `<!doctype html><html><head><title>Just a moment...</title></head><body>
<h1>Checking your browser before accessing the site</h1>
<script>location.replace('/challenge?answer=' + 6 * 7);</script></body></html>`;

/** A public name for the origin (see the file's comment), and the public address the resolver gives it. */
const PUBLIC = 'http://rivers.example';
const PUBLIC_ADDRESS = '93.184.215.14';

type Replies = Record<string, StandInReply>;
type ReaderEntry = { baseUrl?: string; apiKey?: string; timeoutMs?: number };

/** `rivers.example` → PUBLIC_ADDRESS, `intranet.example` → 10.1.2.3, `wiki.test` → 127.0.0.1. */
function resolverFor(publicAddress: string): LookupFunction {
  const answers: Record<string, string> = {
    'rivers.example': publicAddress,
    'intranet.example': '10.1.2.3',
    'wiki.test': '127.0.0.1',
  };
  return async (hostname) => {
    const address = answers[hostname];
    if (address === undefined) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return [{ address, family: 4 }];
  };
}

describe('fetch chain', () => {
  let origin: TestServer;
  let canary: LoopbackServer;
  let proxy: ConnectProxyServer;
  const replies: Replies = {};
  const readers: Record<string, TestServer> = {};
  let originStatus = 200;

  before(async () => {
    canary = await startCanaryServer('127.0.0.2');
    origin = await startTestServer({
      '/article': (_request, response) =>
        response.writeHead(originStatus, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE),
      '/shell': (_request, response) =>
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(SHELL),
      '/inline-built': (_request, response) =>
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(INLINE_BUILT),
      '/missing': (_request, response) =>
        response.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>'),
      '/challenge': (_request, response) =>
        response.writeHead(403, { 'content-type': 'text/html; charset=utf-8' }).end(CHALLENGE),
      '/to-private': (_request, response) =>
        response.writeHead(302, { location: `http://127.0.0.2:${canary.port}/` }).end(),
    });
    for (const id of ['jina-reader', 'firecrawl', 'tavily']) {
      readers[id] = await startProviderStandIn(
        () => replies[id] ?? { status: 500, body: { error: 'no reply set' } },
      );
    }
    proxy = await startConnectProxyServer({ publicTargetsTo: { host: '127.0.0.1', port: origin.port } });
    // The safety check: with the name answered by a loopback address, the fetch goes to the proxy (CONNECT to the
    // checked address), not straight to the address, so with the public answer it never dials out either.
    const probe = await open(['local'], { publicAddress: '127.0.0.1' }).fetch({ url: `${PUBLIC}/article` });
    assert.deepEqual(proxy.connects, ['127.0.0.1:80'], probe.output);
    proxy.connects.length = 0;
  });
  after(async () => {
    await proxy.close();
    await origin.close();
    await canary.close();
    for (const server of Object.values(readers)) await server.close();
    assert.deepEqual(proxy.refused, []);
    assert.ok(
      proxy.connects.every((target) => target === `${PUBLIC_ADDRESS}:80` || target.startsWith('127.0.0.1:')),
      `proxied connections: ${proxy.connects.join(', ')}`,
    );
  });

  function open(
    chain: string[],
    extra: {
      thirdParty?: boolean;
      readers?: Record<string, ReaderEntry>;
      browserPath?: string;
      publicAddress?: string;
      allowPrivateNetwork?: string[];
      /** `egress.secretScan.enabled` (default on, which refuses JWTs and passwords in URLs before the chain). */
      secretScan?: boolean;
    } = {},
  ) {
    const backends = Object.fromEntries(
      Object.entries(readers).map(([id, server]) => [
        id,
        { baseUrl: server.url, apiKey: `${id}-key`, timeoutMs: 2_000, ...extra.readers?.[id] },
      ]),
    );
    return createPeriscope(
      {
        network: {
          allowPrivateNetwork: extra.allowPrivateNetwork ?? ['127.0.0.1/32'],
          proxy: proxy.url,
          noProxy: '127.0.0.0/8',
        },
        fetch: {
          chain: chain as never,
          robots: 'ignore',
          ...(extra.thirdParty === undefined ? {} : { thirdParty: extra.thirdParty }),
          ...(extra.browserPath === undefined ? {} : { browser: { executablePath: extra.browserPath } }),
          backends,
        },
        ...(extra.secretScan === false ? { egress: { secretScan: { enabled: false } } } : {}),
      },
      { env: {}, lookup: resolverFor(extra.publicAddress ?? PUBLIC_ADDRESS) },
    );
  }
  const readerCalls = () => Object.values(readers).reduce((sum, server) => sum + server.calls.length, 0);
  const attemptsOf = (data: unknown): FetchAttempt[] =>
    ((data as WebFetchData).attempts ??
      (data as { error: ToolErrorData }).error?.details?.attempts ??
      []) as FetchAttempt[];
  const summary = (attempts: FetchAttempt[]) =>
    attempts.map((attempt) => `${attempt.backend}:${attempt.outcome}`);

  test('fallback in order: 429 → 5xx → local, each attempt recorded, the trail in display', async () => {
    replies['jina-reader'] = {
      status: 429,
      headers: { 'retry-after': '3' },
      body: { code: 429, message: 'slow down' },
    };
    replies.firecrawl = { status: 502, body: { success: false, error: 'SCRAPE_ALL_ENGINES_FAILED' } };
    const result = await open(['jina-reader', 'firecrawl', 'local']).fetch({ url: `${PUBLIC}/article` });
    assert.equal(result.isError, false, result.output);
    const data = result.data as WebFetchData;
    assert.equal(data.backend, 'local');
    assert.deepEqual(summary(attemptsOf(data)), ['jina-reader:failed', 'firecrawl:failed', 'local:ok']);
    assert.deepEqual(
      attemptsOf(data).map((attempt) => [attempt.code, attempt.status]),
      [
        ['RATE_LIMITED', 429],
        ['HTTP_STATUS', 502],
        [undefined, 200],
      ],
    );
    assert.match(
      result.display ?? '',
      /→ jina-reader failed \(429\) → firecrawl failed \(502\) → local 200 text\/html, \d+ chars in \d+ ms$/,
    );
  });

  test('fallback in order on every kind of reader failure: refused key, timeout, unreachable', async () => {
    replies['jina-reader'] = { status: 401, body: { code: 401, message: 'Invalid API key' } };
    replies.firecrawl = { body: { success: true, data: { markdown: 'late' } }, delayMs: 3_000 };
    const closed = await startTestServer(() => {});
    const unreachable = closed.url;
    await closed.close();
    const sent = {
      jina: readers['jina-reader']?.calls.length ?? 0,
      firecrawl: readers.firecrawl?.calls.length ?? 0,
    };
    const result = await open(['jina-reader', 'firecrawl', 'tavily', 'local'], {
      readers: { firecrawl: { timeoutMs: 400 }, tavily: { baseUrl: unreachable } },
    }).fetch({ url: `${PUBLIC}/article` });
    assert.equal(result.isError, false, result.output);
    const attempts = attemptsOf(result.data);
    assert.deepEqual(
      attempts.map((attempt) => [attempt.backend, attempt.outcome, attempt.code, attempt.status]),
      [
        ['jina-reader', 'failed', 'HTTP_STATUS', 401],
        ['firecrawl', 'failed', 'TIMEOUT', undefined],
        ['tavily', 'failed', 'NETWORK', undefined],
        ['local', 'ok', undefined, 200],
      ],
    );
    // Each reader was asked exactly once (no hidden retries); the slow one was cut at its timeoutMs (400 ms), well
    // before its answer (3 s) would have come.
    assert.equal((readers['jina-reader']?.calls.length ?? 0) - sent.jina, 1);
    assert.equal((readers.firecrawl?.calls.length ?? 0) - sent.firecrawl, 1);
    const slowMs = attempts[1]?.ms ?? 0;
    assert.ok(slowMs >= 350 && slowMs < 2_900, `firecrawl took ${slowMs} ms`);
    assert.match(
      result.display ?? '',
      /→ jina-reader failed \(401\) → firecrawl failed \(TIMEOUT\) → tavily failed \(NETWORK\) → local 200 text\/html, \d+ chars in \d+ ms$/,
    );
  });

  test('a bot challenge from local falls back in order when no browser is usable ahead', async () => {
    replies.tavily = { status: 500, body: { detail: { error: 'Internal Server Error' } } };
    replies['jina-reader'] = { body: JINA_OK };
    const result = await open(['local', 'tavily', 'jina-reader', 'browser'], {
      browserPath: '/nonexistent/chromium',
    }).fetch({ url: `${PUBLIC}/challenge` });
    assert.equal(result.isError, false, result.output);
    const attempts = attemptsOf(result.data);
    assert.deepEqual(summary(attempts), ['local:failed', 'tavily:failed', 'jina-reader:ok']);
    assert.equal(attempts[0]?.code, 'BLOCKED_BY_SITE');
    assert.equal((result.data as WebFetchData).backend, 'jina-reader');
  });

  test('a browser without its binary is skipped as NOT_CONFIGURED, saying where it looked', async () => {
    const result = await open(['browser', 'local'], { browserPath: '/nonexistent/chromium' }).fetch({
      url: `${origin.url}/article`,
    });
    const attempts = attemptsOf(result.data);
    assert.deepEqual(summary(attempts), ['browser:skipped', 'local:ok']);
    assert.equal(attempts[0]?.code, 'NOT_CONFIGURED');
    assert.match(attempts[0]?.message ?? '', /\/nonexistent\/chromium/);
    assert.match(result.display ?? '', /→ browser skipped \(not configured\) → local 200 /);
  });

  test('the first reader that answers wins; local is not asked', async () => {
    replies['jina-reader'] = { body: JINA_OK };
    const before = origin.calls.length;
    const result = await open(['jina-reader', 'local']).fetch({ url: `${PUBLIC}/article` });
    const data = result.data as WebFetchData;
    assert.equal(data.backend, 'jina-reader');
    assert.equal(data.extractor, 'jina-reader');
    assert.match(data.text, /Rendered by the reader/);
    assert.equal(origin.calls.length, before);
  });

  test('every rung failing is ALL_FAILED with each reason, retryable, soonest retryAfterMs', async () => {
    replies['jina-reader'] = { status: 429, headers: { 'retry-after': '9' }, body: { message: 'slow down' } };
    replies.firecrawl = { status: 503, headers: { 'retry-after': '4' }, body: { error: 'busy' } };
    const result = await open(['jina-reader', 'firecrawl']).fetch({ url: `${PUBLIC}/article` });
    assert.equal(result.isError, true);
    const error = (result.data as { error: ToolErrorData }).error;
    assert.equal(error.code, 'ALL_FAILED');
    assert.equal(error.retryable, true);
    assert.equal(error.retryAfterMs, 4_000);
    assert.match(error.message, /jina-reader failed: .*firecrawl failed: /);
    assert.match(result.display ?? '', /jina-reader failed \(429\) → firecrawl failed \(503\) → ALL_FAILED$/);
  });

  test('a JavaScript shell from local escalates past readers that do not run JavaScript', async () => {
    replies['jina-reader'] = { body: JINA_OK };
    const tavilyBefore = readers.tavily?.calls.length ?? 0;
    const result = await open(['local', 'tavily', 'jina-reader']).fetch({ url: `${PUBLIC}/shell` });
    assert.equal(result.isError, false, result.output);
    const attempts = attemptsOf(result.data);
    assert.deepEqual(summary(attempts), ['local:failed', 'tavily:skipped', 'jina-reader:ok']);
    assert.equal(attempts[0]?.code, 'EMPTY_CONTENT');
    assert.match(
      attempts[1]?.message ?? '',
      /JavaScript shell; escalating to a back-end that runs JavaScript/,
    );
    assert.equal(readers.tavily?.calls.length, tavilyBefore);
  });

  test('a page built by a short inline script escalates like a bundled app', async () => {
    // Before: local returned it as a page with empty text, the chain stopped there, and web_fetch said "no readable
    // text" without a JavaScript shell's reason, so no back-end that runs JavaScript was ever asked.
    replies['jina-reader'] = { body: JINA_OK };
    const result = await open(['local', 'tavily', 'jina-reader']).fetch({ url: `${PUBLIC}/inline-built` });
    assert.equal(result.isError, false, result.output);
    const attempts = attemptsOf(result.data);
    assert.deepEqual(summary(attempts), ['local:failed', 'tavily:skipped', 'jina-reader:ok']);
    assert.equal(attempts[0]?.code, 'EMPTY_CONTENT');
    assert.match(
      attempts[0]?.message ?? '',
      /JavaScript application shell \(empty mount element, no text at all\)/,
    );
    assert.match((result.data as WebFetchData).text, /Rendered by the reader/);
  });

  test('a shell with nowhere to escalate stays EMPTY_CONTENT saying a browser is needed, and how to turn it on', async () => {
    // Before: "…it needs a browser back-end to render", with no word of how to get one.
    const result = await open(['local', 'tavily']).fetch({ url: `${PUBLIC}/shell` });
    assert.equal(result.isError, true);
    const error = (result.data as { error: ToolErrorData }).error;
    assert.equal(error.code, 'EMPTY_CONTENT');
    assert.equal(error.details?.reason, 'javascript-shell');
    assert.equal(error.details?.browser, 'not-in-chain');
    assert.deepEqual(summary(attemptsOf(result.data)), ['local:failed', 'tavily:skipped']);
    const howTo =
      "it needs a browser back-end to render; to render it, add browser to fetch.chain, e.g. fetch.chain: [local, browser] (it drives the system's Chromium)";
    assert.ok(error.message.endsWith(howTo), error.message);
    assert.ok(result.output.includes(howTo), result.output);

    // A browser in the chain that cannot run: the failure says why, not to add it.
    const missing = await open(['local', 'browser'], { browserPath: '/nonexistent/chromium' }).fetch({
      url: `${PUBLIC}/shell`,
    });
    const unavailable = (missing.data as { error: ToolErrorData }).error;
    assert.equal(unavailable.code, 'EMPTY_CONTENT');
    assert.equal(unavailable.details?.browser, 'unavailable');
    assert.match(
      unavailable.message,
      /; the browser in fetch\.chain cannot run: browser: no Chromium at \/nonexistent\/chromium \(fetch\.browser\.executablePath\)$/,
    );
    assert.doesNotMatch(unavailable.message, /add browser/);
  });

  test("the origin's own answer (404) stops the chain: no reader is asked", async () => {
    const before = readerCalls();
    const result = await open(['local', 'jina-reader']).fetch({ url: `${PUBLIC}/missing` });
    const error = (result.data as { error: ToolErrorData }).error;
    assert.equal(error.code, 'HTTP_STATUS');
    assert.equal(error.details?.status, 404);
    assert.equal(readerCalls(), before);
  });

  test('a retryable origin failure (503) falls back to the next rung', async () => {
    replies['jina-reader'] = { body: JINA_OK };
    originStatus = 503;
    try {
      const result = await open(['local', 'jina-reader']).fetch({ url: `${PUBLIC}/article` });
      assert.equal((result.data as WebFetchData).backend, 'jina-reader');
      assert.deepEqual(summary(attemptsOf(result.data)), ['local:failed', 'jina-reader:ok']);
    } finally {
      originStatus = 200;
    }
  });

  test('a bug in one back-end (INTERNAL) falls back to the next rung: it says nothing about the page', async () => {
    const buggy: FetchBackend = {
      id: 'browser',
      kind: 'origin',
      rendersJavaScript: true,
      unavailableReason: () => undefined,
      fetchPage: async () => {
        const page = undefined as unknown as FetchedPage;
        return { ...page, status: page.status };
      },
    };
    const periscope = createPeriscope(
      {
        network: { allowPrivateNetwork: ['127.0.0.1/32'] },
        fetch: { chain: ['browser', 'local'], robots: 'ignore' },
      },
      { env: {}, fetchBackends: [buggy] },
    );
    const result = await periscope.fetch({ url: `${origin.url}/article` });
    await periscope.close();
    assert.equal(result.isError, false, result.output);
    assert.equal((result.data as WebFetchData).backend, 'local');
    const [first] = attemptsOf(result.data);
    assert.equal(first?.backend, 'browser');
    assert.equal(first?.code, 'INTERNAL');
  });

  test('a credential-bearing URL never reaches a reader: it goes to local, and the attempt says why', async () => {
    replies['jina-reader'] = { body: JINA_OK };
    const before = readerCalls();
    for (const url of [
      `${PUBLIC}/article?token=s3cr3t-value`,
      `${PUBLIC}/article?X-Amz-Signature=abc123&X-Amz-Credential=AKIA`,
      `${PUBLIC}/article?access_token=abc`,
      `${PUBLIC}/article?id=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig`,
    ]) {
      // The chain's own guard, under the secret scan (which refuses the JWT before it: src/egress/secret-check.ts).
      const result = await open(['jina-reader', 'firecrawl', 'local'], { secretScan: false }).fetch({ url });
      assert.equal(result.isError, false, `${url}: ${result.output}`);
      const attempts = attemptsOf(result.data);
      assert.deepEqual(summary(attempts), ['jina-reader:skipped', 'firecrawl:skipped', 'local:ok'], url);
      assert.match(attempts[0]?.message ?? '', /never sent to a third-party reader/);
      assert.doesNotMatch(
        JSON.stringify(attempts),
        /s3cr3t-value|pass@/,
        'the reason names parameters, not values',
      );
    }
    assert.equal(readerCalls(), before, 'no reader stand-in saw any request');
  });

  test('an internal URL opened by allowPrivateNetwork never reaches a reader: local serves it, the skip says why', async () => {
    // Before: jina-reader was asked for http://127.0.0.1:<port>/article and served it.
    replies['jina-reader'] = { body: JINA_OK };
    const before = readerCalls();
    const cases: Array<[string, RegExp]> = [
      [`${origin.url}/article`, /^127\.0\.0\.1 is a non-public address \(loopback, 127\.0\.0\.0\/8\)/],
      [
        `http://wiki.test:${origin.port}/article`,
        /^host "wiki\.test" resolves to 127\.0\.0\.1, a non-public address \(loopback/,
      ],
    ];
    for (const [url, reason] of cases) {
      const result = await open(['jina-reader', 'local']).fetch({ url });
      assert.equal(result.isError, false, `${url}: ${result.output}`);
      const data = result.data as WebFetchData;
      assert.equal(data.backend, 'local', url);
      const attempts = attemptsOf(data);
      assert.deepEqual(summary(attempts), ['jina-reader:skipped', 'local:ok'], url);
      assert.equal(attempts[0]?.code, 'URL_BLOCKED');
      assert.match(attempts[0]?.message ?? '', reason, url);
      assert.match(attempts[0]?.message ?? '', /never sent to a third-party reader/);
      assert.match(result.display ?? '', /→ jina-reader skipped \(internal address\) → local 200 /);
    }
    // With only readers in the chain, nothing may fetch it: URL_BLOCKED saying why, not NOT_CONFIGURED.
    const readersOnly = await open(['jina-reader', 'firecrawl']).fetch({ url: `${origin.url}/article` });
    const error = (readersOnly.data as { error: ToolErrorData }).error;
    assert.equal(error.code, 'URL_BLOCKED', readersOnly.output);
    assert.equal(error.details?.reason, 'internal-address');
    assert.match(error.message, /127\.0\.0\.1 is a non-public address .*never sent to a third-party reader/);
    assert.match(error.message, /local or browser/);
    assert.equal(readerCalls(), before, 'no reader stand-in saw any request');
  });

  test('a URL with a user name or password is refused the same way whatever the chain', async () => {
    // Before: NOT_CONFIGURED with [jina-reader], and local's own answer (here a page) with [local, jina-reader].
    replies['jina-reader'] = { body: JINA_OK };
    const readersBefore = readerCalls();
    const originBefore = origin.calls.length;
    const url = `http://user:hunter2@rivers.example/article`;
    const outcomes = [];
    for (const chain of [['jina-reader'], ['local', 'jina-reader'], ['jina-reader', 'local']]) {
      // The chain's own refusal, under the secret scan (POLICY_DENIED `secret` before it, by default).
      const result = await open(chain, { secretScan: false }).fetch({ url });
      assert.equal(result.isError, true, `${chain.join(',')}: ${result.output}`);
      const error = (result.data as { error: ToolErrorData }).error;
      outcomes.push([error.code, error.message, error.details?.reason]);
      assert.doesNotMatch(result.output, /hunter2/);
    }
    assert.deepEqual(outcomes[1], outcomes[0]);
    assert.deepEqual(outcomes[2], outcomes[0]);
    const [code, message, reason] = outcomes[0] ?? [];
    assert.equal(code, 'INVALID_INPUT');
    assert.equal(reason, 'credentials-in-url');
    assert.match(String(message), /user name or password/);
    assert.match(String(message), /without them/);
    assert.equal(readerCalls(), readersBefore, 'no reader was asked');
    assert.equal(origin.calls.length, originBefore, 'the site was not asked either');
  });

  test('credential-like query parameters with only readers in the chain: URL_BLOCKED saying why', async () => {
    // Before: NOT_CONFIGURED "no back-end in fetch.chain could take this URL".
    const before = readerCalls();
    const result = await open(['jina-reader']).fetch({ url: `${PUBLIC}/article?token=s3cr3t-value` });
    const error = (result.data as { error: ToolErrorData }).error;
    assert.equal(error.code, 'URL_BLOCKED', result.output);
    assert.equal(error.details?.reason, 'credentials-in-url');
    assert.match(error.message, /credential-like query parameters \(token\)/);
    assert.match(error.message, /local or browser/);
    assert.doesNotMatch(result.output, /s3cr3t-value/);
    assert.equal(readerCalls(), before);
  });

  test('fetch.thirdParty: false turns every reader off', async () => {
    const before = readerCalls();
    const result = await open(['jina-reader', 'tavily', 'local'], { thirdParty: false }).fetch({
      url: `${PUBLIC}/article`,
    });
    const attempts = attemptsOf(result.data);
    assert.deepEqual(summary(attempts), ['jina-reader:skipped', 'tavily:skipped', 'local:ok']);
    assert.match(attempts[0]?.message ?? '', /fetch\.thirdParty: false/);
    assert.equal(readerCalls(), before);
  });

  test('URL_BLOCKED stops the chain before any back-end: literal, DNS answer, and a redirect hop', async () => {
    const before = readerCalls();
    for (const url of [
      'http://10.0.0.5/admin',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]:8080/',
    ]) {
      const result = await open(['jina-reader', 'local']).fetch({ url });
      assert.equal((result.data as { error: ToolErrorData }).error.code, 'URL_BLOCKED', url);
    }
    const resolved = await open(['jina-reader', 'local']).fetch({
      url: 'http://intranet.example/',
    });
    assert.equal((resolved.data as { error: ToolErrorData }).error.code, 'URL_BLOCKED');
    assert.match((resolved.data as { error: ToolErrorData }).error.message, /10\.1\.2\.3/);
    // local meets the private hop; the chain stops there instead of handing the URL to a reader.
    const redirected = await open(['local', 'jina-reader']).fetch({ url: `${origin.url}/to-private` });
    assert.equal((redirected.data as { error: ToolErrorData }).error.code, 'URL_BLOCKED');
    assert.equal(readerCalls(), before, 'no reader stand-in saw any request');
    assert.equal(canary.connections, 0);
  });

  test('a reader without its key is skipped as NOT_CONFIGURED, without a request', async () => {
    const periscope = createPeriscope(
      {
        network: { allowPrivateNetwork: ['127.0.0.1/32'], proxy: proxy.url, noProxy: '127.0.0.0/8' },
        fetch: {
          chain: ['firecrawl', 'local'],
          robots: 'ignore',
          backends: { firecrawl: { baseUrl: readers.firecrawl?.url } },
        },
      },
      { env: {}, lookup: resolverFor(PUBLIC_ADDRESS) },
    );
    const before = readerCalls();
    const result = await periscope.fetch({ url: `${PUBLIC}/article` });
    const attempts = attemptsOf(result.data);
    assert.deepEqual(summary(attempts), ['firecrawl:skipped', 'local:ok']);
    assert.equal(attempts[0]?.code, 'NOT_CONFIGURED');
    assert.match(attempts[0]?.message ?? '', /FIRECRAWL_API_KEY/);
    assert.equal(readerCalls(), before);
  });

  test('the default chain is [local], and data.attempts says so', async () => {
    const periscope = createPeriscope({ network: { allowPrivateNetwork: ['127.0.0.1/32'] } }, { env: {} });
    assert.deepEqual(periscope.config.fetch.chain, ['local']);
    assert.equal(periscope.config.fetch.robots, 'respect');
    const result = await periscope.fetch({ url: `${origin.url}/article` });
    assert.deepEqual(summary(attemptsOf(result.data)), ['local:ok']);
    assert.match(result.display ?? '', /→ 200 text\/html, \d+ chars in \d+ ms$/);
  });
});
