// The chain's part in issue 18, with providers written here (each with its own parameter table): a provider
// without news is skipped for topic news and the next one answers; a date range is sent natively, approximated by
// the nearest freshness window, or only filtered; results outside it (and undated ones, where the provider did not
// filter) are dropped with warnings; safe search and offset a provider ignores are warned about; and web_search's
// cache keeps calls apart that differ in any of them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { providersSchema, searchSchema } from '../config/search-schema.ts';
import { isPeriscopeError } from '../errors.ts';
import { createPeriscope } from '../index.ts';
import { describeMisses } from '../tools/search-summary.ts';
import type { WebSearchData } from '../tools/web-search.ts';
import { createSearchChain } from './chain.ts';
import { describeRange, windowCovering } from './parameter-support.ts';
import type { ProviderParameters } from './parameter-table.ts';
import type { SearchProvider, SearchRequest, SearchResult } from './types.ts';

const DAY_MS = 86_400_000;
const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY_MS).toISOString().slice(0, 10);
const AFTER = day(20);
const BEFORE = day(2);

const NONE: ProviderParameters = {
  news: { none: 'no news here' },
  dates: { none: 'no dates here' },
  safeSearch: { none: 'no filter here' },
  offset: { none: 'no pages here' },
};

/** Results dated inside the range, before it, and not at all. */
const MIXED: SearchResult[] = [
  { title: 'Inside', url: 'https://a.example/inside', snippet: '', publishedAt: `${day(10)}T09:00:00Z` },
  { title: 'Before', url: 'https://a.example/old', snippet: '', publishedAt: `${day(60)}T09:00:00Z` },
  { title: 'Undated', url: 'https://a.example/undated', snippet: '' },
];

/** A provider that records each request it is sent and answers `results`. */
function fake(id: string, parameters: ProviderParameters | undefined, results: SearchResult[] = MIXED) {
  const seen: SearchRequest[] = [];
  const provider: SearchProvider = {
    id,
    keyEnv: [],
    minIntervalMs: 0,
    ...(parameters === undefined ? {} : { parameters }),
    isConfigured: () => true,
    async search(request) {
      seen.push(request);
      return { results };
    },
  };
  return { provider, seen };
}

function chainOf(...providers: SearchProvider[]) {
  return createSearchChain({
    search: searchSchema.parse({ chain: providers.map((provider) => provider.id) }),
    providers: providersSchema.parse({}),
    env: {},
    extraProviders: providers,
    httpFetch: async () => {
      throw new Error('no network in this test');
    },
  });
}

describe('topic news', () => {
  test('a provider without news is skipped with its reason, and the next one answers', async () => {
    const plain = fake('plain', NONE);
    const newsy = fake('newsy', { ...NONE, news: { how: '`topic=news`' } });
    const answer = await chainOf(plain.provider, newsy.provider).search({
      query: 'q',
      count: 5,
      topic: 'news',
    });
    assert.equal(answer.provider, 'newsy');
    assert.equal(plain.seen.length, 0);
    assert.equal(newsy.seen[0]?.topic, 'news');
    const [skip] = answer.attempts;
    assert.equal(skip?.provider, 'plain');
    assert.equal(skip?.outcome, 'skipped');
    assert.equal(skip?.code, 'INVALID_INPUT');
    assert.equal(skip?.reason, 'unsupported-parameter');
    assert.equal(skip?.retryable, false);
    assert.match(skip?.message ?? '', /cannot search news \(no news here\)/);
    // What the success line says of it: that it cannot do this search, not "invalid input".
    assert.equal(describeMisses(answer.attempts), 'plain skipped: cannot search news');
  });

  test('a custom provider without a table is skipped too: it declares no news search', async () => {
    const bare = fake('bare', undefined);
    const newsy = fake('newsy', { ...NONE, news: { how: 'yes' } });
    const answer = await chainOf(bare.provider, newsy.provider).search({
      query: 'q',
      count: 5,
      topic: 'news',
    });
    assert.match(answer.attempts[0]?.message ?? '', /declares no news search/);
  });

  test('asked alone, a provider without news refuses (INVALID_INPUT); a chain without any is NOT_CONFIGURED', async () => {
    const plain = fake('plain', NONE);
    const chain = chainOf(plain.provider);
    await assert.rejects(
      chain.search({ query: 'q', count: 5, topic: 'news' }, { provider: 'plain' }),
      (error) => {
        assert.ok(isPeriscopeError(error));
        assert.equal(error.code, 'INVALID_INPUT');
        assert.equal(error.details.reason, 'unsupported-parameter');
        return true;
      },
    );
    await assert.rejects(chain.search({ query: 'q', count: 5, topic: 'news' }), (error) => {
      assert.ok(isPeriscopeError(error));
      assert.equal(error.code, 'NOT_CONFIGURED');
      assert.match(error.message, /no provider in search\.chain offers news search \(chain: plain\)/);
      return true;
    });
    assert.equal(plain.seen.length, 0);
  });

  test('general search asks every provider as before, news or not', async () => {
    const plain = fake('plain', NONE);
    const answer = await chainOf(plain.provider).search({ query: 'q', count: 5 });
    assert.equal(answer.results.length, 3);
    assert.deepEqual(answer.warnings, []);
  });
});

