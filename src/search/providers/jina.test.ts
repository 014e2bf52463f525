import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  jsonReply,
  runProviderFailureSuite,
  standInContext,
  withStandIn,
} from '../../testing/provider-stand-in.ts';
import { jinaSearchProvider as jina } from './jina.ts';

const settings = { apiKey: 'jina_test_key_0001' };

test('jina search: POST / with no-content, descriptions as snippets, token usage noted', async () => {
  const reply = jsonReply({
    code: 200,
    status: 20000,
    data: [
      {
        title: 'Jina AI - Your Search Foundation',
        description: 'Our frontier models form the <strong>search foundation</strong>.',
        url: 'https://jina.ai/',
        date: '2024-10-01T00:00:00Z',
        usage: { tokens: 1000 },
      },
      {
        title: 'Attention Required! | Cloudflare',
        description: '',
        url: 'https://www.crunchbase.com/organization/jina-ai',
        content: 'Why have I been blocked?',
        warning: 'Target URL returned error 403: Forbidden',
        usage: { tokens: 105 },
      },
    ],
  });
  await withStandIn(reply, async (server) => {
    const response = await jina.search!(
      { query: 'jina ai', count: 4, region: 'DE', language: 'de', freshness: 'day' },
      standInContext(server, settings),
    );
    assert.deepEqual(response.results, [
      {
        title: 'Jina AI - Your Search Foundation',
        url: 'https://jina.ai/',
        snippet: 'Our frontier models form the search foundation.',
        publishedAt: '2024-10-01T00:00:00Z',
      },
      {
        title: 'Attention Required! | Cloudflare',
        url: 'https://www.crunchbase.com/organization/jina-ai',
        snippet: 'Why have I been blocked?',
      },
    ]);
    assert.deepEqual(response.warnings, ['jina does not support freshness (day ignored)']);
    assert.deepEqual(response.quota, { note: '1105 tokens used by this search' });
    const [call] = server.calls;
    assert.equal(call?.method, 'POST');
    assert.equal(call?.url.pathname, '/');
    assert.equal(call?.headers.authorization, 'Bearer jina_test_key_0001');
    assert.equal(call?.headers.accept, 'application/json');
    assert.equal(call?.headers['x-respond-with'], 'no-content');
    assert.deepEqual(JSON.parse(call?.body ?? ''), { q: 'jina ai', num: 4, gl: 'de', hl: 'de' });
  });
});

test('jina search: an empty data list (or data: null) is an empty result list', async () => {
  const bodies = [
    { code: 200, status: 20000, data: [] },
    { code: 200, status: 20000, data: null },
  ];
  const handler = () => jsonReply(bodies.shift());
  await withStandIn(handler, async (server) => {
    const context = standInContext(server, settings);
    assert.deepEqual((await jina.search!({ query: 'zxqv', count: 5 }, context)).results, []);
    assert.deepEqual((await jina.search!({ query: 'zxqv', count: 5 }, context)).results, []);
  });
});

/** civkit ApplicationError bodies (jina-ai/reader src/services/errors.ts). */
function civkitError(code: number, status: number, name: string, message: string) {
  return { data: null, code, name, status, message, readableMessage: `${name}: ${message}` };
}

runProviderFailureSuite({
  provider: jina,
  settings,
  invalidKey: {
    reply: jsonReply(
      civkitError(401, 40103, 'AuthenticationFailedError', 'Invalid API key, please get a new API key'),
      401,
    ),
    message: 'Invalid API key',
  },
  rateLimitedBody: civkitError(
    429,
    42903,
    'RateLimitTriggeredError',
    'Rate limit exceeded (40 times in last 60 seconds)',
  ),
  quota: {
    reply: jsonReply(civkitError(402, 40203, 'InsufficientBalanceError', 'Insufficient balance'), 402),
    message: 'Insufficient balance',
  },
});
