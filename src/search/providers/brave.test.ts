import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { providersSchema, searchSchema } from '../../config/search-schema.ts';
import { isPeriscopeError, type PeriscopeError, type ProviderAttempt } from '../../errors.ts';
import { createHttpClient } from '../../net/http-client.ts';
import { createLoopbackConnectGuard } from '../../testing/connect-guard.ts';
import {
  expectProviderError,
  jsonReply,
  runProviderFailureSuite,
  standInContext,
  startProviderStandIn,
  withStandIn,
} from '../../testing/provider-stand-in.ts';
import { createSearchChain } from '../chain.ts';
import { braveSearchProvider as brave, braveSearchLanguage } from './brave.ts';

const settings = { apiKey: 'BSA-test-key-1234' };

/** Written in the recorded format (web.results[] with description, page_age; mixed, query). */
const webBody = {
  type: 'search',
  query: { original: 'node sqlite', more_results_available: true },
  mixed: { type: 'mixed', main: [{ type: 'web', index: 0, all: false }], top: [], side: [] },
  web: {
    type: 'search',
    family_friendly: true,
    results: [
      {
        type: 'search_result',
        title: 'SQLite | Node.js v24 Documentation',
        url: 'https://nodejs.org/api/sqlite.html',
        description: 'The <strong>node:sqlite</strong> module facilitates working with SQLite &amp; friends.',
        page_age: '2025-04-02T10:00:00',
        age: '2 days ago',
        meta_url: { scheme: 'https', netloc: 'nodejs.org', hostname: 'nodejs.org', path: '› api' },
      },
      {
        type: 'search_result',
        title: 'Using SQLite in Node',
        url: 'https://example.org/sqlite',
        description: 'A guide.',
      },
      { type: 'search_result', title: 'No URL here', description: 'dropped' },
    ],
  },
};

test('brave web search: normalised results, quota from the rate-limit headers, and the request sent', async () => {
  const reply = jsonReply(webBody, 200, {
    'x-ratelimit-limit': '1, 15000',
    'x-ratelimit-policy': '1;w=1, 15000;w=2592000',
    'x-ratelimit-remaining': '0, 14000',
    'x-ratelimit-reset': '1, 86400',
  });
  await withStandIn(reply, async (server) => {
    const before = Date.now();
    const response = await brave.search!(
      { query: 'node sqlite', count: 5, freshness: 'week', region: 'de', language: 'DE' },
      standInContext(server, settings),
    );
    assert.deepEqual(response.results, [
      {
        title: 'SQLite | Node.js v24 Documentation',
        url: 'https://nodejs.org/api/sqlite.html',
        snippet: 'The node:sqlite module facilitates working with SQLite & friends.',
        publishedAt: '2025-04-02T10:00:00',
      },
      { title: 'Using SQLite in Node', url: 'https://example.org/sqlite', snippet: 'A guide.' },
    ]);
    assert.equal(response.warnings, undefined);
    assert.equal(response.quota?.remaining, 14_000);
    assert.equal(response.quota?.limit, 15_000);
    const resetsAt = Date.parse(response.quota?.resetsAt ?? '');
    assert.ok(resetsAt >= before + 86_400_000 && resetsAt <= Date.now() + 86_400_000);

    const [call] = server.calls;
    assert.equal(server.calls.length, 1);
    assert.equal(call?.method, 'GET');
    assert.equal(call?.url.pathname, '/res/v1/web/search');
    assert.equal(call?.headers['x-subscription-token'], 'BSA-test-key-1234');
    assert.equal(call?.headers.accept, 'application/json');
    assert.equal(call?.headers.authorization, undefined);
    assert.deepEqual(Object.fromEntries(call?.url.searchParams ?? []), {
      q: 'node sqlite',
      count: '5',
      freshness: 'pw',
      country: 'DE',
      search_lang: 'de',
    });
  });
});

test('brave web search: an empty answer (no web section) is an empty result list', async () => {
  const reply = jsonReply({ type: 'search', query: { original: 'zxqv' }, mixed: { main: [] } });
  await withStandIn(reply, async (server) => {
    const response = await brave.search!({ query: 'zxqv', count: 5 }, standInContext(server, settings));
    assert.deepEqual(response.results, []);
    assert.equal(server.calls[0]?.url.searchParams.get('freshness'), null);
  });
});

