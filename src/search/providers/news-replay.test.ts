// Recorded news answers replayed through a chain of one provider with `topic: news` (a real socket on 127.0.0.1,
// the real guarded client): DuckDuckGo's news.js body (Snazzah/duck-duck-scrape, recorded 2022) and SerpApi's
// `tbm=nws` body (rahulchaudhary222/exercise2, recorded 2022-02-16); sources in __fixtures__/README.md. The expected
// values are read from the recorded bodies here, not produced by the code under test.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { providersSchema, searchSchema } from '../../config/search-schema.ts';
import { createHttpClient } from '../../net/http-client.ts';
import { createLoopbackConnectGuard } from '../../testing/connect-guard.ts';
import { withStandIn } from '../../testing/provider-stand-in.ts';
import { createSearchChain } from '../chain.ts';
import { extractVqd } from './duckduckgo-pages.ts';

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');

function chain(id: string, baseUrl: string, extra: Record<string, unknown> = {}) {
  return createSearchChain({
    search: searchSchema.parse({ chain: [id], timeoutMs: 5000 }),
    providers: providersSchema.parse({ [id]: { baseUrl, minIntervalMs: 0, ...extra } }),
    env: {},
    httpFetch: createHttpClient({ beforeConnect: createLoopbackConnectGuard().beforeConnect }),
  });
}

/** Text as shown: tags gone, the few entities these bodies use decoded, whitespace folded. */
const shown = (text: string) =>
  text
    .replace(/<[^>]+>/g, '')
    .replace(/&#x27;/g, "'")
    .replace(/\s+/g, ' ')
    .trim();

test('duckduckgo news: the recorded news.js body, after the vqd page, with date and publication', async () => {
  const vqdPage = fixture('duckduckgo-vqd-page.html');
  const token = extractVqd(vqdPage);
  const body = fixture('duckduckgo-news.json');
  const recorded = JSON.parse(body).results as Array<Record<string, string | number>>;
  await withStandIn(
    (call) => {
      if (call.url.pathname === '/news.js')
        return call.url.searchParams.get('vqd') === token ? { body } : { status: 403, body: 'vqd mismatch' };
      return { body: vqdPage };
    },
    async (server) => {
      const answer = await chain('duckduckgo', server.url).search({
        query: 'node news',
        count: 3,
        topic: 'news',
      });
      assert.deepEqual(
        answer.results,
        recorded.map((item) => ({
          title: item.title,
          url: item.url,
          snippet: shown(String(item.excerpt)),
          publishedAt: new Date(Number(item.date) * 1000).toISOString(),
          source: item.source,
        })),
      );
      const [page, news] = server.calls;
      assert.equal(page?.url.searchParams.get('ia'), 'news');
      assert.equal(news?.url.searchParams.get('q'), 'node news');
      assert.equal(news?.url.searchParams.get('p'), null, 'no safe search asked, none sent');
    },
  );
});

test('duckduckgo news: a range keeps the recorded articles of its days; df carries it', async () => {
  const vqdPage = fixture('duckduckgo-vqd-page.html');
  const body = fixture('duckduckgo-news.json');
  await withStandIn(
    (call) => ({ body: call.url.pathname === '/news.js' ? body : vqdPage }),
    async (server) => {
      // 2022-05-02 holds the first article (1651465440 = 2022-05-02T04:24Z); the others are other days.
      const answer = await chain('duckduckgo', server.url).search({
        query: 'node news',
        count: 3,
        topic: 'news',
        after: '2022-05-02',
        before: '2022-05-02',
      });
      assert.deepEqual(
        answer.results.map((result) => result.source),
        ['Ecommerce'],
      );
      assert.equal(server.calls.at(-1)?.url.searchParams.get('df'), '2022-05-02..2022-05-02');
      assert.deepEqual(answer.warnings, [
        'duckduckgo: 2 dated outside 2022-05-02 to 2022-05-02 were dropped',
      ]);
    },
  );
});

test('serpapi news: the recorded tbm=nws body, each article with its publication', async () => {
  const body = fixture('serpapi-news.json');
  const recorded = JSON.parse(body).news_results as Array<Record<string, string>>;
  await withStandIn(
    () => ({ headers: { 'content-type': 'application/json' }, body }),
    async (server) => {
      const answer = await chain('serpapi', server.url, { apiKey: 'serpapi-key' }).search({
        query: 'news',
        count: 3,
        topic: 'news',
        // SerpApi filters by date itself (tbs=cdr): articles without a date are kept.
        after: '2022-02-01',
      });
      assert.deepEqual(
        answer.results,
        recorded.map((item) => ({
          title: item.title,
          url: item.link,
          snippet: shown(item.snippet ?? ''),
          source: item.source,
        })),
      );
      const sent = server.calls[0]?.url.searchParams;
      assert.equal(sent?.get('tbm'), 'nws');
      assert.equal(sent?.get('tbs'), 'cdr:1,cd_min:2/1/2022');
      assert.deepEqual(answer.warnings, []);
    },
  );
});
