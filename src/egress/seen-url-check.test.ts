// egress.seenUrlsOnly over real sockets: an origin on 127.0.0.1 with pages, links, a feed and a redirect, a search
// provider whose results point at it, and the session's seen set in each store (memory, SQLite, Redis), shared by
// two Periscope instances as two gateway instances share it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, mock, test } from 'node:test';
import { createPeriscope, type Periscope, type ToolExecuteOptions, type ToolResult } from '../index.ts';
import type { SearchProvider } from '../search/types.ts';
import { createMemoryStore } from '../store/memory-store.ts';
import { openStore } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';
import { errorOf, outcome } from '../testing/policy-harness.ts';
import { type RedisTestServer, redisTestGate, startRedisServer } from '../testing/redis-server.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { SEEN_URL_TTL_MS, SEEN_URLS_PER_SESSION, seenUrlsOf } from './seen-urls.ts';

const WORDS = 'The harbour master kept a ledger of every ship that came in, with its cargo and its flag. ';
const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><article><h1>${title}</h1><p>${WORDS.repeat(6)}</p>${body}</article></body></html>`;

let origin: TestServer;
before(async () => {
  const html =
    (title: string, body = '') =>
    (_request: unknown, response: import('node:http').ServerResponse) =>
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(title, body));
  origin = await startTestServer({
    '/start': html(
      'Start',
      `<p>${WORDS}Read <a href="/linked?x=1#part">the linked page</a> and <a href="/Way%7eout">the way out</a>. ${WORDS}</p>`,
    ),
    '/linked': html('Linked'),
    '/Way~out': html('Way out'),
    '/result': html('Result'),
    '/target': html('Target'),
    '/entry-1': html('Entry one'),
    '/moved': (_request, response) => response.writeHead(302, { location: '/target' }).end(),
    '/feed.xml': (_request, response) =>
      response
        .writeHead(200, { 'content-type': 'application/rss+xml' })
        .end(
          `<?xml version="1.0"?><rss version="2.0"><channel><title>Feed</title><link>${origin.url}/</link><item><title>One</title><link>${origin.url}/entry-1</link><description>${WORDS}</description></item></channel></rss>`,
        ),
  });
});
after(() => origin.close());

/** A provider (in process) whose results are pages of the origin. */
const provider: SearchProvider = {
  id: 'pages',
  keyEnv: [],
  minIntervalMs: 0,
  isConfigured: () => true,
  search: async (request) => ({
    results: [
      { title: 'Result', url: `${origin.url}/result`, snippet: request.query },
      { title: 'Moved', url: `${origin.url}/moved`, snippet: 'moved' },
      { title: 'Feed', url: `${origin.url}/feed.xml`, snippet: 'feed' },
    ],
  }),
};

function open(store: Store): Periscope {
  return createPeriscope(
    {
      network: { allowPrivateNetwork: ['127.0.0.1/32'] },
      search: { chain: ['pages'] },
      egress: { seenUrlsOnly: true },
      limits: { credits: { enabled: true, initial: 1000 } },
    },
    { env: {}, store, providers: [provider] },
  );
}

const downloads = (path: string) => origin.calls.filter((call) => call.url.pathname === path).length;

function assertNotSeen(result: ToolResult, asked: string) {
  assert.equal(outcome(result), 'POLICY_DENIED', result.output);
  const error = errorOf(result);
  assert.equal(error.details?.reason, 'not-seen');
  assert.match(result.output, /search for the page with web_search/);
  // The model's URL is never repeated in the refusal (the secret check, not this one, judges what it carries).
  assert.ok(!error.message.includes(new URL(asked).pathname), error.message);
}

/** The whole rule on one store, through two Periscope instances (two gateway instances) sharing it. */
async function seenUrlRule(stores: [Store, Store]) {
  const [first, second] = stores.map(open) as [Periscope, Periscope];
  const run = `${Math.random()}`.slice(2);
  const sessionId = `s-${run}`;
  const session: ToolExecuteOptions = { sessionId, agentId: 'bot' };
  try {
    // Nothing seen yet: refused, nothing sent, nothing charged.
    const before = downloads('/result');
    const balance = await first.credits.balance('bot');
    assertNotSeen(await first.fetch({ url: `${origin.url}/result` }, session), `${origin.url}/result`);
    assert.equal(downloads('/result'), before);
    assert.equal(await first.credits.balance('bot'), balance, 'a refusal is not charged');

    // A search's result URLs are seen, by every instance; as given, or spelled another way.
    assert.equal(outcome(await first.search({ query: 'harbour ledgers' }, session)), 'ok');
    assert.equal(outcome(await second.fetch({ url: `${origin.url}/result` }, session)), 'ok');
    const respelled = `${origin.url.replace('http://', 'HTTP://')}/result#top`;
    assert.equal(outcome(await second.fetch({ url: respelled }, session)), 'ok');

    // The model's own additions to a seen URL are new URLs.
    for (const built of [
      `${origin.url}/result?q=secret`,
      `${origin.url}/result/more`,
      `${origin.url}/resul`,
    ]) {
      const sent = origin.calls.length;
      assertNotSeen(await second.fetch({ url: built }, session), built);
      assert.equal(origin.calls.length, sent, `nothing sent for ${built}`);
    }

    // A redirect from a seen URL is the site's choice: followed; the final URL is then seen too.
    const moved = await first.fetch({ url: `${origin.url}/moved` }, session);
    assert.equal(outcome(moved), 'ok');
    assert.equal((moved.data as { finalUrl: string }).finalUrl, `${origin.url}/target`);
    assert.equal(outcome(await second.fetch({ url: `${origin.url}/target` }, session)), 'ok');

    // Links of a page read in the session are seen; a sibling the model makes up is not.
    assertNotSeen(
      await first.fetch({ url: `${origin.url}/linked?x=1` }, session),
      `${origin.url}/linked?x=1`,
    );
    const start = { ...session, egress: { seenUrls: [`${origin.url}/start`] } };
    assert.equal(outcome(await first.fetch({ url: `${origin.url}/start` }, start)), 'ok');
    assert.equal(outcome(await second.fetch({ url: `${origin.url}/linked?x=1` }, session)), 'ok');
    assert.equal(outcome(await second.fetch({ url: `${origin.url}/Way~out` }, session)), 'ok');
    assertNotSeen(
      await second.fetch({ url: `${origin.url}/linked?x=2` }, session),
      `${origin.url}/linked?x=2`,
    );

    // A feed's entries are seen once the feed was read.
    assert.equal(outcome(await first.fetch({ url: `${origin.url}/feed.xml` }, session)), 'ok');
    assert.equal(outcome(await second.fetch({ url: `${origin.url}/entry-1` }, session)), 'ok');

    // Another session, or the same session id of another agent, has seen none of it.
    for (const other of [
      { sessionId: `t-${run}`, agentId: 'bot' },
      { sessionId, agentId: 'other' },
    ]) {
      assertNotSeen(await first.fetch({ url: `${origin.url}/result` }, other), `${origin.url}/result`);
    }
  } finally {
    await Promise.all([first.close(), second.close()]);
  }
}

