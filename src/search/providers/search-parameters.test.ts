// Issue 18's parameters — topic news, after/before, safeSearch, offset — asked of every built-in provider through a
// chain holding only it, at a stand-in on 127.0.0.1 (the real guarded client): the request each one sends (path,
// query, JSON or form body) is asserted against what its API documents (src/search/providers/__fixtures__/README.md),
// and a parameter it cannot take is a skip (news) or a warning (the rest), with nothing of it sent.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { providersSchema, searchSchema } from '../../config/search-schema.ts';
import { isPeriscopeError } from '../../errors.ts';
import { createHttpClient } from '../../net/http-client.ts';
import { createLoopbackConnectGuard } from '../../testing/connect-guard.ts';
import { jsonReply, type StandInReply, withStandIn } from '../../testing/provider-stand-in.ts';
import type { RecordedCall } from '../../testing/test-server.ts';
import { createSearchChain } from '../chain.ts';
import type { ProviderSettings, SearchRequest } from '../types.ts';
import { BUILT_IN_PROVIDERS } from './registry.ts';

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');

const DAY_MS = 86_400_000;
const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY_MS).toISOString().slice(0, 10);
/** A range of the last three weeks: the nearest freshness window covering it is a month. */
const AFTER = day(20);
const BEFORE = day(2);
const INSIDE = `${day(10)}T08:00:00Z`;
/** Google's M/D/YYYY, written out here independently of the code under test. */
const googleDay = (iso: string) => {
  const [year, month, date] = iso.split('-').map(Number);
  return `${month}/${date}/${year}`;
};

/** Firecrawl's zero-padded MM/DD/YYYY, as its search reference writes it. */
const paddedDay = (iso: string) => {
  const [year, month, date] = iso.split('-');
  return `${month}/${date}/${year}`;
};

/** Everything a request said: its path and method, its query, and its JSON or form body, in one flat object. */
function sent(call: RecordedCall): Record<string, unknown> {
  const view: Record<string, unknown> = { method: call.method, path: call.url.pathname };
  for (const [name, value] of call.url.searchParams) view[name] = value;
  if (call.body === '') return view;
  const type = String(call.headers['content-type'] ?? '');
  if (type.includes('json')) Object.assign(view, JSON.parse(call.body));
  else for (const [name, value] of new URLSearchParams(call.body)) view[name] = value;
  return view;
}

function includes(actual: Record<string, unknown>, expected: Record<string, unknown>, label: string): void {
  for (const [name, value] of Object.entries(expected)) {
    assert.deepEqual(actual[name], value, `${label}: ${name} in ${JSON.stringify(actual)}`);
  }
}

/** One web hit in each provider's own shape, dated inside the range, for the stand-in to answer with. */
const HIT = { title: 'A result', url: 'https://news.example/a', text: 'About it.' };

interface Spec {
  settings: ProviderSettings;
  serve(call: RecordedCall): StandInReply;
  /** What the request must carry for each parameter; a missing entry: the provider cannot take it. */
  news?: Record<string, unknown>;
  /** The publication a news hit of the stand-in names (`source`), where the provider gives one. */
  newsSource?: string;
  dates?: Record<string, unknown>;
  safe?: Record<string, unknown>;
  offset?: Record<string, unknown>;
  /** Request fields that must be absent when the parameter was not taken. */
  never?: string[];
}

