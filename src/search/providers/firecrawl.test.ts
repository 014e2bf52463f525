import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  expectProviderError,
  jsonReply,
  runProviderFailureSuite,
  standInContext,
  withStandIn,
} from '../../testing/provider-stand-in.ts';
import { firecrawlSearchProvider as firecrawl } from './firecrawl.ts';

const settings = { apiKey: 'fc-test-key' };

test('firecrawl search: POST /v2/search, data.web mapped, creditsUsed noted', async () => {
  const reply = jsonReply({
    success: true,
    data: {
      web: [
        {
          url: 'https://www.firecrawl.dev/',
          title: 'Firecrawl - The Web Data API for AI',
          description: 'The web crawling, scraping, and search API for AI.',
          position: 1,
        },
        {
          url: 'https://github.com/firecrawl/firecrawl',
          title: 'firecrawl/firecrawl on GitHub',
          description: 'Turn entire websites into LLM-ready markdown.',
          position: 2,
          category: 'github',
          metadata: { 'article:published_time': '2025-10-01T00:00:00Z' },
        },
      ],
    },
    creditsUsed: 2,
  });
  await withStandIn(reply, async (server) => {
    const response = await firecrawl.search!(
      { query: 'firecrawl', count: 5, freshness: 'day', region: 'de' },
      standInContext(server, settings),
    );
    assert.deepEqual(response.results, [
      {
        title: 'Firecrawl - The Web Data API for AI',
        url: 'https://www.firecrawl.dev/',
        snippet: 'The web crawling, scraping, and search API for AI.',
      },
      {
        title: 'firecrawl/firecrawl on GitHub',
        url: 'https://github.com/firecrawl/firecrawl',
        snippet: 'Turn entire websites into LLM-ready markdown.',
        publishedAt: '2025-10-01T00:00:00Z',
      },
    ]);
    assert.equal(response.warnings, undefined);
    assert.deepEqual(response.quota, { note: '2 credits used' });
    const [call] = server.calls;
    assert.equal(call?.method, 'POST');
    assert.equal(call?.url.pathname, '/v2/search');
    assert.equal(call?.headers.authorization, 'Bearer fc-test-key');
    assert.deepEqual(JSON.parse(call?.body ?? ''), {
      query: 'firecrawl',
      limit: 5,
      sources: ['web'],
      tbs: 'qdr:d',
      country: 'DE',
      location: 'Germany',
    });
  });
});

test('firecrawl search: a date range is tbs with zero-padded MM/DD/YYYY days, as its search reference writes them', async () => {
  await withStandIn(jsonReply({ success: true, data: { web: [] } }), async (server) => {
    await firecrawl.search!(
      { query: 'q', count: 5, after: '2025-03-01', before: '2025-04-09' },
      standInContext(server, settings),
    );
    assert.equal(JSON.parse(server.calls[0]?.body ?? '').tbs, 'cdr:1,cd_min:03/01/2025,cd_max:04/09/2025');
  });
});

test('firecrawl search: an empty data.web is an empty list; the v1 flat data array is read too', async () => {
  const bodies = [
    { success: true, data: { web: [] }, creditsUsed: 1 },
    { success: true, data: [{ url: 'https://a.example/', title: 'A', description: 'v1 shape' }] },
  ];
  const handler = () => jsonReply(bodies.shift());
  await withStandIn(handler, async (server) => {
    const context = standInContext(server, settings);
    assert.deepEqual((await firecrawl.search!({ query: 'zxqv', count: 5 }, context)).results, []);
    assert.deepEqual((await firecrawl.search!({ query: 'a', count: 5 }, context)).results, [
      { title: 'A', url: 'https://a.example/', snippet: 'v1 shape' },
    ]);
  });
});

test('firecrawl: success:false inside a 200 is an error with its message', async () => {
  await withStandIn(jsonReply({ success: false, error: 'Search failed upstream' }), async (server) => {
    await expectProviderError(firecrawl.search!({ query: 'q', count: 3 }, standInContext(server, settings)), {
      code: 'HTTP_STATUS',
      message: ['Search failed upstream'],
    });
  });
});

runProviderFailureSuite({
  provider: firecrawl,
  settings,
  invalidKey: {
    reply: jsonReply({ success: false, error: 'Unauthorized: Invalid token' }, 401),
    message: 'Invalid token',
  },
  rateLimitedBody: {
    success: false,
    error: 'Rate limit exceeded. Consumed (req/min): 6, Remaining (req/min): 0.',
  },
  quota: {
    reply: jsonReply({ success: false, error: 'Insufficient credits to perform this request.' }, 402),
    message: 'Insufficient credits',
  },
  serverError: jsonReply({ success: false, error: 'UNKNOWN_ERROR: something broke' }, 500),
});