describe('web_fetch under egress.seenUrlsOnly, the seen set in each store', () => {
  test('memory (one store, two instances)', async () => {
    const store = createMemoryStore();
    await seenUrlRule([store, store]);
    await store.close();
  });

  test('SQLite (one file, two connections)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'periscope-seen-'));
    const stores = await Promise.all([1, 2].map(() => openStore(`sqlite://${join(folder, 'state.db')}`)));
    try {
      await seenUrlRule(stores as [Store, Store]);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
      rmSync(folder, { recursive: true, force: true });
    }
  });

  const { skip } = redisTestGate();
  test('Redis (one server, two connections)', { skip }, async () => {
    const redis: RedisTestServer = await startRedisServer();
    const stores = await Promise.all([1, 2].map(() => openStore(redis.url)));
    try {
      await seenUrlRule(stores as [Store, Store]);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
      await redis.stop();
    }
  });
});

describe('sessions and the task', () => {
  let periscope: Periscope;
  before(() => {
    periscope = open(createMemoryStore());
  });
  after(() => periscope.close());

  test('without a session a call has seen only its task URLs, and records nothing', async () => {
    assert.equal(outcome(await periscope.search({ query: 'no session' })), 'ok');
    assertNotSeen(await periscope.fetch({ url: `${origin.url}/result` }), `${origin.url}/result`);
    const task = { egress: { seenUrls: [`${origin.url}/start`] } };
    assert.equal(outcome(await periscope.fetch({ url: `${origin.url}/start` }, task)), 'ok');
    assertNotSeen(await periscope.fetch({ url: `${origin.url}/linked?x=1` }), `${origin.url}/linked?x=1`);
    assert.match(errorOf(await periscope.fetch({ url: `${origin.url}/start` })).message, /no session/);
  });

  test("the task's URLs, given once, join the session", async () => {
    const session = { sessionId: 'task-once' };
    const given = {
      ...session,
      egress: { seenUrls: [`${origin.url}/target`, 'not a url', 'ftp://x.example/'] },
    };
    assert.equal(outcome(await periscope.search({ query: 'anything' }, given)), 'ok');
    assert.equal(outcome(await periscope.fetch({ url: `${origin.url}/target` }, session)), 'ok');
  });

  test('readTop reads the results it found, though the search is still running', async () => {
    const result = await periscope.search({ query: 'harbour', readTop: 1 }, { sessionId: 'read-top' });
    assert.equal(outcome(result), 'ok');
    const [first] = (result.data as { results: Array<{ passages?: unknown[]; readError?: unknown }> })
      .results;
    assert.equal(first?.readError, undefined);
    assert.ok(Array.isArray(first?.passages));
  });

  test('a refusal tells the model to search instead, and not to retry', async () => {
    const result = await periscope.fetch({ url: `${origin.url}/start?leak=1` }, { sessionId: 'x' });
    assertNotSeen(result, `${origin.url}/start?leak=1`);
    assert.equal((result.data as { error: { retryable: boolean } }).error.retryable, false);
    assert.match(result.output, /not URLs you build; retrying will not help/);
    assert.deepEqual(errorOf(result).details, {
      rule: 'egress.seenUrlsOnly',
      session: true,
      reason: 'not-seen',
      check: 'seen-url',
    });
  });
});

