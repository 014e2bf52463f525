import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  expectProviderError,
  jsonReply,
  runProviderFailureSuite,
  standInContext,
  withStandIn,
} from '../../testing/provider-stand-in.ts';
import { serpapiSearchProvider as serpapi } from './serpapi.ts';

const KEY = 'serpapi-test-key-9';
const settings = { apiKey: KEY };
const metadata = {
  id: '68a3',
  status: 'Success',
  created_at: '2025-08-18 12:45:13 UTC',
  total_time_taken: 6.2,
};

test('serpapi search: GET /search.json with the key as api_key, organic_results mapped', async () => {
  const reply = jsonReply({
    search_metadata: metadata,
    search_parameters: { engine: 'google', q: 'unix bell labs', gl: 'us', hl: 'en' },
    search_information: { total_results: 535000, organic_results_state: 'Results for exact spelling' },
    organic_results: [
      {
        position: 1,
        title: 'Unix',
        link: 'https://en.wikipedia.org/wiki/Unix',
        displayed_link: 'https://en.wikipedia.org › wiki › Unix',
        snippet: 'Unix is a family of multitasking, multi-user computer operating systems.',
        source: 'Wikipedia',
      },
      {
        position: 2,
        title: 'The invention of Unix | Nokia.com',
        link: 'https://www.nokia.com/bell-labs/unix',
        snippet: 'In 1969, Ken Thompson &amp; Dennis Ritchie …',
        date: 'Jan 8, 2019',
      },
    ],
  });
  await withStandIn(reply, async (server) => {
    const response = await serpapi.search!(
      { query: 'unix bell labs', count: 5, region: 'US', language: 'EN', freshness: 'month' },
      standInContext(server, settings),
    );
    assert.deepEqual(response.results, [
      {
        title: 'Unix',
        url: 'https://en.wikipedia.org/wiki/Unix',
        snippet: 'Unix is a family of multitasking, multi-user computer operating systems.',
      },
      {
        title: 'The invention of Unix | Nokia.com',
        url: 'https://www.nokia.com/bell-labs/unix',
        snippet: 'In 1969, Ken Thompson & Dennis Ritchie …',
        publishedAt: 'Jan 8, 2019',
      },
    ]);
    const [call] = server.calls;
    assert.equal(call?.method, 'GET');
    assert.equal(call?.url.pathname, '/search.json');
    assert.equal(call?.headers.authorization, undefined);
    assert.deepEqual(Object.fromEntries(call?.url.searchParams ?? []), {
      engine: 'google',
      q: 'unix bell labs',
      num: '5',
      gl: 'us',
      hl: 'en',
      tbs: 'qdr:m',
      api_key: KEY,
    });
  });
});

test('serpapi search: "Google hasn\'t returned any results" with status Success is an empty list', async () => {
  const reply = jsonReply({
    search_metadata: metadata,
    search_information: { organic_results_state: 'Fully empty' },
    error: "Google hasn't returned any results for this query.",
  });
  await withStandIn(reply, async (server) => {
    const response = await serpapi.search!({ query: 'zxqv', count: 5 }, standInContext(server, settings));
    assert.deepEqual(response.results, []);
  });
});

test('serpapi: search_metadata.status Error is an error with its message, and the key is masked', async () => {
  const reply = jsonReply({
    search_metadata: { ...metadata, status: 'Error' },
    error: 'Google returned an unusual page.',
  });
  await withStandIn(reply, async (server) => {
    const error = await expectProviderError(
      serpapi.search!({ query: 'q', count: 5 }, standInContext(server, settings)),
      { code: 'HTTP_STATUS', message: ['Google returned an unusual page.'] },
    );
    assert.ok(!JSON.stringify({ message: error.message, details: error.details }).includes(KEY));
    assert.match(String(error.details.url), /api_key=\*\*\*/);
  });
});

test('serpapi images: engine=google_images, original is the image and link the page', async () => {
  const reply = jsonReply({
    search_metadata: metadata,
    images_results: [
      {
        position: 1,
        title: 'Lion - Wikipedia',
        link: 'https://en.wikipedia.org/wiki/Lion',
        original: 'https://upload.wikimedia.org/lion.jpg',
        original_width: 1200,
        original_height: 800,
        thumbnail: 'https://serpapi.com/thumb/lion.jpg',
        source: 'Wikipedia',
      },
    ],
  });
  await withStandIn(reply, async (server) => {
    const response = await serpapi.searchImages!(
      { query: 'lion', count: 5 },
      standInContext(server, settings),
    );
    assert.deepEqual(response.results, [
      {
        title: 'Lion - Wikipedia',
        imageUrl: 'https://upload.wikimedia.org/lion.jpg',
        thumbnailUrl: 'https://serpapi.com/thumb/lion.jpg',
        sourceUrl: 'https://en.wikipedia.org/wiki/Lion',
        width: 1200,
        height: 800,
      },
    ]);
    assert.equal(server.calls.length, 1);
    const [call] = server.calls;
    assert.equal(call?.method, 'GET');
    assert.equal(call?.url.pathname, '/search.json');
    assert.equal(call?.headers.authorization, undefined);
    assert.equal(call?.headers.accept, 'application/json');
    assert.deepEqual(Object.fromEntries(call?.url.searchParams ?? []), {
      engine: 'google_images',
      q: 'lion',
      api_key: KEY,
    });
  });
});

test('serpapi quota(): GET /account.json (free), searches left of the month', async () => {
  const reply = jsonReply({
    account_id: '5ac5',
    api_key: KEY,
    plan_name: 'Free Plan',
    searches_per_month: 100,
    plan_searches_left: 58,
    extra_credits: 0,
    total_searches_left: 58,
    this_month_usage: 42,
    account_rate_limit_per_hour: 100,
  });
  await withStandIn(reply, async (server) => {
    assert.deepEqual(await serpapi.quota!(standInContext(server, settings)), {
      remaining: 58,
      limit: 100,
      note: 'Free Plan, 42 searches this month',
    });
    const [call] = server.calls;
    assert.equal(call?.url.pathname, '/account.json');
    assert.equal(call?.url.searchParams.get('api_key'), KEY);
  });
});

test('serpapi: a 429 for the hourly limit is rate limited, not quota', async () => {
  const reply = jsonReply({ error: 'You have exceeded the hourly throughput limit.' }, 429);
  await withStandIn(reply, async (server) => {
    await expectProviderError(serpapi.search!({ query: 'q', count: 5 }, standInContext(server, settings)), {
      code: 'RATE_LIMITED',
      reason: 'rate-limited',
    });
  });
});

const invalidKey = {
  reply: jsonReply(
    { error: 'Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key' },
    401,
  ),
  message: 'Invalid API key.',
};

runProviderFailureSuite({
  provider: serpapi,
  settings,
  invalidKey,
  rateLimitedBody: { error: 'Too many requests.' },
  quota: {
    reply: jsonReply({ error: 'Your searches for the month have run out. You can upgrade your plan.' }, 429),
    message: 'have run out',
  },
});

runProviderFailureSuite({
  provider: serpapi,
  label: 'images',
  settings,
  call: (context) => serpapi.searchImages!({ query: 'lion', count: 3 }, context),
  invalidKey,
  // Nothing found: status Success, no images_results, and the message as a top-level error.
  empty: jsonReply({
    search_metadata: metadata,
    search_parameters: { engine: 'google_images', q: 'zxqv' },
    search_information: { image_results_state: 'Fully empty' },
    error: "Google hasn't returned any results for this query.",
  }),
  rateLimitedBody: { error: 'Too many requests.' },
});