test('brave image search: properties.url is the image, url the page; filters it cannot apply are warnings', async () => {
  const reply = jsonReply({
    type: 'images',
    query: { original: 'mountain lake', altered: null, spellcheck_off: false },
    results: [
      {
        type: 'image_result',
        title: 'Mountain lake at dawn',
        url: 'https://example.com/lake',
        source: 'example.com',
        thumbnail: { src: 'https://imgs.search.brave.com/thumb1', width: 200, height: 150 },
        properties: { url: 'https://example.com/lake.jpg', placeholder: 'x', width: 1920, height: 1080 },
        confidence: 'high',
      },
      { type: 'image_result', title: 'No properties', url: 'https://example.com/none' },
    ],
    extra: { might_be_offensive: false },
  });
  await withStandIn(reply, async (server) => {
    const response = await brave.searchImages!(
      { query: 'mountain lake', count: 4, size: 'large' },
      standInContext(server, settings),
    );
    assert.deepEqual(response.results, [
      {
        title: 'Mountain lake at dawn',
        imageUrl: 'https://example.com/lake.jpg',
        thumbnailUrl: 'https://imgs.search.brave.com/thumb1',
        sourceUrl: 'https://example.com/lake',
        width: 1920,
        height: 1080,
      },
    ]);
    assert.deepEqual(response.warnings, ['brave does not support size (large ignored)']);
    assert.equal(server.calls.length, 1);
    const [call] = server.calls;
    assert.equal(call?.method, 'GET');
    assert.equal(call?.url.pathname, '/res/v1/images/search');
    assert.equal(call?.headers['x-subscription-token'], 'BSA-test-key-1234');
    assert.equal(call?.headers.accept, 'application/json');
    assert.equal(call?.headers.authorization, undefined);
    assert.deepEqual(Object.fromEntries(call?.url.searchParams ?? []), { q: 'mountain lake', count: '4' });
  });
});

test('brave 429 without Retry-After: the exhausted window of X-RateLimit-Reset gives the wait', async () => {
  const reply = jsonReply(
    {
      type: 'ErrorResponse',
      error: {
        status: 429,
        code: 'RATE_LIMITED',
        detail: 'Request rate limit exceeded for plan',
        meta: { plan: 'Free', rate_limit: 1, rate_current: 1, quota_limit: 2000, quota_current: 15 },
      },
    },
    429,
    { 'x-ratelimit-remaining': '0, 1985', 'x-ratelimit-reset': '1, 1419704' },
  );
  await withStandIn(reply, async (server) => {
    await expectProviderError(brave.search!({ query: 'q', count: 3 }, standInContext(server, settings)), {
      code: 'RATE_LIMITED',
      reason: 'rate-limited',
      retryAfterMs: 1_000,
      message: ['Request rate limit exceeded for plan'],
    });
  });
});

test('brave 400 OPTION_NOT_IN_PLAN is an HTTP_STATUS error naming the option problem, not a key problem', async () => {
  const reply = jsonReply(
    {
      type: 'ErrorResponse',
      error: {
        status: 400,
        code: 'OPTION_NOT_IN_PLAN',
        detail: 'The option is not subscribed in the plan.',
        meta: { component: 'authentication' },
      },
    },
    400,
  );
  await withStandIn(reply, async (server) => {
    const error = await expectProviderError(
      brave.search!({ query: 'q', count: 3 }, standInContext(server, settings)),
      { code: 'HTTP_STATUS', retryable: false, status: 400, message: ['OPTION_NOT_IN_PLAN'] },
    );
    assert.equal(error.details.reason, undefined);
  });
});

test('brave 429 behind an HTML challenge page keeps the page out of the message', async () => {
  const reply = {
    status: 429,
    headers: { 'content-type': 'text/html', 'retry-after': '3' },
    body: '<html><title>Just a moment...</title><script>challenge()</script></html>',
  };
  await withStandIn(reply, async (server) => {
    const error = await expectProviderError(
      brave.search!({ query: 'q', count: 3 }, standInContext(server, settings)),
      { code: 'RATE_LIMITED', retryAfterMs: 3_000 },
    );
    assert.ok(!error.message.includes('<'), error.message);
  });
});

