// A provider written the way docs/adding-a-provider.md says, from the public entries only ('periscope' is
// ../index.ts, 'periscope/testing' is ../testing/provider-testing.ts), passes the same failure suite as the
// built-in providers, and the same request/response checks, against a stand-in on 127.0.0.1.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hasApiKey, providerUrl, requestProviderJson, requireApiKey, type SearchProvider } from '../index.ts';
import {
  jsonReply,
  runProviderFailureSuite,
  standInContext,
  withStandIn,
} from '../testing/provider-testing.ts';
import { toSearchProvider } from './custom-providers.ts';

const acmeSearchProvider: SearchProvider = {
  id: 'acme',
  keyEnv: ['ACME_API_KEY'],
  minIntervalMs: 1_000,
  isConfigured: hasApiKey,
  async search(request, context) {
    const apiKey = requireApiKey('acme', context.settings, ['ACME_API_KEY']);
    const reply = await requestProviderJson(context, {
      provider: 'acme',
      url: providerUrl('acme', context.settings.baseUrl ?? 'https://api.acme.example', '/v1/search', {
        q: request.query,
        limit: request.count,
      }),
      headers: { authorization: `Bearer ${apiKey}` },
      secrets: [apiKey],
    });
    const items =
      (reply.body as { items?: Array<{ name: string; link: string; summary?: string }> }).items ?? [];
    return {
      results: items.map((item) => ({ title: item.name, url: item.link, snippet: item.summary ?? '' })),
      warnings: request.freshness ? [`acme does not support freshness (${request.freshness} ignored)`] : [],
    };
  },
};

test('a custom provider: the normalised results and the request it sent', async () => {
  const reply = jsonReply({
    items: [{ name: 'Tide', link: 'https://tide.example/', summary: 'Rise and fall' }],
  });
  await withStandIn(reply, async (server) => {
    const provider = toSearchProvider(acmeSearchProvider, 'test');
    const answer = await provider.search?.(
      { query: 'tide tables', count: 3, freshness: 'week' },
      standInContext(server, { apiKey: 'acme-key' }),
    );
    assert.deepEqual(answer, {
      results: [{ title: 'Tide', url: 'https://tide.example/', snippet: 'Rise and fall' }],
      warnings: ['acme does not support freshness (week ignored)'],
    });
    const call = server.calls[0];
    assert.equal(call?.method, 'GET');
    assert.equal(call?.url.pathname, '/v1/search');
    assert.equal(call?.url.searchParams.get('q'), 'tide tables');
    assert.equal(call?.url.searchParams.get('limit'), '3');
    assert.equal(call?.headers.authorization, 'Bearer acme-key');
  });
});

runProviderFailureSuite({
  provider: acmeSearchProvider,
  settings: { apiKey: 'acme-key' },
  invalidKey: { reply: jsonReply({ error: 'Invalid API key' }, 401), message: 'Invalid API key' },
  rateLimitedBody: { error: 'Too many requests' },
  quota: { reply: jsonReply({ error: 'Out of credits' }, 402), message: 'Out of credits' },
  empty: jsonReply({ items: [] }),
});

test('a custom provider keeps its queryLimits; malformed ones are CONFIG_INVALID', () => {
  const limits = { web: { maxCharacters: 200, maxWords: 30 } };
  assert.deepEqual(
    toSearchProvider({ ...acmeSearchProvider, queryLimits: limits }, 'test').queryLimits,
    limits,
  );
  for (const queryLimits of [
    { web: { maxWords: 3 } },
    { web: { maxCharacters: 0 } },
    { video: { maxCharacters: 9 } },
  ]) {
    assert.throws(
      () => toSearchProvider({ ...acmeSearchProvider, queryLimits }, 'test'),
      (error: Error & { code?: string }) =>
        error.code === 'CONFIG_INVALID' && /queryLimits/.test(error.message),
    );
  }
});

test('a custom provider keeps its parameter table and site filter; a malformed table is refused', () => {
  const parameters = {
    news: { how: '`/news`' },
    dates: { none: 'no dates' },
    safeSearch: { none: 'no filter' },
    offset: { how: '`page`', exact: true },
  } as const;
  const completed = toSearchProvider({ ...acmeSearchProvider, parameters, siteFilter: 'query' }, 'test');
  assert.deepEqual(completed.parameters, parameters);
  assert.equal(completed.siteFilter, 'query');
  assert.throws(
    () => toSearchProvider({ ...acmeSearchProvider, parameters: { news: true } }, 'test'),
    /parameters must be \{ news, dates, safeSearch, offset \}/,
  );
});