describe('after/before', () => {
  const range = { after: AFTER, before: BEFORE };

  test('native: the range goes as it is; dated results outside it are dropped, undated ones kept', async () => {
    const native = fake('native', { ...NONE, dates: { native: '`from`, `to`' } });
    const answer = await chainOf(native.provider).search({ query: 'q', count: 5, ...range });
    assert.equal(native.seen[0]?.after, AFTER);
    assert.equal(native.seen[0]?.freshness, undefined);
    assert.deepEqual(
      answer.results.map((result) => result.title),
      ['Inside', 'Undated'],
    );
    assert.deepEqual(answer.warnings, [`native: 1 dated outside ${AFTER} to ${BEFORE} was dropped`]);
  });

  test('window: the nearest freshness covering `after` is sent, undated results dropped, and it is said', async () => {
    const window = fake('window', { ...NONE, dates: { window: '`time_range`' } });
    const answer = await chainOf(window.provider).search({ query: 'q', count: 5, ...range });
    assert.equal(window.seen[0]?.freshness, 'month');
    assert.deepEqual(
      answer.results.map((result) => result.title),
      ['Inside'],
    );
    assert.deepEqual(answer.warnings, [
      `window cannot search a date range: it was asked for the past month, and its results were kept to ${AFTER} to ${BEFORE} by their dates; 1 dated outside ${AFTER} to ${BEFORE} was dropped; 1 without a date was dropped (keepUndated keeps them)`,
    ]);
  });

  test('keepUndated keeps the results without a date', async () => {
    const window = fake('window', { ...NONE, dates: { window: '`time_range`' } });
    const answer = await chainOf(window.provider).search({
      query: 'q',
      count: 5,
      ...range,
      keepUndated: true,
    });
    assert.deepEqual(
      answer.results.map((result) => result.title),
      ['Inside', 'Undated'],
    );
    assert.doesNotMatch(answer.warnings.join(), /without a date/);
  });

  test('unsupported, or a window that cannot reach back that far: no freshness sent, results filtered', async () => {
    const none = fake('none', NONE);
    const window = fake('window', { ...NONE, dates: { window: '`time_range`' } });
    const old = { after: day(800), before: BEFORE };
    const first = await chainOf(none.provider).search({ query: 'q', count: 5, ...old });
    const second = await chainOf(window.provider).search({ query: 'q', count: 5, ...old });
    assert.equal(none.seen[0]?.freshness, undefined);
    assert.equal(window.seen[0]?.freshness, undefined);
    assert.match(first.warnings[0] ?? '', /^none cannot search by date: its results were kept to/);
    assert.match(second.warnings[0] ?? '', /^window cannot search by date that far back:/);
    assert.deepEqual(
      first.results.map((result) => result.title),
      ['Inside', 'Before'],
    );
  });

  test('only `before`: no window approximates it; results after it are dropped', async () => {
    const window = fake('window', { ...NONE, dates: { window: '`time_range`' } });
    const answer = await chainOf(window.provider).search({ query: 'q', count: 5, before: day(30) });
    assert.equal(window.seen[0]?.freshness, undefined);
    assert.deepEqual(
      answer.results.map((result) => result.title),
      ['Before'],
    );
  });

  test('windowCovering picks the smallest window; describeRange words each form', () => {
    const now = Date.parse('2025-06-30T12:00:00Z');
    assert.equal(windowCovering('2025-06-30', now), 'day');
    assert.equal(windowCovering('2025-06-25', now), 'week');
    assert.equal(windowCovering('2025-06-01', now), 'month');
    assert.equal(windowCovering('2024-07-01', now), 'year');
    assert.equal(windowCovering('2024-06-01', now), undefined);
    assert.equal(describeRange({ after: '2025-01-01' }), 'on or after 2025-01-01');
    assert.equal(describeRange({ before: '2025-01-01' }), 'on or before 2025-01-01');
  });
});

