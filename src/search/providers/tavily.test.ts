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
import { tavilySearchProvider as tavily } from './tavily.ts';

const settings = { apiKey: 'tvly-dev-test-key' };

test('tavily search: results with content as the snippet, and the POST we sent', async () => {
  const reply = jsonReply({
    query: 'euro 2024 host',
    follow_up_questions: null,
    answer: null,
    images: [],
    results: [
      {
        title: 'UEFA Euro 2024 - Wikipedia',
        url: 'https://en.wikipedia.org/wiki/UEFA_Euro_2024',
        content: 'Tournament details Host country Germany Dates 14 June – 14 July',
        score: 0.91,
        raw_content: null,
        published_date: 'Sun, 14 Jul 2024 21:00:00 GMT',
      },
      { title: 'Untitled', content: 'no url', score: 0.2 },
    ],
    response_time: 1.67,
    request_id: 'abc',
  });
  await withStandIn(reply, async (server) => {
    const response = await tavily.search!(
      { query: 'euro 2024 host', count: 3, freshness: 'month', region: 'de', language: 'de' },
      standInContext(server, settings),
    );
    assert.deepEqual(response.results, [
      {
        title: 'UEFA Euro 2024 - Wikipedia',
        url: 'https://en.wikipedia.org/wiki/UEFA_Euro_2024',
        snippet: 'Tournament details Host country Germany Dates 14 June – 14 July',
        publishedAt: 'Sun, 14 Jul 2024 21:00:00 GMT',
      },
    ]);
    assert.deepEqual(response.warnings, ['tavily does not support language (de ignored)']);
    const [call] = server.calls;
    assert.equal(call?.method, 'POST');
    assert.equal(call?.url.pathname, '/search');
    assert.equal(call?.headers.authorization, 'Bearer tvly-dev-test-key');
    assert.equal(call?.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(call?.body ?? ''), {
      query: 'euro 2024 host',
      max_results: 3,
      search_depth: 'basic',
      topic: 'general',
      time_range: 'month',
      country: 'germany',
    });
  });
});

test('tavily search: region is country for the general topic only (a news search says it was ignored)', async () => {
  await withStandIn(jsonReply({ results: [] }), async (server) => {
    const general = await tavily.search!(
      { query: 'q', count: 3, region: 'us' },
      standInContext(server, settings),
    );
    assert.equal(JSON.parse(server.calls[0]?.body ?? '').country, 'united states');
    assert.equal(general.warnings, undefined);
    const news = await tavily.search!(
      { query: 'q', count: 3, region: 'us', topic: 'news' },
      standInContext(server, settings),
    );
    assert.equal(JSON.parse(server.calls[1]?.body ?? '').country, undefined);
    assert.deepEqual(news.warnings, [
      'tavily takes a region for general searches only (us ignored for news)',
    ]);
  });
});

test('tavily search: no results is an empty list', async () => {
  const reply = jsonReply({ query: 'zxqv', answer: null, images: [], results: [], response_time: 0.4 });
  await withStandIn(reply, async (server) => {
    const response = await tavily.search!({ query: 'zxqv', count: 5 }, standInContext(server, settings));
    assert.deepEqual(response.results, []);
    assert.equal(response.warnings, undefined);
  });
});

test('tavily images: include_images, with descriptions as titles; plain string images too', async () => {
  const reply = jsonReply({
    query: 'semantic kernel',
    images: [
      { url: 'https://learn.microsoft.com/kernel.png', description: 'The kernel at the centre' },
      'https://example.org/plain.jpg',
      { description: 'no url' },
    ],
    results: [],
    response_time: 1,
  });
  await withStandIn(reply, async (server) => {
    const response = await tavily.searchImages!(
      { query: 'semantic kernel', count: 5, layout: 'wide' },
      standInContext(server, settings),
    );
    assert.deepEqual(response.results, [
      { title: 'The kernel at the centre', imageUrl: 'https://learn.microsoft.com/kernel.png' },
      { title: '', imageUrl: 'https://example.org/plain.jpg' },
    ]);
    assert.deepEqual(response.warnings, ['tavily does not support layout (wide ignored)']);
    assert.equal(server.calls.length, 1);
    const [call] = server.calls;
    assert.equal(call?.method, 'POST');
    assert.equal(call?.url.pathname, '/search');
    assert.equal(call?.headers.authorization, 'Bearer tvly-dev-test-key');
    assert.equal(call?.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(call?.body ?? ''), {
      query: 'semantic kernel',
      max_results: 5,
      search_depth: 'basic',
      include_images: true,
      include_image_descriptions: true,
    });
  });
});

