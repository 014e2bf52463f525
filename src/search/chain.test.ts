// The chain with real providers (brave, duckduckgo, wikipedia, and small HTTP providers) against local stand-ins
// that fail in each way: fallback order, what never falls through, cooldown and recovery, pacing, fan-out.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { providersSchema, searchSchema } from '../config/search-schema.ts';
import { isPeriscopeError, PeriscopeError } from '../errors.ts';
import { createHttpClient } from '../net/http-client.ts';
import { throwForStatus } from '../net/http-status.ts';
import { createNetworkPolicy } from '../net/network-policy.ts';
import { createMemoryStore } from '../store/memory-store.ts';
import { createSqliteStore } from '../store/sqlite-store.ts';
import type { Store } from '../store/store.ts';
import { createLoopbackConnectGuard } from '../testing/connect-guard.ts';
import { jsonReply, type StandInHandler, startProviderStandIn } from '../testing/provider-stand-in.ts';
import { startTestServer, type TestHandler, type TestServer } from '../testing/test-server.ts';
import { createSearchChain, type SearchChainSettings } from './chain.ts';
import { healthKey } from './health-store.ts';
import { serperSearchProvider } from './providers/serper.ts';
import type { ImageResult, SearchProvider, SearchResult } from './types.ts';

const ANOMALY = readFileSync(
  new URL('./providers/__fixtures__/duckduckgo-anomaly.html', import.meta.url),
  'utf8',
);
const DDG_RESULTS = readFileSync(
  new URL('./providers/__fixtures__/duckduckgo-html-results.html', import.meta.url),
  'utf8',
);

/** What each stand-in does right now; tests set it. */
const behaviour: Record<string, TestHandler> = {};
const arrivals: Record<string, number[]> = {};

function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

const braveOk: TestHandler = (_request, response) =>
  json(response, 200, {
    type: 'search',
    web: {
      results: [
        {
          title: 'Brave <strong>one</strong>',
          url: 'https://one.example/',
          description: 'First &amp; best',
          page_age: '2025-03-01T10:00:00',
        },
        { title: 'Brave two', url: 'https://two.example/page', description: 'Second' },
      ],
    },
  });
const wikipediaOk: TestHandler = (_request, response) =>
  json(response, 200, {
    batchcomplete: true,
    query: { search: [{ title: 'Tide', snippet: 'A <span class="searchmatch">tide</span> is the rise' }] },
  });

let server: TestServer;
before(async () => {
  server = await startTestServer((request, response, body) => {
    const name = new URL(request.url ?? '/', 'http://x').pathname.split('/')[1] ?? '';
    const list = arrivals[name] ?? [];
    list.push(performance.now());
    arrivals[name] = list;
    const handler = behaviour[name];
    if (!handler) return response.writeHead(404).end('no behaviour set');
    return handler(request, response, body);
  });
});
after(() => server.close());
beforeEach(() => {
  for (const key of Object.keys(behaviour)) delete behaviour[key];
  for (const key of Object.keys(arrivals)) delete arrivals[key];
});

const httpFetch = createHttpClient({ beforeConnect: createLoopbackConnectGuard().beforeConnect });

/** A small provider that makes a real HTTP call: GET {baseUrl}/{id}?q=… → `{ results: [...] }`. */
function httpProvider(
  id: string,
  options: { minIntervalMs?: number; maxConcurrent?: number } = {},
): SearchProvider {
  return {
    id,
    keyEnv: [],
    minIntervalMs: options.minIntervalMs ?? 0,
    ...(options.maxConcurrent === undefined ? {} : { maxConcurrent: options.maxConcurrent }),
    isConfigured: () => true,
    async search(request, context) {
      const url = `${server.url}/${id}?q=${encodeURIComponent(request.query)}`;
      const response = await context.fetch(url, { signal: context.signal, trusted: true });
      throwForStatus(response, { provider: id });
      const body = JSON.parse(Buffer.from(response.body).toString('utf8')) as { results: SearchResult[] };
      return { results: body.results };
    },
    async searchImages(request, context) {
      const url = `${server.url}/${id}?images=1&q=${encodeURIComponent(request.query)}`;
      const response = await context.fetch(url, { signal: context.signal, trusted: true });
      throwForStatus(response, { provider: id });
      return {
        results: (JSON.parse(Buffer.from(response.body).toString('utf8')) as { results: ImageResult[] })
          .results,
      };
    },
  };
}

function makeChain(
  search: Record<string, unknown>,
  providers: Record<string, unknown> = {},
  extra: Partial<SearchChainSettings> = {},
) {
  return createSearchChain({
    search: searchSchema.parse({ timeoutMs: 1000, ...search }),
    providers: providersSchema.parse({
      brave: { apiKey: 'test-key', baseUrl: `${server.url}/brave`, minIntervalMs: 0 },
      duckduckgo: { baseUrl: `${server.url}/ddg`, minIntervalMs: 0 },
      marginalia: { baseUrl: `${server.url}/marginalia`, minIntervalMs: 0 },
      wikipedia: { baseUrl: `${server.url}/wiki`, minIntervalMs: 0 },
      ...providers,
    }),
    env: {},
    httpFetch,
    ...extra,
  });
}

async function rejection(promise: Promise<unknown>): Promise<PeriscopeError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isPeriscopeError(error), String(error));
    return error;
  }
  assert.fail('expected a rejection');
}

const summary = (attempts: Array<{ provider: string; outcome: string; code?: string }>) =>
  attempts.map(
    (attempt) => `${attempt.provider}:${attempt.outcome}${attempt.code ? `:${attempt.code}` : ''}`,
  );

test('fallback in chain order: brave 429 → duckduckgo 202 → wikipedia answers; every attempt recorded', async () => {
  behaviour.brave = (_request, response) =>
    json(
      response,
      429,
      { type: 'ErrorResponse', error: { code: 'RATE_LIMITED', detail: 'Request rate limit exceeded' } },
      { 'retry-after': '7' },
    );
  behaviour.ddg = (_request, response) =>
    response.writeHead(202, { 'content-type': 'text/html' }).end(ANOMALY);
  behaviour.wiki = wikipediaOk;
  const chain = makeChain({ chain: ['brave', 'duckduckgo', 'wikipedia'] });
  const answer = await chain.search({ query: 'tide', count: 5 });
  assert.equal(answer.provider, 'wikipedia');
  assert.deepEqual(answer.results, [
    { title: 'Tide', url: `${server.url}/wiki/wiki/Tide`, snippet: 'A tide is the rise' },
  ]);
  assert.deepEqual(summary(answer.attempts), [
    'brave:failed:RATE_LIMITED',
    'duckduckgo:failed:BLOCKED_BY_SITE',
    'wikipedia:ok',
  ]);
  assert.equal(answer.attempts[0]?.retryAfterMs, 7000);
  assert.match(answer.attempts[1]?.message ?? '', /answered 202/);
  assert.ok(answer.attempts.every((attempt) => typeof attempt.ms === 'number'));
  assert.deepEqual(Object.keys(arrivals), ['brave', 'ddg', 'wiki']);
  assert.equal(arrivals.ddg?.length, 2, 'duckduckgo: HTML endpoint, then lite');
});

