import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isPeriscopeError, type PeriscopeError, type ToolErrorData } from '../errors.ts';
import { createPeriscope } from '../index.ts';
import { createHttpClient } from '../net/http-client.ts';
import { createLoopbackConnectGuard } from '../testing/connect-guard.ts';
import { startHttpServerOn } from '../testing/loopback-server.ts';
import { periscopeRejection } from '../testing/rejection.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { cacheControlTtl, createRobotsChecker, productToken } from './robots.ts';

const ROBOTS = [
  '# robots for the tests',
  'User-agent: *',
  'Disallow: /private/',
  '',
  'User-agent: Periscope',
  'Allow: /private/open',
  'Disallow: /members/',
  'Disallow: /*.pdf$',
].join('\n');

/** One origin per robots.txt behaviour: the server answers robots.txt by `mode`. */
let mode: 'rules' | 'missing' | 'error' | 'busy' | 'slow' = 'rules';
/** The Cache-Control robots.txt is answered with, if any. */
let cacheControl: string | undefined;

describe('robots.txt', () => {
  let server: TestServer;
  const guard = createLoopbackConnectGuard();
  const httpFetch = createHttpClient({
    allowPrivateNetwork: ['127.0.0.1/32'],
    beforeConnect: guard.beforeConnect,
  });
  const checker = (timeoutMs = 1_000) =>
    createRobotsChecker({ httpFetch, userAgent: 'Periscope/0.1 (+https://example.org)', timeoutMs });
  const robotsCalls = () => server.calls.filter((call) => call.url.pathname === '/robots.txt').length;
  const signal = new AbortController().signal;

  before(async () => {
    server = await startTestServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      if (path !== '/robots.txt') {
        response
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<h1>${path}</h1><p>${'Text. '.repeat(60)}</p>`);
        return;
      }
      const caching: Record<string, string> = cacheControl ? { 'cache-control': cacheControl } : {};
      if (mode === 'rules') response.writeHead(200, { 'content-type': 'text/plain', ...caching }).end(ROBOTS);
      else if (mode === 'missing') response.writeHead(404, caching).end('not found');
      else if (mode === 'error') response.writeHead(503).end('maintenance');
      else if (mode === 'busy') response.writeHead(429, { 'retry-after': '7' }).end('slow down');
      else setTimeout(() => response.writeHead(200).end(ROBOTS), 3_000).unref();
    });
  });
  after(() => server.close());

  async function refusal(promise: Promise<unknown>): Promise<PeriscopeError> {
    try {
      await promise;
    } catch (error) {
      assert.ok(isPeriscopeError(error) && error.code === 'ROBOTS_DISALLOWED', String(error));
      return error;
    }
    assert.fail('expected ROBOTS_DISALLOWED');
  }

  test('our product token picks its own group; a disallowed URL names the rule and its line', async () => {
    mode = 'rules';
    const robots = checker();
    assert.equal(productToken('Periscope/0.1 (+https://example.org)'), 'Periscope');
    await robots.check(new URL(`${server.url}/articles/1`), signal);
    await robots.check(new URL(`${server.url}/private/open`), signal);
    // The Periscope group replaces `*`: /private/ is only disallowed for other agents.
    await robots.check(new URL(`${server.url}/private/other`), signal);
    const error = await refusal(robots.check(new URL(`${server.url}/members/list?page=2`), signal));
    assert.match(
      error.message,
      /robots\.txt disallows .*\/members\/list\?page=2 for Periscope: "Disallow: \/members\/" \(line 7\)/,
    );
    assert.equal(error.retryable, false);
    assert.equal(error.details.rule, 'Disallow: /members/');
    const pdf = await refusal(robots.check(new URL(`${server.url}/files/report.pdf`), signal));
    assert.equal(pdf.details.rule, 'Disallow: /*.pdf$');
  });

  test('read once per origin and cached, also for concurrent checks', async () => {
    mode = 'rules';
    const robots = checker();
    const before = robotsCalls();
    await Promise.all(
      Array.from({ length: 5 }, (_, index) => robots.check(new URL(`${server.url}/a/${index}`), signal)),
    );
    await robots.check(new URL(`${server.url}/b`), signal);
    assert.equal(robotsCalls() - before, 1);
  });

  test('cached per origin: each origin read once, read again after 24 hours (injected clock)', async () => {
    mode = 'rules';
    cacheControl = undefined;
    let clock = 1_000_000;
    const robots = createRobotsChecker({
      httpFetch,
      userAgent: 'Periscope/0.1',
      timeoutMs: 1_000,
      now: () => clock,
    });
    const other = await startTestServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /a/\n');
    });
    try {
      const before = robotsCalls();
      for (let index = 0; index < 20; index++)
        await robots.check(new URL(`${server.url}/a/${index}`), signal);
      assert.equal(robotsCalls() - before, 1, 'one read for twenty calls to one origin');
      // Another origin (another port) has its own robots.txt, read once, and its own verdict.
      await refusal(robots.check(new URL(`${other.url}/a/1`), signal));
      await refusal(robots.check(new URL(`${other.url}/a/2`), signal));
      await robots.check(new URL(`${other.url}/members/1`), signal);
      assert.equal(other.calls.length, 1);
      assert.equal(robotsCalls() - before, 1);
    } finally {
      await other.close();
    }
    const before = robotsCalls() - 1;
    clock += 24 * 3_600_000 - 1;
    await robots.check(new URL(`${server.url}/b`), signal);
    assert.equal(robotsCalls() - before, 1, 'still cached just under 24 hours');
    clock += 2;
    await robots.check(new URL(`${server.url}/c`), signal);
    assert.equal(robotsCalls() - before, 2, 'read again once 24 hours have passed');
    await refusal(robots.check(new URL(`${server.url}/members/x`), signal));
    assert.equal(robotsCalls() - before, 2);
  });

  test("robots.txt's Cache-Control: max-age shortens the cache, no-store reads it every call", async () => {
    mode = 'rules';
    let clock = 5_000_000;
    const make = () =>
      createRobotsChecker({ httpFetch, userAgent: 'Periscope/0.1', timeoutMs: 1_000, now: () => clock });
    try {
      cacheControl = 'public, max-age=60';
      const robots = make();
      const before = robotsCalls();
      await robots.check(new URL(`${server.url}/a`), signal);
      clock += 59_000;
      await robots.check(new URL(`${server.url}/a`), signal);
      assert.equal(robotsCalls() - before, 1, 'within max-age');
      clock += 2_000;
      await robots.check(new URL(`${server.url}/a`), signal);
      assert.equal(robotsCalls() - before, 2, 'past max-age: read again');

      cacheControl = 'no-store';
      const uncached = make();
      const start = robotsCalls();
      await uncached.check(new URL(`${server.url}/a`), signal);
      await uncached.check(new URL(`${server.url}/a`), signal);
      assert.equal(robotsCalls() - start, 2);
      mode = 'missing';
      cacheControl = 'max-age=5';
      const missing = make();
      const from = robotsCalls();
      await missing.check(new URL(`${server.url}/members/x`), signal);
      clock += 4_000;
      await missing.check(new URL(`${server.url}/members/x`), signal);
      assert.equal(robotsCalls() - from, 1, 'a 404 follows its Cache-Control too');
    } finally {
      cacheControl = undefined;
      mode = 'rules';
    }
  });

  test('cacheControlTtl: RFC 9111 directives, capped at 24 hours', () => {
    assert.equal(cacheControlTtl(undefined), undefined);
    assert.equal(cacheControlTtl('public'), undefined);
    assert.equal(cacheControlTtl('max-age=120'), 120_000);
    assert.equal(cacheControlTtl('max-age=120, s-maxage=30'), 30_000);
    assert.equal(cacheControlTtl('Max-Age="90"'), 90_000);
    assert.equal(cacheControlTtl('max-age=31536000'), 24 * 3_600_000);
    assert.equal(cacheControlTtl('max-age=soon'), undefined);
    assert.equal(cacheControlTtl('no-cache'), 0);
    assert.equal(cacheControlTtl('private, no-store, max-age=600'), 0);
  });

  test('a missing robots.txt (404) allows everything', async () => {
    mode = 'missing';
    await checker().check(new URL(`${server.url}/members/list`), signal);
  });

  const failure = (promise: Promise<unknown>) => periscopeRejection(promise, 'the check');

  test('a 5xx robots.txt: the site is failing (HTTP_STATUS with its status, retryable), never allow-all, and not cached', async () => {
    mode = 'error';
    const robots = checker();
    const before = robotsCalls();
    const error = await failure(robots.check(new URL(`${server.url}/articles/1`), signal));
    assert.equal(error.code, 'HTTP_STATUS');
    assert.equal(error.details.status, 503);
    assert.equal(error.retryable, true);
    assert.equal(error.details.reason, 'robots-unreachable');
    assert.match(error.message, /robots\.txt failed with 503.*articles\/1 was not fetched/);
    mode = 'rules';
    const refused = await failure(robots.check(new URL(`${server.url}/members/list`), signal));
    assert.equal(refused.code, 'ROBOTS_DISALLOWED', 'the rules, read again: not a remembered failure');
    assert.equal(robotsCalls() - before, 2);
  });

  test('a 429 robots.txt is RATE_LIMITED with its Retry-After, and not cached', async () => {
    mode = 'busy';
    const robots = checker();
    const error = await failure(robots.check(new URL(`${server.url}/articles/1`), signal));
    assert.equal(error.code, 'RATE_LIMITED');
    assert.equal(error.retryAfterMs, 7_000);
    mode = 'missing';
    await robots.check(new URL(`${server.url}/articles/1`), signal);
  });

  test('a robots.txt slower than robotsTimeoutMs is TIMEOUT (not allow-all, not a disallow verdict), bounded, not cached', async () => {
    mode = 'slow';
    const robots = checker(300);
    const started = performance.now();
    const error = await failure(robots.check(new URL(`${server.url}/articles/1`), signal));
    assert.ok(performance.now() - started < 2_000);
    assert.equal(error.code, 'TIMEOUT');
    assert.equal(error.retryable, true);
    assert.equal(error.details.reason, 'robots-unreachable');
    mode = 'missing';
    await robots.check(new URL(`${server.url}/articles/1`), signal);
  });

  test('web_fetch: a site whose robots.txt cannot be read is down, so the call is refunded; back up, it is fetched', async () => {
    const credited = (robotsTimeoutMs = 1_000) =>
      createPeriscope(
        {
          network: { allowPrivateNetwork: ['127.0.0.1/32'] },
          fetch: { robotsTimeoutMs },
          cache: { enabled: false },
          limits: { credits: { enabled: true } },
        },
        { env: {} },
      );
    const pageCalls = () => server.calls.filter((call) => call.url.pathname === '/down/page').length;
    for (const [failing, code, robotsTimeoutMs] of [
      ['error', 'HTTP_STATUS', 1_000],
      ['busy', 'RATE_LIMITED', 1_000],
      ['slow', 'TIMEOUT', 300],
    ] as const) {
      const periscope = credited(robotsTimeoutMs);
      await periscope.credits.grant('agent', 10);
      mode = failing;
      const pagesBefore = pageCalls();
      const failed = await periscope.fetch({ url: `${server.url}/down/page` }, { agentId: 'agent' });
      assert.equal((failed.data as { error: ToolErrorData }).error.code, code, failed.output);
      assert.equal(pageCalls(), pagesBefore);
      assert.equal(await periscope.credits.balance('agent'), 10, `${code}: refunded`);
      assert.match(failed.display ?? '', / · refunded$/);
      mode = 'missing';
      const fetched = await periscope.fetch({ url: `${server.url}/down/page` }, { agentId: 'agent' });
      assert.equal(fetched.isError, false, `${code}, then back up: ${fetched.output}`);
      assert.equal(await periscope.credits.balance('agent'), 9);
      await periscope.close();
    }
  });

  test('web_fetch: connection refused is NETWORK and refunded, not ROBOTS_DISALLOWED; the site back up is fetched', async () => {
    const reserved = await startHttpServerOn('127.0.0.1', () => {});
    const { port } = reserved;
    await reserved.close();
    const periscope = createPeriscope(
      {
        network: { allowPrivateNetwork: ['127.0.0.1/32'] },
        cache: { enabled: false },
        limits: { credits: { enabled: true } },
      },
      { env: {} },
    );
    await periscope.credits.grant('agent', 10);
    const url = `http://127.0.0.1:${port}/page`;
    const refused = await periscope.fetch({ url }, { agentId: 'agent' });
    const error = (refused.data as { error: ToolErrorData }).error;
    assert.equal(error.code, 'NETWORK', refused.output);
    assert.equal(error.retryable, true);
    assert.match(error.message, /robots\.txt.*connection was refused/);
    assert.equal(await periscope.credits.balance('agent'), 10, 'refunded');
    const site = await startHttpServerOn(
      '127.0.0.1',
      (request, response) => {
        if (request.url === '/robots.txt') response.writeHead(404).end();
        else
          response
            .writeHead(200, { 'content-type': 'text/html' })
            .end(`<h1>Back</h1><p>${'Up again. '.repeat(40)}</p>`);
      },
      { port },
    );
    try {
      const fetched = await periscope.fetch({ url }, { agentId: 'agent' });
      assert.equal(fetched.isError, false, fetched.output);
      assert.equal(site.calls.filter((call) => call.url.pathname === '/robots.txt').length, 1);
    } finally {
      await site.close();
      await periscope.close();
    }
  });

  test('web_fetch: the page behind a Disallow is never requested; robots: ignore fetches it', async () => {
    mode = 'rules';
    const respectful = createPeriscope({ network: { allowPrivateNetwork: ['127.0.0.1/32'] } }, { env: {} });
    const pageCalls = () => server.calls.filter((call) => call.url.pathname === '/members/list').length;
    const before = pageCalls();
    const result = await respectful.fetch({ url: `${server.url}/members/list` });
    assert.equal(result.isError, true);
    assert.equal((result.data as { error: ToolErrorData }).error.code, 'ROBOTS_DISALLOWED');
    assert.match(result.output, /robots\.txt forbids/);
    assert.equal(pageCalls(), before);
    const ignoring = createPeriscope(
      { network: { allowPrivateNetwork: ['127.0.0.1/32'] }, fetch: { robots: 'ignore' } },
      { env: {} },
    );
    const robotsBefore = robotsCalls();
    const allowed = await ignoring.fetch({ url: `${server.url}/members/list` });
    assert.equal(allowed.isError, false, allowed.output);
    assert.equal(robotsCalls(), robotsBefore);
  });
});