/** A chain of brave and wikipedia on stand-ins; brave paced at `braveIntervalMs`. */
function braveChain(braveUrl: string, wikipediaUrl: string, braveIntervalMs = 0) {
  return createSearchChain({
    search: searchSchema.parse({ chain: ['brave', 'wikipedia'], timeoutMs: 3000 }),
    providers: providersSchema.parse({
      brave: { apiKey: settings.apiKey, baseUrl: braveUrl, minIntervalMs: braveIntervalMs },
      wikipedia: { baseUrl: wikipediaUrl, minIntervalMs: 0 },
    }),
    env: {},
    httpFetch: createHttpClient({ beforeConnect: createLoopbackConnectGuard().beforeConnect }),
  });
}

const wikipediaBody = { query: { search: [{ title: 'Long', snippet: 'a long query', pageid: 1 }] } };

test('brave: a query over 400 characters or 50 words is INVALID_INPUT (not retryable), and no request is sent', async () => {
  assert.deepEqual(brave.queryLimits, { web: { maxCharacters: 400, maxWords: 50 } });
  await withStandIn(jsonReply(webBody), async (server) => {
    const chain = braveChain(server.url, server.url);
    const asBrave = (query: string) => chain.search({ query, count: 3 }, { provider: 'brave' });
    const atLimit = 'é'.repeat(400);
    await asBrave(atLimit);
    assert.equal(server.calls[0]?.url.searchParams.get('q'), atLimit, '400 characters (not bytes) pass');
    const fiftyWords = Array.from({ length: 50 }, (_, index) => `w${index}`).join(' ');
    await asBrave(fiftyWords);
    assert.equal(server.calls.length, 2);
    const overLong: Array<[query: string, said: string]> = [
      ['é'.repeat(401), '401 characters and 1 word,'],
      [`${fiftyWords} w50`, `${fiftyWords.length + 4} characters and 51 words`],
    ];
    for (const [query, said] of overLong) {
      const error = await expectProviderError(asBrave(query), {
        code: 'INVALID_INPUT',
        retryable: false,
        reason: 'query-too-long',
        message: ['brave', said, 'limit of 400 characters and 50 words', 'shorten the query'],
      });
      assert.equal(error.details.maxCharacters, 400);
    }
    assert.equal(server.calls.length, 2, 'nothing sent for the over-long queries');
    // Brave documents no limit for image queries.
    await chain.searchImages({ query: 'é'.repeat(401), count: 3 }, { provider: 'brave' });
    assert.equal(server.calls.length, 3);
  });
});

test('brave: an over-long query is refused before brave’s turn: the next search is not held back by pacing', async () => {
  const braveServer = await startProviderStandIn(() => jsonReply(webBody));
  const wikipediaServer = await startProviderStandIn(() => jsonReply(wikipediaBody));
  try {
    const chain = braveChain(braveServer.url, wikipediaServer.url, 1_000);
    const long = await chain.search({ query: 'x'.repeat(450), count: 3 });
    assert.equal(long.provider, 'wikipedia');
    // Had the skipped query taken brave's turn, this one would wait for the next (1 s later).
    const next = await chain.search({ query: 'tide', count: 3 });
    assert.equal(next.provider, 'brave');
    assert.ok((next.attempts[0]?.queuedMs ?? 0) < 500, `queued ${next.attempts[0]?.queuedMs} ms`);
    assert.equal(braveServer.calls.length, 1);
  } finally {
    await braveServer.close();
    await wikipediaServer.close();
  }
});