const SPECS: Record<string, Spec> = {
  brave: {
    settings: { apiKey: 'brave-key' },
    serve: (call) =>
      jsonReply(
        call.url.pathname === '/res/v1/news/search'
          ? {
              type: 'news',
              query: { original: 'q' },
              results: [
                {
                  type: 'news_result',
                  title: HIT.title,
                  url: HIT.url,
                  description: HIT.text,
                  page_age: INSIDE,
                  meta_url: { hostname: 'news.example' },
                },
              ],
            }
          : {
              web: { results: [{ title: HIT.title, url: HIT.url, description: HIT.text, page_age: INSIDE }] },
            },
      ),
    news: { path: '/res/v1/news/search', q: 'periscope' },
    newsSource: 'news.example',
    dates: { path: '/res/v1/web/search', freshness: `${AFTER}to${BEFORE}` },
    safe: { safesearch: 'strict' },
    offset: { count: '5', offset: '1' },
  },
  serper: {
    settings: { apiKey: 'serper-key' },
    serve: (call) =>
      jsonReply(
        call.url.pathname === '/news'
          ? {
              news: [
                { title: HIT.title, link: HIT.url, snippet: HIT.text, date: '2 days ago', source: 'CNN' },
              ],
            }
          : { organic: [{ title: HIT.title, link: HIT.url, snippet: HIT.text, date: INSIDE }], credits: 1 },
      ),
    news: { method: 'POST', path: '/news', q: 'periscope' },
    newsSource: 'CNN',
    dates: { path: '/search', tbs: `cdr:1,cd_min:${googleDay(AFTER)},cd_max:${googleDay(BEFORE)}` },
    offset: { num: 5, page: 2 },
    never: ['safe'],
  },
  serpapi: {
    settings: { apiKey: 'serpapi-key' },
    serve: (call) =>
      jsonReply(
        call.url.searchParams.get('tbm') === 'nws'
          ? { news_results: [{ title: HIT.title, link: HIT.url, snippet: HIT.text, source: 'Reuters' }] }
          : { organic_results: [{ title: HIT.title, link: HIT.url, snippet: HIT.text, date: INSIDE }] },
      ),
    news: { path: '/search.json', engine: 'google', tbm: 'nws' },
    newsSource: 'Reuters',
    dates: { tbs: `cdr:1,cd_min:${googleDay(AFTER)},cd_max:${googleDay(BEFORE)}` },
    safe: { safe: 'active' },
    offset: { start: '5', num: '5' },
  },
  tavily: {
    settings: { apiKey: 'tvly-key' },
    serve: () =>
      jsonReply({ results: [{ title: HIT.title, url: HIT.url, content: HIT.text, published_date: INSIDE }] }),
    news: { path: '/search', topic: 'news' },
    dates: { topic: 'general', start_date: AFTER, end_date: BEFORE },
    never: ['safe_search', 'offset', 'page'],
  },
  exa: {
    settings: { apiKey: 'exa-key' },
    serve: () =>
      jsonReply({
        results: [{ title: HIT.title, url: HIT.url, highlights: [HIT.text], publishedDate: INSIDE }],
      }),
    news: { path: '/search', category: 'news' },
    dates: { startPublishedDate: `${AFTER}T00:00:00.000Z`, endPublishedDate: `${BEFORE}T23:59:59.999Z` },
    safe: { moderation: true },
    never: ['offset', 'page'],
  },
  searxng: {
    settings: {},
    // Pages of 5 distinct hits, as an instance pages by its own size.
    serve: (call) => {
      const pageno = call.url.searchParams.get('pageno') ?? '1';
      return jsonReply({
        results: Array.from({ length: 5 }, (_, index) => ({
          title: HIT.title,
          url: `${HIT.url}/${pageno}/${index}`,
          content: HIT.text,
          publishedDate: INSIDE,
        })),
      });
    },
    news: { path: '/search', categories: 'news' },
    dates: { categories: 'general', time_range: 'month' },
    safe: { safesearch: '2' },
    offset: { pageno: '2' },
  },
  'google-cse': {
    settings: { apiKey: 'cse-key', cx: 'engine-id' },
    serve: () =>
      jsonReply({
        items: [
          {
            title: HIT.title,
            link: HIT.url,
            snippet: HIT.text,
            pagemap: { metatags: [{ 'article:published_time': INSIDE }] },
          },
        ],
      }),
    dates: {
      path: '/customsearch/v1',
      sort: `date:r:${AFTER.replaceAll('-', '')}:${BEFORE.replaceAll('-', '')}`,
    },
    safe: { safe: 'active' },
    offset: { start: '6', num: '5' },
  },
  firecrawl: {
    settings: { apiKey: 'fc-key' },
    serve: () =>
      jsonReply({
        success: true,
        data: {
          web: [{ title: HIT.title, url: HIT.url, description: HIT.text }],
          news: [{ title: HIT.title, url: HIT.url, snippet: HIT.text, date: '3 days ago' }],
        },
      }),
    news: { path: '/v2/search', sources: ['news'] },
    dates: { sources: ['web'], tbs: `cdr:1,cd_min:${paddedDay(AFTER)},cd_max:${paddedDay(BEFORE)}` },
    never: ['safe', 'page', 'offset'],
  },
  jina: {
    settings: { apiKey: 'jina-key' },
    serve: () =>
      jsonReply({ data: [{ title: HIT.title, url: HIT.url, description: HIT.text, date: INSIDE }] }),
    offset: { num: 5, page: 2 },
    never: ['tbs', 'safe'],
  },
  kagi: {
    settings: { apiKey: 'kagi-key', apiVersion: 'v1' },
    // Pages of 5 distinct hits; news hits in data.news.
    serve: (call) => {
      const body = JSON.parse(call.body);
      const page = body.page ?? 1;
      const hits = Array.from({ length: 5 }, (_, index) => ({
        title: HIT.title,
        url: `${HIT.url}/${page}/${index}`,
        snippet: HIT.text,
        time: INSIDE,
      }));
      return jsonReply({ meta: {}, data: { [body.workflow]: hits } });
    },
    news: { path: '/api/v1/search', workflow: 'news' },
    dates: { workflow: 'search', filters: { after: AFTER, before: BEFORE } },
    safe: { safe_search: true },
    offset: { page: 2 },
  },
  infoquest: {
    settings: { apiKey: 'iq-key' },
    serve: () =>
      jsonReply({
        search_result: {
          results: [
            { content: { results: { organic: [{ title: HIT.title, url: HIT.url, desc: HIT.text }] } } },
          ],
        },
      }),
    dates: { time_range: 31 },
    never: ['page', 'offset'],
  },
  wikipedia: {
    settings: {},
    serve: () => jsonReply({ query: { search: [{ title: 'A result', snippet: HIT.text }] } }),
    offset: { sroffset: '5', srlimit: '5' },
  },
  marginalia: {
    settings: {},
    serve: () =>
      jsonReply({
        license: 'CC BY-NC-SA 4.0',
        results: [{ title: HIT.title, url: HIT.url, description: HIT.text }],
      }),
    safe: { nsfw: '1' },
    offset: { page: '2', count: '5' },
  },
  duckduckgo: {
    settings: { surface: 'html' },
    serve: (call) => {
      if (call.url.pathname === '/html/') return { body: fixture('duckduckgo-html-results.html') };
      if (call.url.pathname === '/news.js') return { body: fixture('duckduckgo-news.json') };
      return { body: fixture('duckduckgo-vqd-page.html') };
    },
    news: { method: 'GET', path: '/news.js', o: 'json', noamp: '1', q: 'periscope', l: 'wt-wt' },
    newsSource: 'Ecommerce',
    dates: { path: '/html/', df: `${AFTER}..${BEFORE}` },
    safe: { kp: '1' },
    offset: { s: '5', dc: '6' },
  },
};

