import assert from 'node:assert/strict';
import { test } from 'node:test';
import { providersSchema, searchSchema } from '../../config/search-schema.ts';
import { createHttpClient } from '../../net/http-client.ts';
import { createLoopbackConnectGuard } from '../../testing/connect-guard.ts';
import {
  expectProviderError,
  jsonReply,
  runProviderFailureSuite,
  standInContext,
  withStandIn,
} from '../../testing/provider-stand-in.ts';
import { createSearchChain } from '../chain.ts';
import { googleCseSearchProvider as googleCse } from './google-cse.ts';

const KEY = 'AIza-test-key-123';
const settings = { apiKey: KEY, cx: '0473ef98502d44e18' };

function googleError(code: number, status: string, reason: string, message: string) {
  return { error: { code, message, errors: [{ message, domain: 'global', reason }], status } };
}

test('google-cse search: GET /customsearch/v1 with key and cx, items mapped, published time from metatags', async () => {
  const reply = jsonReply({
    kind: 'customsearch#search',
    queries: { request: [{ searchTerms: 'semantic kernel', count: 2, startIndex: 1 }] },
    searchInformation: { searchTime: 0.29, totalResults: '16200000' },
    items: [
      {
        kind: 'customsearch#result',
        title: 'Introduction to Semantic Kernel | Microsoft Learn',
        htmlTitle: 'Introduction to <b>Semantic Kernel</b>',
        link: 'https://learn.microsoft.com/en-us/semantic-kernel/overview/',
        displayLink: 'learn.microsoft.com',
        snippet: 'Jun 24, 2024 ... Semantic Kernel is a lightweight, open-source development kit.',
        pagemap: { cse_thumbnail: [{ src: 'https://tbn/x', width: '310', height: '163' }] },
      },
      {
        kind: 'customsearch#result',
        title: 'Semantic Kernel: The New Way',
        link: 'https://example.medium.com/sk',
        snippet: 'A post.',
        pagemap: {
          metatags: [{ 'og:type': 'article' }, { 'article:published_time': '2023-12-19T13:45:33.495Z' }],
        },
      },
    ],
  });
  await withStandIn(reply, async (server) => {
    const response = await googleCse.search!(
      { query: 'semantic kernel', count: 12, freshness: 'day', region: 'US', language: 'DE' },
      standInContext(server, settings),
    );
    assert.deepEqual(response.results, [
      {
        title: 'Introduction to Semantic Kernel | Microsoft Learn',
        url: 'https://learn.microsoft.com/en-us/semantic-kernel/overview/',
        snippet: 'Jun 24, 2024 ... Semantic Kernel is a lightweight, open-source development kit.',
      },
      {
        title: 'Semantic Kernel: The New Way',
        url: 'https://example.medium.com/sk',
        snippet: 'A post.',
        publishedAt: '2023-12-19T13:45:33.495Z',
      },
    ]);
    assert.deepEqual(response.warnings, ['google-cse returns at most 10 results per request']);
    const [call] = server.calls;
    assert.equal(call?.method, 'GET');
    assert.equal(call?.url.pathname, '/customsearch/v1');
    assert.deepEqual(Object.fromEntries(call?.url.searchParams ?? []), {
      key: KEY,
      cx: '0473ef98502d44e18',
      q: 'semantic kernel',
      num: '10',
      dateRestrict: 'd1',
      gl: 'us',
      lr: 'lang_de',
    });
  });
});

test('google-cse search: no items key means no results', async () => {
  const reply = jsonReply({ kind: 'customsearch#search', searchInformation: { totalResults: '0' } });
  await withStandIn(reply, async (server) => {
    const response = await googleCse.search!({ query: 'zxqv', count: 5 }, standInContext(server, settings));
    assert.deepEqual(response.results, []);
    assert.equal(response.warnings, undefined);
  });
});