describe('the seen set: bounded and expiring', () => {
  test(`a session keeps at most ${SEEN_URLS_PER_SESSION} URLs; the rest are not recorded`, async () => {
    const store = createMemoryStore();
    const seen = seenUrlsOf(store, 'bot', 'full');
    const urls = Array.from(
      { length: SEEN_URLS_PER_SESSION + 5 },
      (_, index) => `https://example.com/${index}`,
    );
    assert.equal(await seen.add(urls.slice(0, 10)), 0);
    assert.equal(await seen.add(urls.slice(0, 10)), 0, 'seen again: not counted again');
    assert.equal(await seen.add(urls), 5);
    assert.ok(await seen.isFull());
    assert.ok(await seen.has(urls[SEEN_URLS_PER_SESSION - 1] as string));
    assert.ok(!(await seen.has(urls[SEEN_URLS_PER_SESSION] as string)));
    await store.close();
  });

  test('a seen URL is forgotten a day after it was seen', async () => {
    mock.timers.enable({ apis: ['Date'], now: 1_700_000_000_000 });
    try {
      const store = createMemoryStore();
      const seen = seenUrlsOf(store, 'bot', 'day');
      await seen.add(['https://example.com/a']);
      mock.timers.tick(SEEN_URL_TTL_MS - 1);
      assert.ok(await seen.has('https://example.com/a'));
      mock.timers.tick(2);
      assert.ok(!(await seen.has('https://example.com/a')));
      await store.close();
    } finally {
      mock.timers.reset();
    }
  });
});