test('tavily quota(): GET /usage, the key limit first, else the plan; counters sent as strings are read', async () => {
  const bodies = [
    {
      key: { usage: 150, limit: 1000 },
      account: { current_plan: 'Bootstrap', plan_usage: 500, plan_limit: 15000 },
    },
    {
      key: { usage: '20', limit: null },
      account: { current_plan: 'Researcher', plan_usage: '20', plan_limit: '1000' },
    },
  ];
  const handler = () => jsonReply(bodies.shift());
  await withStandIn(handler, async (server) => {
    const context = standInContext(server, settings);
    assert.deepEqual(await tavily.quota!(context), {
      remaining: 850,
      limit: 1000,
      note: 'plan Bootstrap, 150 of 1000 credits used',
    });
    assert.deepEqual(await tavily.quota!(context), {
      remaining: 980,
      limit: 1000,
      note: 'plan Researcher, 20 of 1000 credits used',
    });
    const [call] = server.calls;
    assert.equal(call?.method, 'GET');
    assert.equal(call?.url.pathname, '/usage');
    assert.equal(call?.headers.authorization, 'Bearer tvly-dev-test-key');
  });
});

test('tavily: a query over 400 characters is INVALID_INPUT for search and images, and no request is sent', async () => {
  assert.deepEqual(tavily.queryLimits, { web: { maxCharacters: 400 }, images: { maxCharacters: 400 } });
  await withStandIn(jsonReply({ query: 'q', images: [], results: [] }), async (server) => {
    const chain = createSearchChain({
      search: searchSchema.parse({ chain: ['tavily'], timeoutMs: 3000 }),
      providers: providersSchema.parse({ tavily: { ...settings, baseUrl: server.url, minIntervalMs: 0 } }),
      env: {},
      httpFetch: createHttpClient({ beforeConnect: createLoopbackConnectGuard().beforeConnect }),
    });
    await chain.search({ query: 'ü'.repeat(400), count: 3 });
    assert.equal(server.calls.length, 1, '400 characters (not bytes) pass');
    const query = 'ü'.repeat(401);
    for (const run of [
      () => chain.search({ query, count: 3 }, { provider: 'tavily' }),
      () => chain.searchImages({ query, count: 3 }, { provider: 'tavily' }),
    ]) {
      await expectProviderError(run(), {
        code: 'INVALID_INPUT',
        retryable: false,
        reason: 'query-too-long',
        message: ['tavily', '401 characters', 'limit of 400 characters', 'shorten the query'],
      });
    }
    // In the chain, without --provider: every provider refused the query, so asking again cannot help.
    await expectProviderError(chain.search({ query, count: 3 }), { code: 'ALL_FAILED', retryable: false });
    assert.equal(server.calls.length, 1);
  });
});

const rateLimitedBody = { detail: { error: 'Your request has been blocked due to excessive requests.' } };
const invalidKey = {
  reply: jsonReply({ detail: { error: 'Unauthorized: missing or invalid API key.' } }, 401),
  message: 'Unauthorized: missing or invalid API key.',
};

runProviderFailureSuite({
  provider: tavily,
  settings,
  invalidKey,
  rateLimitedBody,
  quota: {
    reply: jsonReply({ detail: { error: "This request exceeds your plan's set usage limit." } }, 432),
    message: "This request exceeds your plan's set usage limit.",
  },
});

test('tavily 433 (pay-as-you-go limit) is quota too', async () => {
  const reply = jsonReply({ detail: { error: 'This request exceeds the pay-as-you-go limit.' } }, 433);
  await withStandIn(reply, async (server) => {
    await expectProviderError(tavily.search!({ query: 'q', count: 3 }, standInContext(server, settings)), {
      code: 'RATE_LIMITED',
      reason: 'quota',
      status: 433,
      message: ['pay-as-you-go limit'],
    });
  });
});

runProviderFailureSuite({
  provider: tavily,
  label: 'images',
  settings,
  call: (context) => tavily.searchImages!({ query: 'q', count: 3 }, context),
  invalidKey,
  empty: jsonReply({
    query: 'zxqv',
    follow_up_questions: null,
    answer: null,
    images: [],
    results: [],
    response_time: 0.52,
  }),
  rateLimitedBody,
});

runProviderFailureSuite({
  provider: tavily,
  label: 'usage',
  settings,
  call: (context) => tavily.quota!(context),
  invalidKey: {
    reply: jsonReply({ detail: { error: 'Your API key is wrong or missing.' } }, 401),
    message: 'wrong or missing',
  },
  rateLimitedBody,
});
