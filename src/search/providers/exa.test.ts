import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  jsonReply,
  runProviderFailureSuite,
  standInContext,
  withStandIn,
} from '../../testing/provider-stand-in.ts';
import { exaSearchProvider as exa } from './exa.ts';

const settings = { apiKey: 'exa-test-key-42' };

test('exa search: highlights as snippets (then summary, then text), the cost noted, and the body we sent', async () => {
  const reply = jsonReply({
    requestId: 'b5947044c4b78efa9552a7c89b306d95',
    resolvedSearchType: '',
    searchType: 'auto',
    results: [
      {
        id: 'https://arxiv.org/abs/2307.06435',
        title: 'A Comprehensive Overview of Large Language Models',
        url: 'https://arxiv.org/pdf/2307.06435.pdf',
        publishedDate: '2023-11-16T01:36:32.547Z',
        author: 'Humza Naveed',
        highlights: ['Such requirements have limited their adoption.', 'LLMs are large.'],
        highlightScores: [0.46, 0.3],
      },
      {
        id: 'b',
        title: null,
        url: 'https://example.org/summary-only',
        summary: 'A summary of the page.',
      },
      { id: 'c', title: 'Text only', url: 'https://example.org/text', text: `${'word '.repeat(200)}` },
    ],
    costDollars: { total: 0.005, breakDown: [{ search: 0.005, contents: 0 }] },
  });
  await withStandIn(reply, async (server) => {
    const before = Date.now();
    const response = await exa.search!(
      { query: 'latest llm research', count: 3, freshness: 'week', region: 'us', language: 'en' },
      standInContext(server, settings),
    );
    assert.deepEqual(response.results.slice(0, 2), [
      {
        title: 'A Comprehensive Overview of Large Language Models',
        url: 'https://arxiv.org/pdf/2307.06435.pdf',
        snippet: 'Such requirements have limited their adoption. … LLMs are large.',
        publishedAt: '2023-11-16T01:36:32.547Z',
      },
      {
        title: 'https://example.org/summary-only',
        url: 'https://example.org/summary-only',
        snippet: 'A summary of the page.',
      },
    ]);
    assert.ok((response.results[2]?.snippet.length ?? 0) <= 400);
    assert.deepEqual(response.warnings, ['exa does not support language (en ignored)']);
    assert.deepEqual(response.quota, { note: 'this search cost $0.005' });
    const [call] = server.calls;
    assert.equal(call?.method, 'POST');
    assert.equal(call?.url.pathname, '/search');
    assert.equal(call?.headers['x-api-key'], 'exa-test-key-42');
    assert.equal(call?.headers.authorization, undefined);
    const sent = JSON.parse(call?.body ?? '');
    const since = Date.parse(sent.startPublishedDate);
    assert.ok(since >= before - 7 * 86_400_000 && since <= Date.now() - 7 * 86_400_000);
    delete sent.startPublishedDate;
    assert.deepEqual(sent, {
      query: 'latest llm research',
      numResults: 3,
      type: 'auto',
      contents: { highlights: true },
      userLocation: 'US',
    });
  });
});

test('exa search: no results is an empty list', async () => {
  const reply = jsonReply({ requestId: 'x', searchType: 'auto', results: [], costDollars: { total: 0.005 } });
  await withStandIn(reply, async (server) => {
    const response = await exa.search!({ query: 'zxqv', count: 5 }, standInContext(server, settings));
    assert.deepEqual(response.results, []);
    assert.equal(response.warnings, undefined);
  });
});

runProviderFailureSuite({
  provider: exa,
  settings,
  invalidKey: {
    reply: jsonReply({ requestId: 'r1', error: 'Invalid API key', tag: 'INVALID_API_KEY' }, 401),
    message: 'Invalid API key',
  },
  rateLimitedBody: { requestId: 'r2', error: 'rate limit exceeded', tag: 'RATE_LIMIT_EXCEEDED' },
  quota: {
    reply: jsonReply({ requestId: 'r3', error: 'You have run out of credits', tag: 'NO_MORE_CREDITS' }, 402),
    message: 'run out of credits',
  },
});