test('a provider without credentials is skipped as NOT_CONFIGURED and never asked', async () => {
  behaviour.ddg = (_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html' }).end(DDG_RESULTS);
  const chain = makeChain(
    { chain: ['tavily', 'duckduckgo'] },
    { tavily: { baseUrl: `${server.url}/tavily` } },
  );
  const answer = await chain.search({ query: 'go', count: 2 });
  assert.deepEqual(summary(answer.attempts), ['tavily:skipped:NOT_CONFIGURED', 'duckduckgo:ok']);
  assert.match(answer.attempts[0]?.message ?? '', /TAVILY_API_KEY/);
  assert.equal(arrivals.tavily, undefined);
  assert.equal(answer.results.length, 2);
});

test('auto: custom providers, then keyed ones in the documented order, then duckduckgo, marginalia and wikipedia', async () => {
  const chain = createSearchChain({
    search: searchSchema.parse({}),
    providers: providersSchema.parse({ exa: { enabled: false } }),
    env: {
      SERPER_API_KEY: 's',
      BRAVE_API_KEY: 'b',
      EXA_API_KEY: 'e',
      SEARXNG_BASE_URL: 'https://searx.example',
    },
    httpFetch,
    extraProviders: [httpProvider('acme')],
  });
  const status = await chain.status();
  const order = status
    .filter((provider) => provider.inChain)
    .sort((a, b) => (a.position ?? 0) - (b.position ?? 0))
    .map((provider) => provider.id);
  assert.deepEqual(order, ['acme', 'brave', 'serper', 'searxng', 'duckduckgo', 'marginalia', 'wikipedia']);
  const byId = new Map(status.map((provider) => [provider.id, provider]));
  assert.equal(byId.get('brave')?.credentials, 'env BRAVE_API_KEY');
  assert.equal(byId.get('searxng')?.credentials, 'env SEARXNG_BASE_URL');
  assert.equal(byId.get('tavily')?.credentials, 'missing (TAVILY_API_KEY)');
  assert.equal(byId.get('exa')?.enabled, false);
  assert.equal(byId.get('exa')?.inChain, false);
  assert.equal(byId.get('duckduckgo')?.credentials, 'keyless');
  assert.equal(byId.get('marginalia')?.credentials, 'keyless', 'the shared public key: none given');
  assert.equal(byId.get('acme')?.builtIn, false);
});

test('INVALID_INPUT and ABORTED never fall through; the next provider is not asked', async () => {
  const refusing: SearchProvider = {
    id: 'refusing',
    keyEnv: [],
    minIntervalMs: 0,
    isConfigured: () => true,
    search: async () => {
      throw new PeriscopeError('INVALID_INPUT', 'refusing: the query is too long for this provider');
    },
  };
  behaviour.second = (_request, response) => json(response, 200, { results: [] });
  const chain = makeChain(
    { chain: ['refusing', 'second'] },
    {},
    { extraProviders: [refusing, httpProvider('second')] },
  );
  const error = await rejection(chain.search({ query: 'x', count: 5 }));
  assert.equal(error.code, 'INVALID_INPUT');
  assert.deepEqual(summary(error.details.attempts as never), ['refusing:failed:INVALID_INPUT']);
  assert.equal(arrivals.second, undefined);

  behaviour.slow = (_request, response) => setTimeout(() => json(response, 200, { results: [] }), 300);
  const aborting = makeChain(
    { chain: ['slow', 'second'] },
    {},
    { extraProviders: [httpProvider('slow'), httpProvider('second')] },
  );
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 30);
  const aborted = await rejection(aborting.search({ query: 'x', count: 5 }, { signal: controller.signal }));
  assert.equal(aborted.code, 'ABORTED');
  assert.equal(arrivals.second, undefined);
});

test('a provider slower than search.timeoutMs is a TIMEOUT attempt, and the next one answers', async () => {
  // The slow one would answer after 5 s, unless the chain hangs up first: the next provider must be asked while
  // the slow answer is still pending.
  let slowAnswered = false;
  let fastAskedBeforeSlowAnswered = false;
  let slowClosed: (hungUp: boolean) => void = () => {};
  const slowHungUp = new Promise<boolean>((resolve) => {
    slowClosed = resolve;
  });
  behaviour.slow = (_request, response) => {
    const timer = setTimeout(() => {
      slowAnswered = true;
      json(response, 200, { results: [] });
    }, 5_000);
    response.once('close', () => {
      clearTimeout(timer);
      slowClosed(!slowAnswered);
    });
  };
  behaviour.fast = (_request, response) => {
    fastAskedBeforeSlowAnswered = !slowAnswered;
    json(response, 200, { results: [{ title: 'Fast', url: 'https://fast.example/', snippet: '' }] });
  };
  const chain = makeChain(
    { chain: ['slow', 'fast'], timeoutMs: 80 },
    {},
    { extraProviders: [httpProvider('slow'), httpProvider('fast')] },
  );
  const answer = await chain.search({ query: 'x', count: 5 });
  assert.deepEqual(summary(answer.attempts), ['slow:failed:TIMEOUT', 'fast:ok']);
  assert.match(answer.attempts[0]?.message ?? '', /did not answer within 80 ms \(search\.timeoutMs\)/);
  assert.ok(fastAskedBeforeSlowAnswered, 'the next provider was asked without waiting for the slow answer');
  assert.ok(await slowHungUp, 'the slow request was cancelled at the deadline');
});

test('cooldown honours Retry-After, skips the provider meanwhile, and it recovers afterwards', async () => {
  let braveCalls = 0;
  behaviour.brave = (request, response, body) => {
    braveCalls++;
    if (braveCalls === 1) {
      return json(
        response,
        429,
        { error: { code: 'RATE_LIMITED', detail: 'slow down' } },
        { 'retry-after': '0.25' },
      );
    }
    return braveOk(request, response, body);
  };
  behaviour.wiki = wikipediaOk;
  const chain = makeChain({ chain: ['brave', 'wikipedia'] });
  const first = await chain.search({ query: 'tide', count: 5 });
  assert.deepEqual(summary(first.attempts), ['brave:failed:RATE_LIMITED', 'wikipedia:ok']);
  const second = await chain.search({ query: 'tide', count: 5 });
  assert.deepEqual(summary(second.attempts), ['brave:skipped:RATE_LIMITED', 'wikipedia:ok']);
  assert.match(second.attempts[0]?.message ?? '', /^cooling down for 1 s after: rate limited/);
  assert.equal(braveCalls, 1, 'not asked while cooling');
  const cooling = (await chain.status()).find((provider) => provider.id === 'brave');
  assert.equal(cooling?.health.state, 'cooling');
  assert.ok(cooling?.health.coolingUntil);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const third = await chain.search({ query: 'tide', count: 5 });
  assert.deepEqual(summary(third.attempts), ['brave:ok']);
  assert.equal(third.provider, 'brave');
  assert.deepEqual(third.results[0], {
    title: 'Brave one',
    url: 'https://one.example/',
    snippet: 'First & best',
    publishedAt: '2025-03-01T10:00:00.000Z',
  });
  const recovered = (await chain.status()).find((provider) => provider.id === 'brave');
  assert.equal(recovered?.health.state, 'ok');
  assert.equal(recovered?.health.consecutiveFailures, 0);
});