function chainFor(id: string, baseUrl: string, settings: ProviderSettings) {
  const { apiKey, ...extras } = settings;
  return createSearchChain({
    search: searchSchema.parse({ chain: [id], timeoutMs: 5000 }),
    providers: providersSchema.parse({
      [id]: { ...(apiKey === undefined ? {} : { apiKey }), baseUrl, minIntervalMs: 0, extras },
    }),
    env: {},
    httpFetch: createHttpClient({ beforeConnect: createLoopbackConnectGuard().beforeConnect }),
  });
}

/** One search through a chain of only `id`: its answer (or failure) and every request the stand-in saw. */
async function ask(id: string, spec: Spec, request: Partial<SearchRequest>) {
  return withStandIn(
    (call) => spec.serve(call),
    async (server) => {
      const chain = chainFor(id, server.url, spec.settings);
      try {
        const answer = await chain.search({ query: 'periscope', count: 5, ...request });
        return { answer, calls: [...server.calls] };
      } catch (error) {
        return { error, calls: [...server.calls] };
      }
    },
  );
}

/** The request that asked for results (DuckDuckGo's news first fetches its vqd page). */
const lastCall = (calls: RecordedCall[]) => sent(calls.at(-1) as RecordedCall);

test('every built-in provider has a parameter spec here', () => {
  assert.deepEqual(Object.keys(SPECS).sort(), [...BUILT_IN_PROVIDERS.keys()].sort());
});

