import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { providersSchema, searchSchema } from '../../config/search-schema.ts';
import { createHttpClient } from '../../net/http-client.ts';
import { createLoopbackConnectGuard } from '../../testing/connect-guard.ts';
import {
  expectProviderError,
  jsonReply,
  runProviderFailureSuite,
  type StandInReply,
  standInContext,
  withStandIn,
} from '../../testing/provider-stand-in.ts';
import { createSearchChain } from '../chain.ts';
import { KEYLESS_TAIL } from '../chain-order.ts';
import { MARGINALIA_PUBLIC_KEY, marginaliaSearchProvider as marginalia } from './marginalia.ts';

/** The recorded answer (__fixtures__/marginalia.sources.md), as the API sent it. */
const RECORDED = readFileSync(
  new URL('./__fixtures__/marginalia-search-python-programming-language.json', import.meta.url),
  'utf8',
);
const recorded = JSON.parse(RECORDED) as {
  query: string;
  results: Array<{ url: string; title: string; description: string }>;
};
/** The recorded body served as it was recorded (its bytes, its JSON content type). */
const recordedReply: StandInReply = {
  status: 200,
  headers: {
    'content-type': 'application/json',
    'api-remaining-daily-capacity': '2147483647',
    'api-event-type': 'UnderLimit',
  },
  body: RECORDED,
};
/** Marginalia's plain-text answers (ApiV2.java): bodies sent as they are. */
const text = (status: number, body: string, headers: Record<string, string> = {}): StandInReply => ({
  status,
  headers: { 'content-type': 'text/plain', ...headers },
  body,
});

function chainOn(url: string, minIntervalMs = 0) {
  return createSearchChain({
    search: searchSchema.parse({ chain: ['marginalia'], timeoutMs: 3000 }),
    providers: providersSchema.parse({ marginalia: { baseUrl: url, minIntervalMs } }),
    env: {},
    httpFetch: createHttpClient({ beforeConnect: createLoopbackConnectGuard().beforeConnect }),
  });
}

