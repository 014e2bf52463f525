import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
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
import { wikipediaSearchProvider as wikipedia, wikipediaLanguage } from './wikipedia.ts';

/** MediaWiki `list=search`, formatversion 2 (snippets are HTML with searchmatch spans). */
const searchBody = {
  batchcomplete: true,
  continue: { sroffset: 2, continue: '-||' },
  query: {
    searchinfo: { totalhits: 5120 },
    search: [
      {
        ns: 0,
        title: 'Alan Turing',
        pageid: 1208,
        size: 150000,
        wordcount: 17000,
        snippet:
          '<span class="searchmatch">Alan</span> Mathison <span class="searchmatch">Turing</span> (23 June 1912 &ndash; 7 June 1954)',
        timestamp: '2025-05-01T12:00:00Z',
      },
      {
        ns: 0,
        title: 'Turing machine/History: early',
        pageid: 30403,
        snippet: 'A &quot;machine&quot; model',
        timestamp: '2025-04-01T12:00:00Z',
      },
    ],
  },
};

test('wikipedia search: the language picks the wiki, snippets lose their HTML, titles become article URLs', async () => {
  await withStandIn(jsonReply(searchBody), async (server) => {
    const context = standInContext(undefined, { baseUrl: `${server.url}/{language}` });
    const response = await wikipedia.search!({ query: 'alan turing', count: 2, language: 'de-AT' }, context);
    assert.deepEqual(response.results, [
      {
        title: 'Alan Turing',
        url: `${server.url}/de/wiki/Alan_Turing`,
        snippet: 'Alan Mathison Turing (23 June 1912 – 7 June 1954)',
      },
      {
        title: 'Turing machine/History: early',
        url: `${server.url}/de/wiki/Turing_machine/History:_early`,
        snippet: 'A "machine" model',
      },
    ]);
    assert.equal(response.warnings, undefined);
    const [call] = server.calls;
    assert.equal(call?.method, 'GET');
    assert.equal(call?.url.pathname, '/de/w/api.php');
    assert.equal(call?.headers.authorization, undefined);
    assert.match(String(call?.headers['user-agent']), /^Periscope\//);
    assert.deepEqual(Object.fromEntries(call?.url.searchParams ?? []), {
      action: 'query',
      list: 'search',
      srsearch: 'alan turing',
      srlimit: '2',
      srprop: 'snippet|timestamp',
      format: 'json',
      formatversion: '2',
      utf8: '1',
    });
  });
});

test('wikipedia search: no hits is an empty list; region and freshness are warnings, an unknown language falls back to en', async () => {
  const reply = jsonReply({ batchcomplete: true, query: { searchinfo: { totalhits: 0 }, search: [] } });
  await withStandIn(reply, async (server) => {
    const context = standInContext(undefined, { baseUrl: `${server.url}/{language}` });
    const response = await wikipedia.search!(
      { query: 'zxqvw', count: 5, region: 'us', freshness: 'day', language: 'not a language' },
      context,
    );
    assert.deepEqual(response.results, []);
    assert.deepEqual(response.warnings, [
      'wikipedia has no wiki for language not a language; used en',
      'wikipedia does not support region (us ignored)',
      'wikipedia does not support freshness (day ignored)',
    ]);
    assert.equal(server.calls[0]?.url.pathname, '/en/w/api.php');
  });
});

test('wikipedia: a MediaWiki error inside a 200 is an error, ratelimited/maxlag are RATE_LIMITED', async () => {
  const replies = [
    jsonReply({ error: { code: 'ratelimited', info: 'You have exceeded your rate limit.' } }, 200, {
      'retry-after': '5',
    }),
    jsonReply({
      error: { code: 'internal_api_error_DBQueryError', info: 'A database query error occurred.' },
    }),
  ];
  const handler = () => replies.shift() ?? jsonReply({});
  await withStandIn(handler, async (server) => {
    const context = standInContext(server, {});
    await expectProviderError(wikipedia.search!({ query: 'q', count: 3 }, context), {
      code: 'RATE_LIMITED',
      retryAfterMs: 5_000,
      message: ['You have exceeded your rate limit.'],
    });
    await expectProviderError(wikipedia.search!({ query: 'q', count: 3 }, context), {
      code: 'HTTP_STATUS',
      message: ['internal_api_error_DBQueryError', 'A database query error occurred.'],
    });
  });
});

test('wikipediaLanguage maps codes to wikis', () => {
  assert.equal(wikipediaLanguage('de'), 'de');
  assert.equal(wikipediaLanguage('EN-us'), 'en');
  assert.equal(wikipediaLanguage('pt_BR'), 'pt');
  assert.equal(wikipediaLanguage('zh-yue'), 'zh-yue');
  assert.equal(wikipediaLanguage('simple'), 'simple');
  assert.equal(wikipediaLanguage('../evil'), undefined);
  assert.equal(wikipediaLanguage('en.evil.example'), undefined);
});

test('wikipedia is keyless: always configured', () => {
  assert.equal(wikipedia.isConfigured({}), true);
  assert.deepEqual(wikipedia.keyEnv, []);
});

test('wikipedia requests go out in series by default (API etiquette): 5 parallel searches, one in flight at the stand-in', async () => {
  assert.equal(wikipedia.maxConcurrent, 1);
  let inFlight = 0;
  let most = 0;
  const handler = async () => {
    inFlight++;
    most = Math.max(most, inFlight);
    await sleep(40);
    inFlight--;
    return jsonReply(searchBody);
  };
  await withStandIn(handler, async (server) => {
    // Spacing off, concurrency left at the provider's default.
    const chain = createSearchChain({
      search: searchSchema.parse({ chain: ['wikipedia'], timeoutMs: 5000 }),
      providers: providersSchema.parse({ wikipedia: { baseUrl: server.url, minIntervalMs: 0 } }),
      env: {},
      httpFetch: createHttpClient({ beforeConnect: createLoopbackConnectGuard().beforeConnect }),
    });
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, index) => chain.search({ query: `turing ${index}`, count: 2 })),
    );
    assert.deepEqual(
      answers.map((answer) => answer.results.length),
      [2, 2, 2, 2, 2],
    );
    assert.equal(server.calls.length, 5);
    assert.equal(most, 1);
  });
});

runProviderFailureSuite({
  provider: wikipedia,
  settings: {},
  rateLimitedBody: { error: { code: 'too-many-requests', info: 'Too many requests' } },
  serverError: jsonReply('<html>upstream connect error</html>', 503),
});