test('google-cse: a key without cx is not configured, and says which setting is missing', async () => {
  assert.equal(googleCse.isConfigured({ apiKey: KEY }), false);
  assert.equal(googleCse.isConfigured(settings), true);
  await expectProviderError(
    googleCse.search!({ query: 'q', count: 3 }, standInContext(undefined, { apiKey: KEY })),
    {
      code: 'NOT_CONFIGURED',
      message: ['GOOGLE_CSE_ID'],
    },
  );
});

test('google-cse: 400 keyInvalid is a refused key; 429 rateLimitExceeded is rate limited', async () => {
  const replies = [
    jsonReply(
      googleError(400, 'INVALID_ARGUMENT', 'keyInvalid', 'API key not valid. Please pass a valid API key.'),
      400,
    ),
    jsonReply(
      googleError(429, 'RESOURCE_EXHAUSTED', 'rateLimitExceeded', 'Quota exceeded for quota metric.'),
      429,
    ),
  ];
  const handler = () => replies.shift() ?? jsonReply({});
  await withStandIn(handler, async (server) => {
    const context = standInContext(server, settings);
    const error = await expectProviderError(googleCse.search!({ query: 'q', count: 3 }, context), {
      code: 'HTTP_STATUS',
      retryable: false,
      reason: 'invalid-key',
      message: ['API key not valid'],
    });
    assert.ok(!JSON.stringify({ message: error.message, details: error.details }).includes(KEY));
    await expectProviderError(googleCse.search!({ query: 'q', count: 3 }, context), {
      code: 'RATE_LIMITED',
      reason: 'rate-limited',
    });
  });
});

runProviderFailureSuite({
  provider: googleCse,
  settings,
  invalidKey: {
    reply: jsonReply(
      googleError(
        403,
        'PERMISSION_DENIED',
        'forbidden',
        'This project does not have the access to Custom Search JSON API.',
      ),
      403,
    ),
    message: 'does not have the access',
  },
  rateLimitedBody: googleError(
    429,
    'RESOURCE_EXHAUSTED',
    'rateLimitExceeded',
    'Queries per minute exceeded.',
  ),
  quota: {
    reply: jsonReply(
      googleError(403, 'PERMISSION_DENIED', 'dailyLimitExceeded', 'Daily Limit Exceeded'),
      403,
    ),
    message: 'Daily Limit Exceeded',
  },
  serverError: jsonReply(googleError(503, 'UNAVAILABLE', 'backendError', 'Backend Error'), 503),
});

test('google-cse: after/before is the documented date:r restriction (sort=date:r:YYYYMMDD:YYYYMMDD); undated results it found in the range are kept', async () => {
  const reply = jsonReply({
    items: [
      { title: 'Undated', link: 'https://undated.example/', snippet: 'No date in its metatags.' },
      {
        title: 'Dated',
        link: 'https://dated.example/',
        snippet: 'In range.',
        pagemap: { metatags: [{ 'article:published_time': '2025-03-10T08:00:00Z' }] },
      },
    ],
  });
  await withStandIn(reply, async (server) => {
    const chain = createSearchChain({
      search: searchSchema.parse({ chain: ['google-cse'], timeoutMs: 3000 }),
      providers: providersSchema.parse({
        'google-cse': {
          apiKey: 'cse-key',
          baseUrl: server.url,
          minIntervalMs: 0,
          extras: { cx: 'engine-id' },
        },
      }),
      env: {},
      httpFetch: createHttpClient({ beforeConnect: createLoopbackConnectGuard().beforeConnect }),
    });
    const answer = await chain.search({ query: 'q', count: 5, after: '2025-03-01', before: '2025-03-31' });
    assert.deepEqual(
      answer.results.map((result) => result.url),
      ['https://undated.example/', 'https://dated.example/'],
    );
    const params = server.calls[0]?.url.searchParams;
    assert.equal(params?.get('sort'), 'date:r:20250301:20250331');
    assert.equal(params?.get('dateRestrict'), null);
    assert.deepEqual(answer.warnings, []);
  });
});