test('two failures in a row without a Retry-After bench a provider (backoff); --provider still asks it', async () => {
  behaviour.flaky = (_request, response) => response.writeHead(503).end('down');
  behaviour.backup = (_request, response) => json(response, 200, { results: [] });
  const chain = makeChain(
    { chain: ['flaky', 'backup'] },
    {},
    { extraProviders: [httpProvider('flaky'), httpProvider('backup')] },
  );
  await chain.search({ query: 'a', count: 5 });
  const second = await chain.search({ query: 'b', count: 5 });
  assert.deepEqual(summary(second.attempts), ['flaky:failed:HTTP_STATUS', 'backup:ok']);
  const third = await chain.search({ query: 'c', count: 5 });
  assert.deepEqual(summary(third.attempts), ['flaky:skipped:HTTP_STATUS', 'backup:ok']);
  assert.equal(arrivals.flaky?.length, 2);
  const forced = await rejection(chain.search({ query: 'd', count: 5 }, { provider: 'flaky' }));
  assert.equal(forced.code, 'HTTP_STATUS');
  assert.equal(arrivals.flaky?.length, 3, 'a forced provider is asked even while cooling');
  const unknown = await rejection(chain.search({ query: 'd', count: 5 }, { provider: 'nope' }));
  assert.equal(unknown.code, 'INVALID_INPUT');
  assert.match(unknown.message, /unknown search provider "nope"; known providers: .*brave/);
});

test('pacing: 20 concurrent calls reach the stand-in spaced by minIntervalMs, and all succeed', async () => {
  const intervalMs = 40;
  behaviour.paced = (_request, response) => json(response, 200, { results: [] });
  const chain = makeChain(
    { chain: ['paced'], timeoutMs: 2000 },
    {},
    { extraProviders: [httpProvider('paced', { minIntervalMs: intervalMs })] },
  );
  const calledAt = performance.now();
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, index) => chain.search({ query: `q${index}`, count: 5 })),
  );
  assert.ok(answers.every((answer) => answer.attempts[0]?.outcome === 'ok'));
  const times = arrivals.paced ?? [];
  assert.equal(times.length, 20);
  // Request k cannot leave before k intervals after the calls were made, and arrives after it left: a lower bound
  // that holds however loaded the machine is (a gap between two arrivals does not: one late arrival shortens the
  // next gap). Unpaced, all 20 arrive within a few ms.
  const late = times.map((time) => (time - calledAt).toFixed(0)).join(', ');
  assert.ok(
    times.every((time, index) => time - calledAt >= index * intervalMs),
    `arrived after (ms): ${late}`,
  );
  assert.ok(answers.some((answer) => (answer.attempts[0]?.queuedMs ?? 0) > 0));
});

test('pacing: duckduckgo is serialised (one request in flight) even with no interval', async () => {
  let inFlight = 0;
  let most = 0;
  behaviour.ddg = (_request, response) => {
    inFlight++;
    most = Math.max(most, inFlight);
    setTimeout(() => {
      inFlight--;
      response.writeHead(200, { 'content-type': 'text/html' }).end(DDG_RESULTS);
    }, 15);
  };
  const chain = makeChain({ chain: ['duckduckgo'] });
  const answers = await Promise.all(Array.from({ length: 6 }, () => chain.search({ query: 'go', count: 3 })));
  assert.ok(answers.every((answer) => answer.results.length === 3));
  assert.equal(most, 1);
});

test('pacing: when the queue is longer than the timeout, the call moves on instead of waiting', async () => {
  behaviour.slowpace = (_request, response) => json(response, 200, { results: [] });
  behaviour.spare = (_request, response) => json(response, 200, { results: [] });
  const chain = makeChain(
    { chain: ['slowpace', 'spare'], timeoutMs: 150 },
    {},
    { extraProviders: [httpProvider('slowpace', { minIntervalMs: 100 }), httpProvider('spare')] },
  );
  const answers = await Promise.all(Array.from({ length: 4 }, () => chain.search({ query: 'x', count: 5 })));
  const providers = answers.map((answer) => answer.provider).sort();
  assert.deepEqual(providers, ['slowpace', 'slowpace', 'spare', 'spare']);
  const skipped = answers.find((answer) => answer.provider === 'spare');
  assert.equal(skipped?.attempts[0]?.outcome, 'skipped');
  assert.equal(skipped?.attempts[0]?.code, 'RATE_LIMITED');
  const status = (await chain.status()).find((provider) => provider.id === 'slowpace');
  assert.equal(status?.health.state, 'ok', 'a local queue is not a provider failure');
});

test('fan-out asks the first N healthy providers at once and merges, deduplicating by canonical URL', async () => {
  // alpha and beta hold their answers until both requests have arrived: asked one after the other, the second
  // request would never come while the first waits, and the first would time out.
  let arrived = 0;
  let bothArrived = () => {};
  const together = new Promise<void>((resolve) => {
    bothArrived = resolve;
  });
  const delayed =
    (results: unknown[]): TestHandler =>
    (_request, response) => {
      arrived++;
      if (arrived === 2) bothArrived();
      void together.then(() => json(response, 200, { results }));
    };
  behaviour.alpha = delayed([
    { title: 'Shared', url: 'https://Example.com/guide/?utm_source=alpha&id=7', snippet: 'alpha copy' },
    { title: 'Alpha only', url: 'https://alpha.example/a', snippet: '' },
  ]);
  behaviour.beta = delayed([
    { title: 'Beta first', url: 'https://beta.example/b', snippet: '' },
    { title: 'Shared again', url: 'http://example.com/guide?id=7&fbclid=XYZ', snippet: 'beta copy' },
    { title: 'Beta third', url: 'https://beta.example/c', snippet: '' },
  ]);
  behaviour.gamma = delayed([{ title: 'Gamma', url: 'https://gamma.example/', snippet: '' }]);
  const chain = makeChain(
    { chain: ['alpha', 'beta', 'gamma'], mode: 'fanout', fanout: 2 },
    {},
    { extraProviders: [httpProvider('alpha'), httpProvider('beta'), httpProvider('gamma')] },
  );
  const answer = await chain.search({ query: 'guide', count: 10 });
  assert.equal(answer.provider, 'alpha+beta');
  assert.deepEqual(
    answer.results.map((result) => result.title),
    ['Shared', 'Beta first', 'Alpha only', 'Beta third'],
  );
  assert.deepEqual(summary(answer.attempts), ['alpha:ok', 'beta:ok']);
  assert.equal(arrivals.gamma, undefined);

  behaviour.alpha = (_request, response) => response.writeHead(500).end('boom');
  behaviour.beta = (_request, response) => response.writeHead(502).end('bad gateway');
  const fallback = await chain.search({ query: 'guide', count: 10 });
  assert.equal(fallback.provider, 'gamma');
  assert.deepEqual(summary(fallback.attempts), [
    'alpha:failed:HTTP_STATUS',
    'beta:failed:HTTP_STATUS',
    'gamma:ok',
  ]);
});