for (const [id, spec] of Object.entries(SPECS)) {
  const provider = BUILT_IN_PROVIDERS.get(id);
  describe(`${id}: issue 18 parameters`, () => {
    test('the table says what this spec asserts', () => {
      const table = provider?.parameters;
      assert.ok(table, 'a parameter table');
      assert.equal('how' in table.news, spec.news !== undefined, 'news');
      assert.equal('none' in table.safeSearch, spec.safe === undefined, 'safeSearch');
      assert.equal('none' in table.offset, spec.offset === undefined, 'offset');
      assert.equal('none' in table.dates, spec.dates === undefined, 'dates');
    });

    test(
      spec.news ? 'topic news asks its news vertical' : 'topic news: no request, the chain has no news',
      async () => {
        const { answer, error, calls } = await ask(id, spec, { topic: 'news' });
        if (spec.news === undefined) {
          assert.ok(isPeriscopeError(error), String(error));
          assert.equal(error.code, 'NOT_CONFIGURED');
          assert.match(error.message, /no provider in search\.chain offers news search/);
          assert.equal(calls.length, 0);
          return;
        }
        assert.ok(answer, String(error));
        includes(lastCall(calls), spec.news, 'news');
        assert.ok(answer.results.length > 0);
        if (spec.newsSource !== undefined) assert.equal(answer.results[0]?.source, spec.newsSource);
      },
    );

    test(
      spec.dates ? 'after/before are sent' : 'after/before: nothing sent, results kept to the range by date',
      async () => {
        const { answer, error, calls } = await ask(id, spec, {
          after: AFTER,
          before: BEFORE,
          keepUndated: true,
        });
        assert.ok(answer, String(error));
        const request = lastCall(calls);
        if (spec.dates !== undefined) includes(request, spec.dates, 'dates');
        const table = provider?.parameters?.dates;
        const native = table !== undefined && 'native' in table;
        // An approximating provider says so; a native one has nothing to say about results inside the range.
        assert.equal(
          answer.warnings.some((warning) => warning.startsWith(`${id} cannot search`)),
          !native,
          answer.warnings.join(' | '),
        );
        for (const name of ['tbs', 'freshness', 'start_date', 'startPublishedDate', 'df'])
          if (spec.dates?.[name] === undefined && !native) assert.equal(request[name], undefined, name);
      },
    );

    test(spec.safe ? 'safeSearch strict is sent' : 'safeSearch strict: a warning, nothing sent', async () => {
      const { answer, error, calls } = await ask(id, spec, { safeSearch: 'strict' });
      assert.ok(answer, String(error));
      const request = lastCall(calls);
      if (spec.safe !== undefined) {
        includes(request, spec.safe, 'safeSearch');
        assert.ok(!answer.warnings.some((warning) => warning.includes('safeSearch')), answer.warnings.join());
      } else {
        assert.ok(
          answer.warnings.includes(`${id} does not support safeSearch (strict ignored)`),
          answer.warnings.join(),
        );
        for (const name of spec.never ?? []) assert.equal(request[name], undefined, name);
      }
    });

    test(
      spec.offset ? 'offset 5 with count 5 asks the second page' : 'offset: a warning, its first results',
      async () => {
        const { answer, error, calls } = await ask(id, spec, { offset: 5 });
        assert.ok(answer, String(error));
        const request = lastCall(calls);
        const ignored = `${id} cannot page results: offset 5 was ignored, these are its first results`;
        if (spec.offset !== undefined) {
          includes(request, spec.offset, 'offset');
          assert.ok(!answer.warnings.includes(ignored));
        } else {
          assert.ok(answer.warnings.includes(ignored), answer.warnings.join());
          for (const name of spec.never ?? []) assert.equal(request[name], undefined, name);
        }
      },
    );
  });
}
