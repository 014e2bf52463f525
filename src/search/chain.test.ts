// The chain with real providers (brave, duckduckgo, wikipedia, and small HTTP providers) against local stand-ins
// that fail in each way: fallback order, what never falls through, cooldown and recovery, pacing, fan-out.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { after, before, beforeEach, test } from 'node:test';
import { providersSchema, searchSchema } from '../config/search-schema.ts';
import { isPeriscopeError, PeriscopeError } from '../errors.ts';
import { createAllowList } from '../net/allow-list.ts';
import { createHttpClient } from '../net/http-client.ts';
import { throwForStatus } from '../net/http-status.ts';
import { createLoopbackConnectGuard } from '../testing/connect-guard.ts';
import { startTestServer, type TestHandler, type TestServer } from '../testing/test-server.ts';
import { createSearchChain, type SearchChainSettings } from './chain.ts';
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

test('auto: custom providers, then keyed ones in the documented order, then duckduckgo and wikipedia', async () => {
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
  assert.deepEqual(order, ['acme', 'brave', 'serper', 'searxng', 'duckduckgo', 'wikipedia']);
  const byId = new Map(status.map((provider) => [provider.id, provider]));
  assert.equal(byId.get('brave')?.credentials, 'env BRAVE_API_KEY');
  assert.equal(byId.get('searxng')?.credentials, 'env SEARXNG_BASE_URL');
  assert.equal(byId.get('tavily')?.credentials, 'missing (TAVILY_API_KEY)');
  assert.equal(byId.get('exa')?.enabled, false);
  assert.equal(byId.get('exa')?.inChain, false);
  assert.equal(byId.get('duckduckgo')?.credentials, 'keyless');
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
  behaviour.slow = (_request, response) => setTimeout(() => json(response, 200, { results: [] }), 500);
  behaviour.fast = (_request, response) =>
    json(response, 200, { results: [{ title: 'Fast', url: 'https://fast.example/', snippet: '' }] });
  const chain = makeChain(
    { chain: ['slow', 'fast'], timeoutMs: 80 },
    {},
    { extraProviders: [httpProvider('slow'), httpProvider('fast')] },
  );
  const started = performance.now();
  const answer = await chain.search({ query: 'x', count: 5 });
  const elapsed = performance.now() - started;
  assert.deepEqual(summary(answer.attempts), ['slow:failed:TIMEOUT', 'fast:ok']);
  assert.match(answer.attempts[0]?.message ?? '', /did not answer within 80 ms \(search\.timeoutMs\)/);
  assert.ok(elapsed < 400, `took ${elapsed} ms`);
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
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, index) => chain.search({ query: `q${index}`, count: 5 })),
  );
  assert.ok(answers.every((answer) => answer.attempts[0]?.outcome === 'ok'));
  const times = arrivals.paced ?? [];
  assert.equal(times.length, 20);
  // Starts are spaced exactly; arrivals carry event-loop jitter (client and stand-in share this process), hence
  // the tolerance on single gaps. Unpaced, all 20 arrive within a few ms.
  const gaps = times.slice(1).map((time, index) => time - (times[index] as number));
  const shown = gaps.map((gap) => gap.toFixed(1)).join(', ');
  assert.ok(Math.min(...gaps) >= intervalMs * 0.5, `gaps: ${shown}`);
  assert.ok((times.at(-1) as number) - (times[0] as number) >= 19 * intervalMs - 5, `gaps: ${shown}`);
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
  const delayed =
    (results: unknown[]): TestHandler =>
    (_request, response) =>
      setTimeout(() => json(response, 200, { results }), 80);
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
  const started = performance.now();
  const answer = await chain.search({ query: 'guide', count: 10 });
  const elapsed = performance.now() - started;
  assert.equal(answer.provider, 'alpha+beta');
  assert.deepEqual(
    answer.results.map((result) => result.title),
    ['Shared', 'Beta first', 'Alpha only', 'Beta third'],
  );
  assert.deepEqual(summary(answer.attempts), ['alpha:ok', 'beta:ok']);
  assert.equal(arrivals.gamma, undefined);
  assert.ok(
    Math.abs((arrivals.alpha?.[0] as number) - (arrivals.beta?.[0] as number)) < 40,
    'asked together',
  );
  assert.ok(elapsed < 155, `parallel (one after the other would take 160 ms), took ${elapsed} ms`);

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
  ]);
  const opened = makeChain(
    { chain: ['pics'] },
    {},
    { extraProviders: [httpProvider('pics')], allowList: createAllowList(['10.0.0.0/8']) },
  );
  const intranet = await opened.searchImages({ query: 'cat', count: 20 });
  assert.deepEqual(
    intranet.results.map((result) => result.imageUrl),
    ['https://cdn.example/cat.jpg', 'http://10.0.0.5/internal.png'],
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
