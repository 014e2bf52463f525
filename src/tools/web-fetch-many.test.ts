// web_fetch with `urls`: many pages in one call, on real local servers.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createPeriscope } from '../index.ts';
import { errorOf, outcome, type PolicyHarness, startPolicyHarness } from '../testing/policy-harness.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import type { WebFetchManyData } from './web-fetch-schema.ts';

const LONG = Array.from(
  { length: 60 },
  (_, index) =>
    `Line ${index}: the Danube flows through ten countries, more than any other river in the world.`,
).join('\n');

let server: TestServer;
let harness: PolicyHarness;
let running = 0;
let mostAtOnce = 0;
before(async () => {
  server = await startTestServer({
    '/slow': async (_request, response) => {
      await sleep(120);
      response
        .writeHead(200, { 'content-type': 'text/plain; charset=utf-8' })
        .end('The slow page, read first.');
    },
    '/short': (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('A short page.'),
    '/long': (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(LONG),
    '/missing': (_request, response) => response.writeHead(404, { 'content-type': 'text/plain' }).end('no'),
    '/hang': async (_request, response) => {
      await sleep(3000);
      response.writeHead(200, { 'content-type': 'text/plain' }).end('too late');
    },
    '/counted': async (_request, response) => {
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      await sleep(60);
      running -= 1;
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('Counted page.');
    },
  });
  harness = await startPolicyHarness();
});
after(async () => {
  await Promise.all([server.close(), harness.close()]);
});

function openPeriscope() {
  return createPeriscope({ network: { allowPrivateNetwork: ['127.0.0.1/32'] }, cache: { enabled: false } });
}

test('urls: one result per URL in input order; a 404 and a refused URL leave the others ok', async () => {
  const periscope = openPeriscope();
  const urls = [
    `${server.url}/slow`,
    `${server.url}/missing`,
    'http://10.0.0.1/private',
    `${server.url}/short`,
  ];
  const result = await periscope.fetch({ urls });
  assert.equal(result.isError, false, result.output);
  const data = result.data as unknown as WebFetchManyData;
  assert.deepEqual(data.urls, urls);
  assert.deepEqual(
    data.results.map((item) => (item.ok ? 'ok' : item.error.code)),
    ['ok', 'HTTP_STATUS', 'URL_BLOCKED', 'ok'],
  );
  assert.deepEqual([data.succeeded, data.failed], [2, 2]);
  const first = data.results[0];
  assert.ok(first?.ok);
  assert.match(first.text, /The slow page/);
  // One section per URL, in the order given, each naming its URL and its status or error.
  const at = urls.map((url, index) => result.output.indexOf(`## ${index + 1}/4 ${url} (`));
  assert.ok(
    at.every((position, index) => position >= 0 && (index === 0 || position > (at[index - 1] ?? 0))),
    result.output,
  );
  assert.match(result.output, /## 2\/4 \S+\/missing \(failed: HTTP_STATUS\)/);
  assert.match(result.display ?? '', /^fetch 4 URLs → 2 ok, 2 failed, \d+ chars in \d+ ms/);
  await periscope.close();
});

test('urls: the budget is shared; a short page gives its unused share to a long one', async () => {
  const periscope = openPeriscope();
  const result = await periscope.fetch({
    urls: [`${server.url}/short`, `${server.url}/long`],
    maxChars: 2000,
  });
  const data = result.data as unknown as WebFetchManyData;
  const [short, long] = data.results;
  assert.ok(short?.ok && long?.ok, result.output);
  assert.equal(short.truncated, false);
  assert.equal(long.truncated, true);
  assert.ok(long.length > 1000, `the long page got more than half: ${long.length}`);
  assert.ok(short.length + long.length <= 2000, `within the budget: ${short.length + long.length}`);
  assert.equal(data.length, short.length + long.length);
  assert.equal(data.maxChars, 2000);
  // Its larger share is cut from the document this call fetched: not a cache's copy.
  assert.equal(long.cached, false);
  assert.doesNotMatch(result.output, /From cache/);
  await periscope.close();
});

test('urls: with query, each page gives its passages', async () => {
  const periscope = openPeriscope();
  const result = await periscope.fetch({
    urls: [`${server.url}/long`, `${server.url}/short`],
    query: 'Line 42 Danube',
  });
  const data = result.data as unknown as WebFetchManyData;
  const long = data.results[0];
  assert.ok(long?.ok, result.output);
  assert.equal(long.query, 'Line 42 Danube');
  assert.ok(
    (long.passages ?? []).some((passage) => passage.text.includes('Line 42')),
    long.text,
  );
  await periscope.close();
});

test('urls: at most 4 pages at once and 2 per host', async () => {
  const periscope = openPeriscope();
  mostAtOnce = 0;
  const urls = Array.from({ length: 6 }, (_, index) => `${server.url}/counted?page=${index}`);
  const result = await periscope.fetch({ urls });
  const data = result.data as unknown as WebFetchManyData;
  assert.equal(data.succeeded, 6, result.output);
  assert.equal(mostAtOnce, 2);
  await periscope.close();
});

test('url and urls together, neither, 21 urls, urls with startIndex: INVALID_INPUT in one line', async () => {
  const periscope = openPeriscope();
  const both = await periscope.fetch({ url: `${server.url}/short`, urls: [`${server.url}/short`] });
  assert.equal(outcome(both), 'INVALID_INPUT');
  assert.match(errorOf(both).message, /give exactly one of url \(one page\) and urls \(several pages\)/);
  assert.equal(outcome(await periscope.fetch({})), 'INVALID_INPUT');
  const many = await periscope.fetch({ urls: Array.from({ length: 21 }, () => `${server.url}/short`) });
  assert.equal(outcome(many), 'INVALID_INPUT');
  assert.match(errorOf(many).message, /urls/);
  const from = await periscope.fetch({ urls: [`${server.url}/long`], startIndex: 100 });
  assert.equal(outcome(from), 'INVALID_INPUT');
  assert.match(errorOf(from).message, /cannot be combined with urls/);
  await periscope.close();
});

test('credits: a urls call costs one fetch per URL, reserved together; a URL failed on the site side is refunded', async () => {
  const periscope = harness.open({ cache: { enabled: false }, limits: { credits: { enabled: true } } });
  await periscope.credits.grant('many', 10);
  const { url } = harness.pages;
  const result = await periscope.fetch(
    { urls: [`${url}/article`, `${url}/long`, `${url}/missing`, `${url}/broken`] },
    { agentId: 'many' },
  );
  assert.equal(result.isError, false, result.output);
  // 4 reserved; the 503 is refunded, the 404 (the agent's URL) is kept.
  assert.equal(await periscope.credits.balance('many'), 7);
  assert.equal((result.data as { creditsSpent?: number }).creditsSpent, 3);
  const ledger = await periscope.credits.ledger('many');
  assert.deepEqual(
    ledger.map((entry) => [entry.reason, entry.delta]),
    [
      ['grant', 10],
      ['charge', -4],
      ['refund', 1],
    ],
  );
  // Too few credits for every URL: the whole call is refused before anything is sent.
  await periscope.credits.grant('few', 2);
  const before = harness.downloads('/article');
  const refused = await periscope.fetch(
    { urls: [`${url}/article`, `${url}/article`, `${url}/article`] },
    { agentId: 'few' },
  );
  assert.equal(outcome(refused), 'CREDITS_EXHAUSTED');
  assert.match(errorOf(refused).message, /web_fetch costs 3 \(3 URLs\)/);
  assert.equal(harness.downloads('/article'), before);
  await periscope.close();
});

test('session budget: a urls call counts one web_fetch per URL', async () => {
  const periscope = harness.open({
    cache: { enabled: false },
    limits: { session: { maxCalls: { web_fetch: 3 } } },
  });
  const { url } = harness.pages;
  const session = { agentId: 'budget', sessionId: 'turn-1' };
  const four = Array.from({ length: 4 }, () => `${url}/article`);
  const refused = await periscope.fetch({ urls: four }, session);
  assert.equal(outcome(refused), 'POLICY_DENIED');
  assert.equal(errorOf(refused).details?.reason, 'budget');
  const two = await periscope.fetch({ urls: [`${url}/article`, `${url}/long`] }, session);
  assert.equal(outcome(two), 'ok', two.output);
  // 2 of 3 used: two more URLs are over, one more is within.
  assert.equal(
    outcome(await periscope.fetch({ urls: [`${url}/article`, `${url}/long`] }, session)),
    'POLICY_DENIED',
  );
  assert.equal(outcome(await periscope.fetch({ url: `${url}/article` }, session)), 'ok');
  await periscope.close();
});

test('urls: a page that times out fails alone', async () => {
  const periscope = createPeriscope({
    network: { allowPrivateNetwork: ['127.0.0.1/32'], totalTimeoutMs: 300 },
    cache: { enabled: false },
    fetch: { chain: ['local'] },
  });
  const result = await periscope.fetch({ urls: [`${server.url}/hang`, `${server.url}/short`] });
  const data = result.data as unknown as WebFetchManyData;
  assert.deepEqual(
    data.results.map((item) => (item.ok ? 'ok' : item.error.code)),
    ['TIMEOUT', 'ok'],
  );
  await periscope.close();
});