describe('safeSearch and offset a provider ignores', () => {
  test('strict or off is warned about; moderate, the default, is not', async () => {
    const plain = fake('plain', NONE);
    const chain = chainOf(plain.provider);
    const strict = await chain.search({ query: 'q', count: 5, safeSearch: 'strict' });
    const moderate = await chain.search({ query: 'q2', count: 5, safeSearch: 'moderate' });
    assert.deepEqual(strict.warnings, ['plain does not support safeSearch (strict ignored)']);
    assert.deepEqual(moderate.warnings, []);
  });

  test('an offset is warned about where the provider cannot page, and passed on where it can', async () => {
    const plain = fake('plain', NONE);
    const pager = fake('pager', { ...NONE, offset: { how: '`start`', exact: true } });
    const ignored = await chainOf(plain.provider).search({ query: 'q', count: 5, offset: 5 });
    const paged = await chainOf(pager.provider).search({ query: 'q', count: 5, offset: 5 });
    assert.deepEqual(ignored.warnings, [
      'plain cannot page results: offset 5 was ignored, these are its first results',
    ]);
    assert.deepEqual(paged.warnings, []);
    assert.equal(pager.seen[0]?.offset, 5);
  });
});

describe('web_search', () => {
  test('the cache keeps apart calls that differ in topic, dates, keepUndated, safe search or offset', async () => {
    const newsy = fake('newsy', {
      news: { how: 'yes' },
      dates: { native: 'yes' },
      safeSearch: { parameter: 'safe', values: { off: 0, moderate: 1, strict: 2 } },
      offset: { how: 'yes', exact: true },
    });
    const periscope = createPeriscope(
      { search: { chain: ['newsy'] }, store: { url: 'memory:' } },
      { env: {}, providers: [newsy.provider] },
    );
    const calls = [
      { query: 'tides' },
      { query: 'tides', topic: 'news' },
      { query: 'tides', after: AFTER },
      { query: 'tides', after: AFTER, keepUndated: true },
      { query: 'tides', before: BEFORE },
      { query: 'tides', safeSearch: 'strict' },
      { query: 'tides', offset: 5 },
    ] as const;
    for (const input of calls) {
      const result = await periscope.search(input);
      assert.equal((result.data as WebSearchData).cached, false, JSON.stringify(input));
    }
    const again = await periscope.search({ query: 'tides', offset: 5 });
    assert.equal((again.data as WebSearchData).cached, true);
    assert.equal(newsy.seen.length, calls.length);
    // The configured default goes to the provider when the call gives none.
    assert.equal(newsy.seen[0]?.safeSearch, 'moderate');
    await periscope.close();
  });

  test('search.safeSearch is the default; topic general and offset 0 are the plain request', async () => {
    const plain = fake('plain', NONE);
    const periscope = createPeriscope(
      {
        search: { chain: ['plain'], safeSearch: 'strict' },
        store: { url: 'memory:' },
        cache: { enabled: false },
      },
      { env: {}, providers: [plain.provider] },
    );
    const result = await periscope.search({ query: 'tides', topic: 'general', offset: 0 });
    assert.equal(plain.seen[0]?.safeSearch, 'strict');
    assert.equal(plain.seen[0]?.topic, undefined);
    assert.equal(plain.seen[0]?.offset, undefined);
    assert.deepEqual((result.data as WebSearchData).warnings, [
      'plain does not support safeSearch (strict ignored)',
    ]);
    await periscope.close();
  });

  test('news and date-range results show their day and publication; plain results do not', async () => {
    const newsy = fake('newsy', { ...NONE, news: { how: 'yes' } }, [
      {
        title: 'Tide tables',
        url: 'https://news.example/tides',
        snippet: 'High tide.',
        publishedAt: '2025-05-02T17:40:05Z',
        source: 'Brest Daily',
      },
    ]);
    const periscope = createPeriscope(
      { search: { chain: ['newsy'] }, store: { url: 'memory:' } },
      { env: {}, providers: [newsy.provider] },
    );
    const news = await periscope.search({ query: 'tides', topic: 'news' });
    assert.match(news.output, /\n {3}High tide\.\n {3}2025-05-02 · Brest Daily/);
    assert.equal((news.data as WebSearchData).results[0]?.source, 'Brest Daily');
    const plain = await periscope.search({ query: 'tides' });
    assert.doesNotMatch(plain.output, /Brest Daily/);
    await periscope.close();
  });

  test('bad input is one line naming the field: a date that is not one, a range backwards, dates with freshness', async () => {
    const periscope = createPeriscope({ store: { url: 'memory:' } }, { env: {} });
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ after: '2025-02-30' }, /after: must be a calendar date as YYYY-MM-DD/],
      [
        { after: '2025-03-01', before: '2025-02-01' },
        /before: must not be earlier than after \(2025-03-01\)/,
      ],
      [{ after: '2025-03-01', freshness: 'week' }, /after: cannot be combined with freshness/],
      [{ offset: 101 }, /offset/],
      [{ topic: 'sports' }, /topic/],
    ];
    for (const [input, message] of cases) {
      const result = await periscope.search({ query: 'q', ...input } as never);
      assert.equal(result.isError, true);
      assert.match(result.output, message);
    }
    await periscope.close();
  });
});