test('ALL_FAILED lists every attempt with its reason and is never worded as "no results"', async () => {
  behaviour.brave = (_request, response) =>
    json(response, 422, {
      type: 'ErrorResponse',
      error: { code: 'SUBSCRIPTION_TOKEN_INVALID', detail: 'The provided subscription token is invalid.' },
    });
  behaviour.ddg = (_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html' }).end(ANOMALY);
  behaviour.wiki = (_request, response) =>
    response.writeHead(503, { 'retry-after': '30' }).end('maintenance');
  const chain = makeChain({ chain: ['tavily', 'brave', 'duckduckgo', 'wikipedia'] });
  const error = await rejection(chain.search({ query: 'anything', count: 5 }));
  assert.equal(error.code, 'ALL_FAILED');
  assert.equal(error.retryable, true);
  assert.equal(error.retryAfterMs, 30_000);
  assert.match(
    error.message,
    /^every search provider failed, so there are no results to show \(this is not an empty result\): /,
  );
  assert.match(
    error.message,
    /tavily skipped \(NOT_CONFIGURED\): no credentials: missing \(TAVILY_API_KEY\)/,
  );
  assert.match(error.message, /brave failed \(HTTP_STATUS\): the API key was refused/);
  assert.match(error.message, /duckduckgo failed \(BLOCKED_BY_SITE\): .*anti-bot challenge page/);
  assert.match(error.message, /wikipedia failed \(HTTP_STATUS\): .*503/);
  assert.doesNotMatch(error.message, /^No results/i);
  assert.deepEqual(summary(error.details.attempts as never), [
    'tavily:skipped:NOT_CONFIGURED',
    'brave:failed:HTTP_STATUS',
    'duckduckgo:failed:BLOCKED_BY_SITE',
    'wikipedia:failed:HTTP_STATUS',
  ]);
});

test('a query too long for every provider asked is ALL_FAILED, not retryable; with one transient failure it is', async () => {
  const query = 'x'.repeat(401);
  const refusedOnly = makeChain({ chain: ['tavily', 'brave'] });
  const error = await rejection(refusedOnly.search({ query, count: 5 }));
  assert.equal(error.code, 'ALL_FAILED');
  assert.deepEqual(summary(error.details.attempts as never), [
    'tavily:skipped:NOT_CONFIGURED',
    'brave:skipped:INVALID_INPUT',
  ]);
  assert.equal(error.retryable, false, error.message);
  assert.match(
    error.message,
    /brave skipped \(INVALID_INPUT\): the query has 401 characters .*shorten the query/,
  );

  behaviour.wiki = (_request, response) => response.writeHead(503).end('maintenance');
  const withTransient = makeChain({ chain: ['brave', 'wikipedia'] });
  const transient = await rejection(withTransient.search({ query, count: 5 }));
  assert.deepEqual(summary(transient.details.attempts as never), [
    'brave:skipped:INVALID_INPUT',
    'wikipedia:failed:HTTP_STATUS',
  ]);
  assert.equal(transient.retryable, true);
  assert.equal(arrivals.brave, undefined, 'brave was never asked');
});

test('results are normalised: tags, entities, whitespace, dates to ISO 8601, non-http(s) URLs and duplicates dropped', async () => {
  behaviour.messy = (_request, response) =>
    json(response, 200, {
      results: [
        {
          title: '  <b>Caf&eacute;</b>\n &amp;  bar&#39;s &#x1F600; ',
          url: 'https://cafe.example/menu',
          snippet: 'Open&nbsp;<em>late</em>\t\ttoday',
          publishedAt: 'Tue, 05 Mar 2024 10:00:00 GMT',
        },
        { title: 'Script', url: 'javascript:alert(1)', snippet: 'x' },
        { title: 'Mail', url: 'mailto:a@b.example', snippet: 'x' },
        { title: 'Relative', url: '/relative/path', snippet: 'x' },
        { title: 'Duplicate', url: 'https://CAFE.example/menu/?utm_campaign=spring', snippet: 'x' },
        { title: '', url: 'https://untitled.example/', snippet: '', publishedAt: '2024-02-29' },
        { title: 'Bad date', url: 'https://dates.example/', snippet: '', publishedAt: 'sometime' },
        { title: 'Epoch', url: 'https://epoch.example/', snippet: '', publishedAt: '1700000000' },
      ],
    });
  const chain = makeChain({ chain: ['messy'] }, {}, { extraProviders: [httpProvider('messy')] });
  const answer = await chain.search({ query: 'x', count: 20 });
  assert.deepEqual(answer.results, [
    {
      title: "Café & bar's 😀",
      url: 'https://cafe.example/menu',
      snippet: 'Open late today',
      publishedAt: '2024-03-05T10:00:00.000Z',
    },
    {
      title: 'https://untitled.example/',
      url: 'https://untitled.example/',
      snippet: '',
      publishedAt: '2024-02-29',
    },
    { title: 'Bad date', url: 'https://dates.example/', snippet: '' },
    { title: 'Epoch', url: 'https://epoch.example/', snippet: '', publishedAt: '2023-11-14T22:13:20.000Z' },
  ]);
});

test('image results on private, loopback, link-local or local-name addresses are dropped unless opened', async () => {
  const image = (imageUrl: string, extra: Record<string, unknown> = {}) => ({
    title: imageUrl,
    imageUrl,
    ...extra,
  });
  behaviour.pics = (_request, response) =>
    json(response, 200, {
      results: [
        image('https://cdn.example/cat.jpg', {
          thumbnailUrl: 'data:image/png;base64,AAAA',
          sourceUrl: 'https://cats.example/',
          width: 640,
          height: '480',
        }),
        image('http://10.0.0.5/internal.png'),
        image('http://127.0.0.1:8080/x.png'),
        image('http://[::1]/x.png'),
        image('http://169.254.169.254/latest/meta-data'),
        image('http://2130706433/decimal.png'),
        image('http://localhost/x.png'),
        image('https://cdn.example/ok.jpg', { thumbnailUrl: 'http://192.168.1.1/thumb.png' }),
        image('ftp://cdn.example/file.jpg'),
      ],
    });
  const chain = makeChain({ chain: ['pics'] }, {}, { extraProviders: [httpProvider('pics')] });
  const answer = await chain.searchImages({ query: 'cat', count: 20 });
  assert.deepEqual(answer.results, [
    {
      title: 'https://cdn.example/cat.jpg',
      imageUrl: 'https://cdn.example/cat.jpg',
      sourceUrl: 'https://cats.example/',
      width: 640,
      height: 480,
    },
    // A private thumbnail alone costs the thumbnail, not the result.
    { title: 'https://cdn.example/ok.jpg', imageUrl: 'https://cdn.example/ok.jpg' },
  ]);
  assert.deepEqual(answer.warnings, [
    'pics gave 6 image results on a private or local address, dropped (network.allowPrivateNetwork opens such ranges)',
  ]);
  const opened = makeChain(
    { chain: ['pics'] },
    {},
    {
      extraProviders: [httpProvider('pics')],
      networkPolicy: createNetworkPolicy({ allowPrivateNetwork: ['10.0.0.0/8'] }),
    },
  );
  const intranet = await opened.searchImages({ query: 'cat', count: 20 });
  assert.deepEqual(
    intranet.results.map((result) => result.imageUrl),
    ['https://cdn.example/cat.jpg', 'http://10.0.0.5/internal.png', 'https://cdn.example/ok.jpg'],
  );
});

test('warnings from providers reach the caller; a provider without image search is left out of the image chain', async () => {
  behaviour.wiki = wikipediaOk;
  const chain = makeChain({ chain: ['wikipedia'] });
  const answer = await chain.search({ query: 'tide', count: 5, region: 'fr', freshness: 'week' });
  assert.equal(answer.warnings.length, 2);
  assert.match(answer.warnings.join('\n'), /wikipedia does not support region/);
  const images = await rejection(chain.searchImages({ query: 'tide', count: 5 }));
  assert.equal(images.code, 'NOT_CONFIGURED');
  assert.match(images.message, /no provider in search\.chain offers image search/);
});

test('config naming unknown providers is CONFIG_INVALID listing each', () => {
  assert.throws(
    () => makeChain({ chain: ['brave', 'bing'] }, { brvae: { apiKey: 'x' } }),
    (error: unknown) => {
      assert.ok(isPeriscopeError(error));
      assert.equal(error.code, 'CONFIG_INVALID');
      assert.deepEqual(
        (error.details.problems as string[]).map((problem) => problem.split(':')[0]),
        ['search.chain.1', 'providers.brvae'],
      );
      return true;
    },
  );
});

// The same behaviours with built-in providers only (no test providers), each against its own stand-in on
// 127.0.0.1 that speaks that provider's API: default pacing measured where the requests land, fan-out over two
// real providers, a cooldown driven by X-RateLimit-* alone, and fallback on a refused or reset connection.
describe('built-in providers against their stand-ins', () => {
  const servers: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((item) => item.close()));
  });
  async function standIn(handler: StandInHandler): Promise<TestServer> {
    const started = await startProviderStandIn(handler);
    servers.push(started);
    return started;
  }
  function builtInChain(search: Record<string, unknown>, providers: Record<string, unknown>) {
    return createSearchChain({
      search: searchSchema.parse({ timeoutMs: 2000, ...search }),
      providers: providersSchema.parse(providers),
      env: {},
      httpFetch,
    });
  }
  const gapsOf = (times: number[]) => times.slice(1).map((time, index) => time - (times[index] as number));
  const shown = (gaps: number[]) => gaps.map((gap) => gap.toFixed(0)).join(', ');
  const serperHit = (title: string, link: string) => ({ title, link, snippet: `${title} snippet` });

  test('pacing: 20 concurrent calls reach the serper stand-in at serper’s default spacing (220 ms)', async () => {
    const times: number[] = [];
    const server = await standIn((call) => {
      times.push(performance.now());
      assert.equal(`${call.method} ${call.url.pathname}`, 'POST /search');
      assert.equal(call.headers['x-api-key'], 'serper-key');
      const { q } = JSON.parse(call.body) as { q: string };
      return jsonReply({ organic: [serperHit(q, `https://serper.example/${q}`)], credits: 1 });
    });
    // No minIntervalMs in the config: the provider's own default applies.
    const chain = builtInChain(
      { chain: ['serper'] },
      { serper: { apiKey: 'serper-key', baseUrl: server.url } },
    );
    const defaultMs = serperSearchProvider.minIntervalMs;
    assert.equal(defaultMs, 220);
    assert.equal((await chain.status()).find((item) => item.id === 'serper')?.minIntervalMs, defaultMs);
    // One call first, so the 20 measured ones do not carry the first connection's and first run's costs.
    await chain.search({ query: 'warm-up', count: 3 });
    // Let the warm-up's interval pass, so the first measured request leaves at once.
    await new Promise((resolve) => setTimeout(resolve, defaultMs));
    times.length = 0;
    const calledAt = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) => chain.search({ query: `q${index}`, count: 3 })),
    );
    assert.deepEqual(
      answers.map((answer) => answer.results[0]?.title),
      Array.from({ length: 20 }, (_, index) => `q${index}`),
    );
    assert.equal(times.length, 20);
    // Request k cannot leave before k intervals after the calls, and arrives after it left: a lower bound that holds
    // however loaded the machine is (a gap between two arrivals does not: one late arrival shortens the next gap).
    const gaps = gapsOf(times);
    assert.ok(
      times.every((time, index) => time - calledAt >= index * defaultMs),
      `arrived after (ms): ${times.map((time) => (time - calledAt).toFixed(0)).join(', ')}; gaps: ${shown(gaps)}`,
    );
    assert.ok(answers.filter((answer) => (answer.attempts[0]?.queuedMs ?? 0) > 0).length >= 19);
  });

  test('pacing: duckduckgo is serialised and spaced by its defaults (1 in flight, 1 500 ms); 20 calls queue', async () => {
    let inFlight = 0;
    let most = 0;
    const times: number[] = [];
    const server = await startTestServer({
      'POST /html/': (_request, response) => {
        times.push(performance.now());
        inFlight++;
        most = Math.max(most, inFlight);
        setTimeout(() => {
          inFlight--;
          response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(DDG_RESULTS);
        }, 60);
      },
    });
    servers.push(server);
    const defaults = builtInChain({ chain: ['duckduckgo'] }, { duckduckgo: { baseUrl: server.url } });
    const status = (await defaults.status()).find((item) => item.id === 'duckduckgo');
    assert.equal(status?.minIntervalMs, 1_500);
    assert.equal(status?.maxConcurrent, 1);
    // The default spacing, measured: of two calls made at once, the second request cannot leave before 1.5 s after
    // the first one left, which was after the calls were made. (A lower bound only: a loaded machine makes it later.)
    const bothCalledAt = performance.now();
    await Promise.all([defaults.search({ query: 'a', count: 1 }), defaults.search({ query: 'b', count: 1 })]);
    assert.equal(times.length, 2);
    const secondMs = (times[1] as number) - bothCalledAt;
    assert.ok(secondMs >= 1_500, `the second arrived ${secondMs.toFixed(0)} ms after the calls`);

    // 20 calls with a shorter interval (20 × 1.5 s would be half a minute), shorter than an answer takes (60 ms):
    // serialised, so never two in flight, spaced, all answered.
    times.length = 0;
    most = 0;
    const intervalMs = 30;
    const chain = builtInChain(
      { chain: ['duckduckgo'] },
      { duckduckgo: { baseUrl: server.url, minIntervalMs: intervalMs } },
    );
    const calledAt = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) => chain.search({ query: `q${index}`, count: 3 })),
    );
    assert.ok(answers.every((answer) => answer.provider === 'duckduckgo' && answer.results.length === 3));
    assert.equal(most, 1, 'one request in flight at a time');
    assert.equal(times.length, 20);
    const gaps = gapsOf(times);
    // Each answer takes 60 ms and the next request waits for it: gaps are at least that (less the jitter of one
    // arrival); the last request left no sooner than 19 intervals after the first, itself after the calls.
    assert.ok(Math.min(...gaps) >= intervalMs - 15, `gaps: ${shown(gaps)}`);
    assert.ok((times.at(-1) as number) - calledAt >= 19 * intervalMs, `gaps: ${shown(gaps)}`);
  });

  test('fan-out over brave and serper merges by rank and drops the same page (utm_*, gclid, case, www, slash)', async () => {
    // Each stand-in holds its answer until both requests have arrived: asked one after the other, the second
    // request would never come while the first waits, and the first would time out.
    let arrivedCount = 0;
    let bothArrived = () => {};
    const together = new Promise<void>((resolve) => {
      bothArrived = resolve;
    });
    const arrive = () => {
      arrivedCount++;
      if (arrivedCount === 2) bothArrived();
      return together;
    };
    const brave = await standIn(async (call) => {
      await arrive();
      assert.equal(call.url.pathname, '/res/v1/web/search');
      const results = [
        { title: 'Guide', url: 'https://Example.com/guide/?utm_source=brave&id=7', description: 'b1' },
        { title: 'Docs', url: 'https://example.com/Docs', description: 'b2' },
        { title: 'Brave only', url: 'https://brave-only.example/a', description: 'b3' },
      ];
      return jsonReply({ type: 'search', web: { results } });
    });
    const serper = await standIn(async (call) => {
      await arrive();
      assert.equal(call.url.pathname, '/search');
      const organic = [
        serperHit('Serper only', 'https://serper-only.example/b'),
        serperHit('Guide again', 'http://example.com/guide?id=7&utm_medium=serp&gclid=abc'),
        serperHit('Docs again', 'HTTPS://WWW.EXAMPLE.COM/Docs/'),
        serperHit('Serper last', 'https://serper-only.example/c'),
      ];
      return jsonReply({ organic });
    });
    const chain = builtInChain(
      { chain: ['brave', 'serper'], mode: 'fanout', fanout: 2 },
      {
        brave: { apiKey: 'brave-key', baseUrl: brave.url },
        serper: { apiKey: 'serper-key', baseUrl: serper.url },
      },
    );
    const answer = await chain.search({ query: 'guide', count: 10 });
    assert.equal(answer.provider, 'brave+serper');
    // Rank 1 of each, rank 2 of each…: serper's "Guide again" and "Docs again" are brave's first two, dropped.
    assert.deepEqual(
      answer.results.map((result) => [result.title, result.url]),
      [
        ['Guide', 'https://example.com/guide/?utm_source=brave&id=7'],
        ['Serper only', 'https://serper-only.example/b'],
        ['Docs', 'https://example.com/Docs'],
        ['Brave only', 'https://brave-only.example/a'],
        ['Serper last', 'https://serper-only.example/c'],
      ],
    );
    assert.deepEqual(summary(answer.attempts), ['brave:ok', 'serper:ok']);
    assert.equal(brave.calls.length, 1);
    assert.equal(serper.calls.length, 1);
  });

  test('cooldown from X-RateLimit-* alone (Brave’s format, no Retry-After): skipped until the reset, then recovers', async () => {
    let braveCalls = 0;
    const brave = await standIn(() => {
      braveCalls++;
      const windows = { 'x-ratelimit-limit': '1, 15000', 'x-ratelimit-policy': '1;w=1, 15000;w=2592000' };
      if (braveCalls === 1) {
        return jsonReply(
          { type: 'ErrorResponse', error: { code: 'RATE_LIMITED', detail: 'Request rate limit exceeded' } },
          429,
          { ...windows, 'x-ratelimit-remaining': '0, 13999', 'x-ratelimit-reset': '1, 1419704' },
        );
      }
      return jsonReply(
        {
          type: 'search',
          web: { results: [{ title: 'Brave', url: 'https://brave.example/', description: '' }] },
        },
        200,
        { ...windows, 'x-ratelimit-remaining': '0, 13998', 'x-ratelimit-reset': '1, 1419703' },
      );
    });
    const wiki = await standIn(() =>
      jsonReply({ query: { search: [{ title: 'Tide', snippet: 'A tide' }] } }),
    );
    const chain = builtInChain(
      { chain: ['brave', 'wikipedia'] },
      {
        brave: { apiKey: 'brave-key', baseUrl: brave.url, minIntervalMs: 0 },
        wikipedia: { baseUrl: wiki.url, minIntervalMs: 0 },
      },
    );
    const beforeFirst = Date.now();
    const first = await chain.search({ query: 'tide', count: 5 });
    const afterFirst = Date.now();
    assert.deepEqual(summary(first.attempts), ['brave:failed:RATE_LIMITED', 'wikipedia:ok']);
    assert.equal(first.attempts[0]?.retryAfterMs, 1_000, 'the exhausted (per-second) window resets in 1 s');
    const second = await chain.search({ query: 'tide', count: 5 });
    assert.deepEqual(summary(second.attempts), ['brave:skipped:RATE_LIMITED', 'wikipedia:ok']);
    assert.match(second.attempts[0]?.message ?? '', /^cooling down for 1 s after: rate limited/);
    assert.equal(braveCalls, 1, 'not asked while cooling');
    const cooling = (await chain.status()).find((item) => item.id === 'brave');
    assert.equal(cooling?.health.state, 'cooling');
    const untilMs = Date.parse(cooling?.health.coolingUntil ?? '');
    // 1 s after the 429 (the per-second window), not the monthly window's reset.
    assert.ok(untilMs >= beforeFirst + 1_000 && untilMs <= afterFirst + 1_000, cooling?.health.coolingUntil);
    await new Promise((resolve) => setTimeout(resolve, untilMs - Date.now() + 30));
    const third = await chain.search({ query: 'tide', count: 5 });
    assert.deepEqual(summary(third.attempts), ['brave:ok']);
    assert.equal(braveCalls, 2);
    const recovered = (await chain.status()).find((item) => item.id === 'brave');
    assert.equal(recovered?.health.state, 'ok');
    assert.equal(recovered?.quota?.remaining, 13_998, 'the monthly window is the quota shown');
  });

  test('a refused connection and a reset connection are NETWORK attempts, and the next provider answers', async () => {
    const closed = createNetServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const refusedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    let resets = 0;
    const resetting = createNetServer((socket) =>
      socket.once('data', () => {
        resets++;
        socket.resetAndDestroy();
      }),
    );
    await new Promise<void>((resolve) => resetting.listen(0, '127.0.0.1', resolve));
    const resetPort = (resetting.address() as AddressInfo).port;
    try {
      const wiki = await standIn(() =>
        jsonReply({ query: { search: [{ title: 'Tide', snippet: 'A tide' }] } }),
      );
      const chain = builtInChain(
        { chain: ['brave', 'serper', 'wikipedia'] },
        {
          brave: { apiKey: 'brave-key', baseUrl: `http://127.0.0.1:${refusedPort}` },
          serper: { apiKey: 'serper-key', baseUrl: `http://127.0.0.1:${resetPort}` },
          wikipedia: { baseUrl: wiki.url },
        },
      );
      const answer = await chain.search({ query: 'tide', count: 5 });
      assert.equal(answer.provider, 'wikipedia');
      assert.deepEqual(summary(answer.attempts), [
        'brave:failed:NETWORK',
        'serper:failed:NETWORK',
        'wikipedia:ok',
      ]);
      assert.match(answer.attempts[0]?.message ?? '', /refused/i);
      assert.match(answer.attempts[1]?.message ?? '', /reset|closed|hang up/i);
      assert.ok(resets >= 1, 'the reset server was reached');
      assert.equal(wiki.calls.length, 1);
    } finally {
      await new Promise<void>((resolve) => resetting.close(() => resolve()));
    }
  });

  test('status carries a provider’s note: google-cse is closed to new customers', async () => {
    const chain = builtInChain({}, {});
    const status = await chain.status();
    assert.match(
      status.find((item) => item.id === 'google-cse')?.note ?? '',
      /^closed to new customers; existing keys work until 2027-01-01/,
    );
    assert.deepEqual(
      status.filter((item) => item.note !== undefined).map((item) => item.id),
      ['marginalia', 'google-cse'],
    );
  });
});