test('brave: an over-long query skips brave (no request, no mark on its health) and the next provider answers', async () => {
  const braveServer = await startProviderStandIn(() => jsonReply(webBody));
  const wikipediaServer = await startProviderStandIn(() => jsonReply(wikipediaBody));
  try {
    const chain = braveChain(braveServer.url, wikipediaServer.url);
    const answer = await chain.search({ query: 'x'.repeat(401), count: 3 });
    assert.equal(answer.provider, 'wikipedia');
    assert.deepEqual(
      answer.attempts.map((attempt) => [attempt.provider, attempt.outcome, attempt.code]),
      [
        ['brave', 'skipped', 'INVALID_INPUT'],
        ['wikipedia', 'ok', undefined],
      ],
    );
    assert.match(answer.attempts[0]?.message ?? '', /^the query has 401 characters .*; shorten the query$/);
    assert.equal(braveServer.calls.length, 0);
    assert.equal(wikipediaServer.calls.length, 1);
    const status = await chain.status();
    assert.equal(status.find((provider) => provider.id === 'brave')?.health.state, 'ok');
  } finally {
    await braveServer.close();
    await wikipediaServer.close();
  }
});

/** Brave's own error bodies (__fixtures__/brave.sources.md): the refused key and a refused parameter. */
const braveError = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8'));
const REFUSED_KEY = braveError('brave-error-422-subscription-token-invalid.json');
const VALIDATION = braveError('brave-error-422-validation.json');

async function rejection(promise: Promise<unknown>): Promise<PeriscopeError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isPeriscopeError(error), String(error));
    return error;
  }
  assert.fail('expected a rejection');
}

/** What the provider said about a failure: the fields the chain must pass on, on the error and on each attempt. */
function said(error: PeriscopeError) {
  return {
    code: error.code,
    retryable: error.retryable,
    status: error.details.status,
    reason: error.details.reason,
    providerCode: error.details.providerCode,
  };
}

function attemptSaid(attempt: ProviderAttempt | undefined) {
  return {
    code: attempt?.code,
    retryable: attempt?.retryable,
    status: attempt?.status,
    reason: attempt?.reason,
    providerCode: attempt?.providerCode,
  };
}

test('brave --provider through the chain: a refused key and a 422 VALIDATION keep retryable, reason, status and providerCode', async () => {
  const cases = [
    {
      body: REFUSED_KEY,
      expected: {
        code: 'HTTP_STATUS',
        retryable: false,
        status: 422,
        reason: 'invalid-key',
        providerCode: 'SUBSCRIPTION_TOKEN_INVALID',
      },
    },
    {
      body: VALIDATION,
      expected: {
        code: 'HTTP_STATUS',
        retryable: false,
        status: 422,
        reason: undefined,
        providerCode: 'VALIDATION',
      },
    },
  ];
  for (const { body, expected } of cases) {
    await withStandIn(jsonReply(body, 422), async (server) => {
      const direct = await rejection(
        brave.search!({ query: 'tide', count: 3 }, standInContext(server, settings)),
      );
      assert.deepEqual(said(direct), expected, 'what brave itself says');
      const chain = braveChain(server.url, server.url);
      const error = await rejection(chain.search({ query: 'tide', count: 3 }, { provider: 'brave' }));
      assert.deepEqual(said(error), expected, error.message);
      assert.equal(error.details.provider, 'brave');
      const attempts = error.details.attempts as ProviderAttempt[];
      assert.deepEqual(
        attempts.map((attempt) => [attempt.provider, attempt.outcome]),
        [['brave', 'failed']],
      );
      assert.deepEqual(attemptSaid(attempts[0]), expected);
    });
  }
});