test('marginalia search: GET /search with the shared key in API-Key and only the fields its API page lists (no lang): a language is a warning; results from url, title, description', async () => {
  await withStandIn(recordedReply, async (server) => {
    const response = await marginalia.search!(
      { query: 'python programming language', count: 3, language: 'de-AT' },
      standInContext(server, {}),
    );
    const [call] = server.calls;
    assert.equal(call?.method, 'GET');
    assert.equal(call?.url.pathname, '/search');
    assert.deepEqual(Object.fromEntries(call?.url.searchParams ?? []), {
      query: 'python programming language',
      count: '3',
    });
    assert.equal(call?.headers['api-key'], MARGINALIA_PUBLIC_KEY);
    assert.equal(call?.headers.authorization, undefined);
    assert.match(String(call?.headers['user-agent']), /^Periscope\//);
    // The provider maps fields; the chain folds the titles' line breaks (the replay test below).
    assert.deepEqual(
      response.results.map((result) => result.url),
      recorded.results.slice(0, 3).map((result) => result.url),
    );
    assert.equal(response.results[0]?.title, recorded.results[0]?.title);
    assert.equal(response.results[0]?.snippet, recorded.results[0]?.description);
    assert.deepEqual(response.warnings, ['marginalia does not support language (de-AT ignored)']);
    assert.equal(response.quota, undefined, 'no daily limit (Integer.MAX_VALUE): no quota to show');
  });
});

test('marginalia: a key of its own from MARGINALIA_API_KEY or config; never in a message', async () => {
  const replies = [
    recordedReply,
    text(429, 'Daily Limit Exceeded', {
      'api-event-type': 'OverLimitBlock',
      'api-remaining-daily-capacity': '0',
    }),
  ];
  await withStandIn(
    () => replies.shift() ?? jsonReply({}),
    async (server) => {
      const context = standInContext(server, { apiKey: 'mk-own-key-123' });
      await marginalia.search!({ query: 'linear b', count: 2 }, context);
      assert.equal(server.calls[0]?.headers['api-key'], 'mk-own-key-123');
      const error = await expectProviderError(marginalia.search!({ query: 'linear b', count: 2 }, context), {
        code: 'RATE_LIMITED',
        reason: 'quota',
        status: 429,
        message: ['marginalia', 'Daily Limit Exceeded'],
      });
      assert.ok(!JSON.stringify({ m: error.message, d: error.details }).includes('mk-own-key-123'));
    },
  );
});

test('marginalia: the per-minute limit (429 QPM, plain text) and the old API’s empty 503 are RATE_LIMITED with a hint', async () => {
  const replies = [text(429, 'QPM Limit Exceeded'), { status: 503, body: '' }];
  await withStandIn(
    () => replies.shift() ?? jsonReply({}),
    async (server) => {
      const context = standInContext(server, {});
      await expectProviderError(marginalia.search!({ query: 'q', count: 3 }, context), {
        code: 'RATE_LIMITED',
        retryable: true,
        reason: 'rate-limited',
        message: ['marginalia said "QPM Limit Exceeded"', 'set MARGINALIA_API_KEY'],
      });
      await expectProviderError(marginalia.search!({ query: 'q', count: 3 }, context), {
        code: 'RATE_LIMITED',
        status: 503,
        reason: 'rate-limited',
      });
    },
  );
});

test('marginalia: an unknown key (401, empty body) is a refused key; a query that timed out (504) is retryable', async () => {
  const replies: StandInReply[] = [
    { status: 401, body: '' },
    { status: 504, body: '' },
  ];
  await withStandIn(
    () => replies.shift() ?? jsonReply({}),
    async (server) => {
      const context = standInContext(server, { apiKey: 'mk-wrong-key' });
      await expectProviderError(marginalia.search!({ query: 'q', count: 3 }, context), {
        code: 'HTTP_STATUS',
        retryable: false,
        reason: 'invalid-key',
        status: 401,
      });
      await expectProviderError(marginalia.search!({ query: 'q', count: 3 }, context), {
        code: 'HTTP_STATUS',
        retryable: true,
        status: 504,
      });
    },
  );
});

test('marginalia: region, freshness and language are warnings; the daily capacity left is the quota', async () => {
  const reply = jsonReply({ license: 'CC-BY-NC-SA 4.0', query: 'zxqvw', results: [] }, 200, {
    'api-remaining-daily-capacity': '4990',
    'api-event-type': 'NoResults',
  });
  await withStandIn(reply, async (server) => {
    const response = await marginalia.search!(
      { query: 'zxqvw', count: 5, region: 'us', freshness: 'week', language: 'x-klingon' },
      standInContext(server, {}),
    );
    assert.deepEqual(response.results, []);
    assert.deepEqual(response.warnings, [
      'marginalia does not support language (x-klingon ignored)',
      'marginalia does not support region (us ignored)',
      'marginalia does not support freshness (week ignored)',
    ]);
    assert.equal(server.calls[0]?.url.searchParams.get('lang'), null, 'the API default (en) applies');
    assert.deepEqual(response.quota, { remaining: 4990, note: 'queries left today' });
  });
});

test('marginalia replay: the recorded answer through the chain — titles folded, the www. twin dropped, in order', async () => {
  await withStandIn(recordedReply, async (server) => {
    const answer = await chainOn(server.url).search({ query: recorded.query, count: 10 });
    assert.equal(answer.provider, 'marginalia');
    const [first, second, third] = recorded.results;
    assert.deepEqual(answer.results[0], {
      title: first?.title,
      url: first?.url,
      snippet: first?.description,
    });
    // `Title\n\t\t\t\t\t\t\t| Journal` and `Title \n\t\t\t-\n\t\t\tRepository`, as the page's markup had them.
    assert.equal(answer.results[1]?.title, second?.title.replace(/\s+/g, ' '));
    assert.equal(
      answer.results[1]?.title,
      'Using MOOC to Learn the Python Programming Language | International Journal of Emerging Technologies in Learning (iJET)',
    );
    assert.equal(
      answer.results[2]?.title,
      'Implementation of a Motor Imagery Based BCI System Using Python Programming Language - Research Repository',
    );
    assert.equal(answer.results[2]?.url, third?.url);
    // http://dabeaz.com/… and http://www.dabeaz.com/… are one page: the first is kept.
    assert.deepEqual(
      answer.results.map((result) => result.url),
      [
        'https://en.wikipedia.org/wiki/Python_%28programming_language%29',
        'https://online-journals.org/index.php/i-jet/article/view/36431',
        'https://repository.essex.ac.uk/14605/',
        'http://dabeaz.com/usenix2009/pythonprog/index.html',
        'https://www.python.org/',
      ],
    );
    assert.equal(recorded.results.length, 6);
  });
});

test('marginalia is keyless (the shared key), in the auto tail between duckduckgo and wikipedia, one request at a time', async () => {
  assert.equal(marginalia.isConfigured({}), true);
  assert.deepEqual(marginalia.keyEnv, ['MARGINALIA_API_KEY']);
  assert.deepEqual(KEYLESS_TAIL, ['duckduckgo', 'marginalia', 'wikipedia']);
  assert.equal(marginalia.minIntervalMs, 10_000);
  assert.equal(marginalia.maxConcurrent, 1);
  let inFlight = 0;
  let most = 0;
  const handler = async () => {
    inFlight++;
    most = Math.max(most, inFlight);
    await sleep(30);
    inFlight--;
    return recordedReply;
  };
  await withStandIn(handler, async (server) => {
    const chain = chainOn(server.url);
    const answers = await Promise.all(
      Array.from({ length: 4 }, (_, index) => chain.search({ query: `python ${index}`, count: 2 })),
    );
    assert.deepEqual(
      answers.map((answer) => answer.results.length),
      [2, 2, 2, 2],
    );
    assert.equal(most, 1);
  });
});

test('marginalia pacing: with the default spacing, a second call waits its turn instead of sending at once', async () => {
  const arrivals: number[] = [];
  await withStandIn(
    () => {
      arrivals.push(performance.now());
      return recordedReply;
    },
    async (server) => {
      const chain = chainOn(server.url, 400);
      await Promise.all([chain.search({ query: 'a', count: 1 }), chain.search({ query: 'b', count: 1 })]);
      assert.equal(arrivals.length, 2);
      assert.ok(
        (arrivals[1] as number) - (arrivals[0] as number) >= 390,
        `${arrivals[1]! - arrivals[0]!} ms`,
      );
    },
  );
});

runProviderFailureSuite({
  provider: marginalia,
  settings: {},
  invalidKey: { reply: { status: 401, body: '' }, message: 'API key was refused' },
  rateLimitedBody: 'QPM Limit Exceeded',
  quota: {
    reply: text(429, 'Daily Limit Exceeded', { 'api-event-type': 'OverLimitBlock' }),
    message: 'Daily Limit Exceeded',
  },
  empty: jsonReply({ license: 'CC-BY-NC-SA 4.0', query: 'periscope', page: 1, pages: 0, results: [] }),
});