// Provider health kept in the Store (src/search/health-store.ts): what one chain learns — a cooldown, the last
// error, the credits a response reported — reaches another chain sharing the store, as the next CLI run would.
describe('provider health shared through the store', () => {
  const servers: TestServer[] = [];
  const stores: Store[] = [];
  afterEach(async () => {
    await Promise.all([
      ...servers.splice(0).map((item) => item.close()),
      ...stores.splice(0).map((s) => s.close()),
    ]);
  });
  async function standIn(handler: StandInHandler): Promise<TestServer> {
    const started = await startProviderStandIn(handler);
    servers.push(started);
    return started;
  }
  function sqliteStore(path: string): Store {
    const store = createSqliteStore({ path });
    stores.push(store);
    return store;
  }
  function chainWith(
    store: Store | undefined,
    search: Record<string, unknown>,
    providers: Record<string, unknown>,
  ) {
    return createSearchChain({
      search: searchSchema.parse({ timeoutMs: 2000, ...search }),
      providers: providersSchema.parse(providers),
      env: {},
      httpFetch,
      ...(store ? { store: async () => store } : {}),
    });
  }
  const statusOf = async (chain: ReturnType<typeof createSearchChain>, id: string) =>
    (await chain.status()).find((item) => item.id === id);

  test('a serper answer’s credits show in status, from the response and when; another chain sharing the store sees them', async () => {
    const serper = await standIn((call) => {
      assert.equal(call.headers['x-api-key'], 'serper-key');
      return jsonReply({
        organic: [{ title: 'Tide', link: 'https://tide.example/', snippet: 'A tide' }],
        credits: 2,
      });
    });
    const store = createMemoryStore();
    stores.push(store);
    const providers = { serper: { apiKey: 'serper-key', baseUrl: serper.url } };
    const first = chainWith(store, { chain: ['serper'] }, providers);
    const before = Date.now();
    assert.equal((await first.search({ query: 'tide', count: 3 })).provider, 'serper');
    const shown = await statusOf(first, 'serper');
    assert.deepEqual(shown?.quota, { note: '2 credits used' });
    assert.equal(shown?.quotaFrom, 'response');
    assert.ok(Date.parse(shown?.quotaAt ?? '') >= before - 1000, shown?.quotaAt);

    const later = chainWith(store, { chain: ['serper'] }, providers);
    const seen = await statusOf(later, 'serper');
    assert.deepEqual(seen?.quota, { note: '2 credits used' });
    assert.equal(seen?.quotaAt, shown?.quotaAt);
    assert.equal(serper.calls.length, 1, 'status asked nothing: serper has no quota endpoint');
  });

  test('kagi’s balance (only in v0 answers) is kept: a later chain on the store shows it without asking', async () => {
    const kagi = await standIn((call) =>
      call.url.pathname === '/api/v0/search'
        ? jsonReply({
            meta: { id: 'i', node: 'n', ms: 1, api_balance: 4.2 },
            data: [{ t: 0, url: 'https://tide.example/', title: 'Tide', snippet: 'A tide' }],
          })
        : jsonReply({ meta: {}, error: [{ code: 403, message: 'API v1 access is invite-only' }] }, 403),
    );
    const store = createMemoryStore();
    stores.push(store);
    const providers = { kagi: { apiKey: 'kagi-key', baseUrl: kagi.url } };
    await chainWith(store, { chain: ['kagi'] }, providers).search({ query: 'tide', count: 3 });
    const seen = await statusOf(chainWith(store, { chain: ['kagi'] }, providers), 'kagi');
    assert.deepEqual(seen?.quota, { note: 'Kagi balance $4.20' });
    assert.equal(seen?.quotaFrom, 'response');
    assert.deepEqual(
      kagi.calls.map((call) => `${call.method} ${call.url.pathname} ${call.headers.authorization}`),
      ['POST /api/v1/search Bot kagi-key', 'GET /api/v0/search Bot kagi-key'],
    );
  });

  test('two chains sharing one SQLite store see the same cooldown, and a success in either ends it', async () => {
    let braveDown = true;
    const brave = await standIn(() =>
      braveDown
        ? jsonReply({ type: 'ErrorResponse', error: { code: 'RATE_LIMITED', detail: 'Too many' } }, 429, {
            'retry-after': '60',
          })
        : jsonReply({
            web: { results: [{ title: 'Brave', url: 'https://brave.example/', description: 'b' }] },
          }),
    );
    const wiki = await standIn(() =>
      jsonReply({ query: { search: [{ title: 'Tide', snippet: 'A tide' }] } }),
    );
    const path = join(mkdtempSync(join(tmpdir(), 'periscope-health-')), 'state.db');
    const providers = {
      brave: { apiKey: 'brave-key', baseUrl: brave.url, minIntervalMs: 0 },
      wikipedia: { baseUrl: wiki.url, minIntervalMs: 0 },
    };
    // Two stores on one file: two processes, as far as the chains can tell.
    const one = chainWith(sqliteStore(path), { chain: ['brave', 'wikipedia'] }, providers);
    const two = chainWith(sqliteStore(path), { chain: ['brave', 'wikipedia'] }, providers);

    const failed = await one.search({ query: 'tide', count: 3 });
    assert.deepEqual(summary(failed.attempts), ['brave:failed:RATE_LIMITED', 'wikipedia:ok']);
    const skipped = await two.search({ query: 'tide', count: 3 });
    assert.deepEqual(summary(skipped.attempts), ['brave:skipped:RATE_LIMITED', 'wikipedia:ok']);
    assert.match(skipped.attempts[0]?.message ?? '', /^cooling down for (59|60) s after: rate limited/);
    assert.equal(brave.calls.length, 1, 'the second chain did not ask brave');
    const cooling = (await statusOf(two, 'brave'))?.health;
    assert.equal(cooling?.state, 'cooling');
    const untilMs = Date.parse(cooling?.coolingUntil ?? '');
    assert.ok(Math.abs(untilMs - (Date.now() + 60_000)) < 5_000, cooling?.coolingUntil);
    assert.equal(cooling?.lastError?.code, 'RATE_LIMITED');

    // Asked directly (cooldown ignored) by the second chain, brave answers: the first chain sees it back.
    braveDown = false;
    assert.equal((await two.search({ query: 'tide', count: 3 }, { provider: 'brave' })).provider, 'brave');
    assert.equal((await statusOf(one, 'brave'))?.health.state, 'ok');
    assert.equal((await one.search({ query: 'tide', count: 3 })).provider, 'brave');
    assert.equal(brave.calls.length, 3);
  });

  test('health is kept per key: a refused key benches only itself; another key (or endpoint) starts clean', async () => {
    const brave = await standIn((call) =>
      call.headers['x-subscription-token'] === 'key-b'
        ? jsonReply({
            web: { results: [{ title: 'Brave', url: 'https://brave.example/', description: 'b' }] },
          })
        : jsonReply(
            {
              type: 'ErrorResponse',
              error: {
                code: 'SUBSCRIPTION_TOKEN_INVALID',
                detail: 'The provided subscription token is invalid.',
              },
            },
            401,
          ),
    );
    const wiki = await standIn(() =>
      jsonReply({ query: { search: [{ title: 'Tide', snippet: 'A tide' }] } }),
    );
    const path = join(mkdtempSync(join(tmpdir(), 'periscope-health-')), 'state.db');
    // One store file per chain: each chain is a new process with its own configuration.
    const chainWithKey = (apiKey: string, baseUrl = brave.url) =>
      chainWith(
        sqliteStore(path),
        { chain: ['brave', 'wikipedia'] },
        {
          brave: { apiKey, baseUrl, minIntervalMs: 0 },
          wikipedia: { baseUrl: wiki.url, minIntervalMs: 0 },
        },
      );

    const refused = await chainWithKey('key-a').search({ query: 'tide', count: 3 });
    assert.deepEqual(summary(refused.attempts), ['brave:failed:HTTP_STATUS', 'wikipedia:ok']);
    assert.match(refused.attempts[0]?.message ?? '', /the API key was refused/);

    const fixed = await chainWithKey('key-b').search({ query: 'tide', count: 3 });
    assert.deepEqual(
      summary(fixed.attempts),
      ['brave:ok'],
      'a new key is not benched by the old one’s refusal',
    );
    assert.equal((await statusOf(chainWithKey('key-b'), 'brave'))?.health.state, 'ok');

    const again = await chainWithKey('key-a').search({ query: 'tide', count: 3 });
    assert.deepEqual(summary(again.attempts), ['brave:skipped:HTTP_STATUS', 'wikipedia:ok']);
    assert.match(again.attempts[0]?.message ?? '', /^cooling down for \d+ s after: the API key was refused/);
    // The same key at another endpoint is another account too.
    const elsewhere = await chainWithKey('key-a', `${brave.url}/`).search({ query: 'tide', count: 3 });
    assert.deepEqual(summary(elsewhere.attempts), ['brave:failed:HTTP_STATUS', 'wikipedia:ok']);
    assert.equal(brave.calls.length, 3);

    const keyA = healthKey('brave', { apiKey: 'key-a', baseUrl: brave.url });
    assert.match(keyA, /^search-health:brave:[\w-]{16}$/);
    assert.notEqual(keyA, healthKey('brave', { apiKey: 'key-b', baseUrl: brave.url }));
    assert.ok(!keyA.includes('key-a'), 'the key itself is never in the store key');
  });

  test('status() reads the stored health once per call, also on its first call', async () => {
    const memory = createMemoryStore();
    stores.push(memory);
    let reads = 0;
    const store: Store = Object.assign(Object.create(memory) as Store, {
      get: (key: string) => {
        reads++;
        return memory.get(key);
      },
    });
    const chain = chainWith(store, { chain: ['wikipedia'] }, {});
    const providers = (await chain.status()).length;
    assert.equal(reads, providers, 'the first status: one read per provider');
    reads = 0;
    await chain.status();
    assert.equal(reads, providers, 'a later status: one fresh read per provider');
  });

  test('plain successes write nothing to the store; a failure, the recovery and a quota (once a minute) do', async () => {
    let fail = false;
    let credits = 1;
    const serper = await standIn(() =>
      fail
        ? jsonReply({ message: 'Internal error', statusCode: 500 }, 500)
        : jsonReply({
            organic: [{ title: 'Tide', link: 'https://tide.example/', snippet: 'A tide' }],
            credits,
          }),
    );
    const brave = await standIn(() =>
      jsonReply({ web: { results: [{ title: 'Brave', url: 'https://brave.example/', description: 'b' }] } }),
    );
    const memory = createMemoryStore();
    stores.push(memory);
    const writes: string[] = [];
    const store: Store = Object.assign(Object.create(memory) as Store, {
      set: (key: string, value: unknown, options?: { ttlMs?: number }) => {
        writes.push(key);
        return memory.set(key, value, options);
      },
    });
    const chain = chainWith(
      store,
      { chain: ['brave', 'serper'] },
      {
        brave: { apiKey: 'brave-key', baseUrl: brave.url, minIntervalMs: 0 },
        serper: { apiKey: 'serper-key', baseUrl: serper.url, minIntervalMs: 0 },
      },
    );
    for (let index = 0; index < 5; index++) await chain.search({ query: `q${index}`, count: 3 });
    assert.deepEqual(writes, [], 'brave reported no quota: nothing to share');

    for (let index = 0; index < 3; index++) {
      credits = index + 1;
      await chain.search({ query: 'q', count: 3 }, { provider: 'serper' });
    }
    const serperKey = healthKey('serper', { apiKey: 'serper-key', baseUrl: serper.url });
    assert.deepEqual(writes, [serperKey], 'a quota alone is written at most once a minute');
    credits = 5;
    fail = true;
    await rejection(chain.search({ query: 'q', count: 3 }, { provider: 'serper' }));
    fail = false;
    await chain.search({ query: 'q', count: 3 }, { provider: 'serper' });
    assert.equal(writes.length, 3, 'the first credits, the failure, the recovery');
    const record = (await memory.get(serperKey)) as Record<string, unknown>;
    assert.equal(record.consecutiveFailures, 0);
    assert.equal((record.lastError as { code: string }).code, 'HTTP_STATUS');
    assert.deepEqual(record.quota, { note: '5 credits used' });
  });
});
