import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isPeriscopeError, type PeriscopeError, type ToolErrorData } from '../errors.ts';
import { createPeriscope } from '../index.ts';
import { createHttpClient } from '../net/http-client.ts';
import { createLoopbackConnectGuard } from '../testing/connect-guard.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { createRobotsChecker, productToken } from './robots.ts';

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
let mode: 'rules' | 'missing' | 'error' | 'slow' = 'rules';

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
      if (mode === 'rules') response.writeHead(200, { 'content-type': 'text/plain' }).end(ROBOTS);
      else if (mode === 'missing') response.writeHead(404).end('not found');
      else if (mode === 'error') response.writeHead(503).end('maintenance');
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

  test('a missing robots.txt (404) allows everything', async () => {
    mode = 'missing';
    await checker().check(new URL(`${server.url}/members/list`), signal);
  });

  test('a 5xx robots.txt is not allow-all: ROBOTS_DISALLOWED (unreachable), retryable', async () => {
    mode = 'error';
    const error = await refusal(checker().check(new URL(`${server.url}/articles/1`), signal));
    assert.equal(error.details.reason, 'robots-unreachable');
    assert.equal(error.retryable, true);
    assert.match(error.message, /HTTP 503.*counts as disallow/);
  });

  test('a robots.txt slower than robotsTimeoutMs is not allow-all either, and the wait is bounded', async () => {
    mode = 'slow';
    const started = performance.now();
    const error = await refusal(checker(300).check(new URL(`${server.url}/articles/1`), signal));
    assert.ok(performance.now() - started < 2_000);
    assert.equal(error.details.reason, 'robots-unreachable');
    assert.match(error.message, /TIMEOUT/);
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