test('brave in an ALL_FAILED chain: each attempt keeps what its provider said; retryable only while one attempt is', async () => {
  const braveServer = await startProviderStandIn(() => jsonReply(REFUSED_KEY, 422));
  const wikipediaServer = await startProviderStandIn(() => jsonReply({ error: 'down' }, 503));
  // Serper's recorded refusal (fixtures/providers/serper/error-403-unauthorized.json).
  const serperServer = await startProviderStandIn(() =>
    jsonReply({ message: 'Unauthorized.', statusCode: 403 }, 403),
  );
  try {
    const withTransient = await rejection(
      braveChain(braveServer.url, wikipediaServer.url).search({ query: 'tide', count: 3 }),
    );
    assert.equal(withTransient.code, 'ALL_FAILED');
    assert.equal(withTransient.retryable, true, 'wikipedia’s 503 may pass');
    const [braveAttempt, wikipediaAttempt] = withTransient.details.attempts as ProviderAttempt[];
    assert.deepEqual(attemptSaid(braveAttempt), {
      code: 'HTTP_STATUS',
      retryable: false,
      status: 422,
      reason: 'invalid-key',
      providerCode: 'SUBSCRIPTION_TOKEN_INVALID',
    });
    assert.deepEqual(attemptSaid(wikipediaAttempt), {
      code: 'HTTP_STATUS',
      retryable: true,
      status: 503,
      reason: undefined,
      providerCode: undefined,
    });

    braveServer.calls.length = 0;
    const refusedEverywhere = createSearchChain({
      search: searchSchema.parse({ chain: ['brave', 'serper'], timeoutMs: 3000 }),
      providers: providersSchema.parse({
        brave: { apiKey: settings.apiKey, baseUrl: braveServer.url, minIntervalMs: 0 },
        serper: { apiKey: 'serper-test-key', baseUrl: serperServer.url, minIntervalMs: 0 },
      }),
      env: {},
      httpFetch: createHttpClient({ beforeConnect: createLoopbackConnectGuard().beforeConnect }),
    });
    const refused = await rejection(refusedEverywhere.search({ query: 'tide', count: 3 }));
    assert.equal(refused.code, 'ALL_FAILED');
    assert.equal(refused.retryable, false, 'both keys refused: asking again changes nothing');
    assert.deepEqual(
      (refused.details.attempts as ProviderAttempt[]).map((attempt) => ({
        provider: attempt.provider,
        ...attemptSaid(attempt),
      })),
      [
        {
          provider: 'brave',
          code: 'HTTP_STATUS',
          retryable: false,
          status: 422,
          reason: 'invalid-key',
          providerCode: 'SUBSCRIPTION_TOKEN_INVALID',
        },
        {
          provider: 'serper',
          code: 'HTTP_STATUS',
          retryable: false,
          status: 403,
          reason: 'invalid-key',
          providerCode: undefined,
        },
      ],
    );
    assert.equal(braveServer.calls.length, 1);
    assert.equal(serperServer.calls.length, 1);
  } finally {
    await braveServer.close();
    await wikipediaServer.close();
    await serperServer.close();
  }
});

test("brave search_lang: region subtags dropped, Brave's own codes for Japanese and Chinese", () => {
  assert.equal(braveSearchLanguage('de-AT'), 'de');
  assert.equal(braveSearchLanguage('ja'), 'jp');
  assert.equal(braveSearchLanguage('zh-TW'), 'zh-hant');
  assert.equal(braveSearchLanguage('zh'), 'zh-hans');
  assert.equal(braveSearchLanguage('pt_BR'), 'pt-br');
  assert.equal(braveSearchLanguage('EN'), 'en');
});

const invalidKey = {
  reply: jsonReply(
    {
      type: 'ErrorResponse',
      error: {
        code: 'SUBSCRIPTION_TOKEN_INVALID',
        detail: 'The provided subscription token is invalid.',
        meta: { component: 'authentication' },
        status: 422,
      },
    },
    422,
  ),
  message: 'The provided subscription token is invalid.',
};

runProviderFailureSuite({
  provider: brave,
  settings,
  invalidKey,
  rateLimitedBody: {
    type: 'ErrorResponse',
    error: { status: 429, code: 'RATE_LIMITED', detail: 'Request rate limit exceeded for plan', meta: {} },
  },
  quota: {
    reply: jsonReply(
      {
        type: 'ErrorResponse',
        error: {
          status: 429,
          code: 'RATE_LIMITED',
          detail: 'Request rate limit exceeded for plan',
          meta: { plan: 'Free', rate_limit: 1, rate_current: 0, quota_limit: 2000, quota_current: 2000 },
        },
      },
      429,
    ),
    message: 'used up',
  },
});

runProviderFailureSuite({
  provider: brave,
  settings,
  label: 'images',
  call: (context) => brave.searchImages!({ query: 'lion', count: 3 }, context),
  invalidKey,
  empty: jsonReply({
    type: 'images',
    query: { original: 'zxqv', altered: null, spellcheck_off: false, show_strict_warning: false },
    results: [],
    extra: { might_be_offensive: false },
  }),
  rateLimitedBody: {
    type: 'ErrorResponse',
    error: { status: 429, code: 'RATE_LIMITED', detail: 'slow down' },
  },
});
