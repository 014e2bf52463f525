// Session budgets (src/egress/budget-check.ts): calls per tool and credits per session, reserved before the call,
// released when it is refused for another reason, settled after; exact under concurrency on every store.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { PeriscopeConfigInput } from '../config/schema.ts';
import type { ToolErrorData } from '../errors.ts';
import { createPeriscope, type Periscope } from '../index.ts';
import type { LookupFunction } from '../net/types.ts';
import type { SearchProvider, SearchResult } from '../search/types.ts';
import { createMemoryStore } from '../store/memory-store.ts';
import { createRedisStore } from '../store/redis-store.ts';
import { createSqliteStore } from '../store/sqlite-store.ts';
import type { Store } from '../store/store.ts';
import { type RedisTestServer, redisTestGate, startRedisServer } from '../testing/redis-server.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import type { ToolResult } from '../tool-call.ts';
import type { EgressCheck } from './egress-check.ts';

const PAGE = `<!doctype html><html><head><title>Tides</title></head><body><main>${'<p>High tide at Brest is at 06:12 and 18:40 today; the coefficient is 95.</p>'.repeat(6)}</main></body></html>`;

function errorOf(result: ToolResult): ToolErrorData | undefined {
  return result.isError ? (result.data as { error: ToolErrorData }).error : undefined;
}

const lookup: LookupFunction = async (hostname) => {
  if (hostname.endsWith('.test')) return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};

let origin: TestServer;
before(async () => {
  origin = await startTestServer((request, response) => {
    if (request.url === '/down')
      response.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance');
    else if (request.url === '/nothing-here') response.writeHead(404).end('not found');
    else response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
  });
});
after(() => origin.close());

/** A search provider in process: `results` pages on the origin, counting what it was asked. */
function countedProvider(results = 5): SearchProvider & { asked: number } {
  const provider = {
    id: 'counted',
    keyEnv: [],
    minIntervalMs: 0,
    asked: 0,
    isConfigured: () => true,
    async search(request: { query: string }) {
      provider.asked += 1;
      const found: SearchResult[] = Array.from({ length: results }, (_, index) => ({
        title: `Tides ${index + 1}`,
        url: `http://page${index + 1}.test:${origin.port}/${encodeURIComponent(request.query)}`,
        snippet: 'tides',
      }));
      return { results: found };
    },
  };
  return provider;
}

function open(
  limits: PeriscopeConfigInput['limits'],
  options: { provider?: SearchProvider; store?: Store; egressChecks?: EgressCheck[] } = {},
): Periscope {
  return createPeriscope(
    {
      network: { allowPrivateNetwork: ['127.0.0.1/32'] },
      fetch: { robots: 'ignore', chain: ['local'] },
      search: { chain: ['counted'] },
      cache: { enabled: false },
      limits,
    },
    {
      env: {},
      lookup,
      providers: [options.provider ?? countedProvider()],
      ...(options.store ? { store: options.store } : {}),
      ...(options.egressChecks ? { egressChecks: options.egressChecks } : {}),
    },
  );
}

const page = (path: string) => ({ url: `http://site.test:${origin.port}/${path}` });

describe('calls per tool', () => {
  test('a session makes its web_fetch calls, the next is POLICY_DENIED budget; other sessions are their own', async () => {
    const periscope = open({ session: { maxCalls: { web_fetch: 2 } } });
    try {
      const session = { sessionId: 's1' };
      assert.equal((await periscope.fetch(page('a'), session)).isError, false);
      assert.equal((await periscope.fetch(page('b'), session)).isError, false);
      const requests = origin.calls.length;
      const third = await periscope.fetch(page('c'), session);
      const error = errorOf(third);
      assert.equal(error?.code, 'POLICY_DENIED', third.output);
      assert.equal(error?.details?.reason, 'budget');
      assert.equal(error?.details?.check, 'budget');
      assert.deepEqual(
        [error?.details?.limit, error?.details?.limitValue, error?.details?.used],
        ['maxCalls.web_fetch', 2, 2],
      );
      assert.match(
        third.output,
        /used up; retrying will not help.*\nError POLICY_DENIED: this session may make 2 web_fetch calls, and has used 2 \(limits\.session\.maxCalls\.web_fetch\)/,
      );
      assert.equal(origin.calls.length, requests, 'nothing was sent');
      assert.equal((await periscope.fetch(page('c'), { sessionId: 's2' })).isError, false);
      assert.equal(
        (await periscope.fetch(page('c'), { sessionId: 's1', agentId: 'other' })).isError,
        false,
        'the same session name under another agent is another session',
      );
      assert.equal(
        (await periscope.search({ query: 'tides' }, session)).isError,
        false,
        'web_search has no limit',
      );
    } finally {
      await periscope.close();
    }
  });

  test('without a sessionId each call is a session of its own: only a limit it breaks alone refuses it', async () => {
    const periscope = open({ session: { maxCalls: { web_fetch: 1, image_search: 0 } } });
    try {
      for (const path of ['a', 'b', 'c']) assert.equal((await periscope.fetch(page(path))).isError, false);
      assert.equal(errorOf(await periscope.imageSearch({ query: 'tides' }))?.details?.reason, 'budget');
      const wide = await periscope.search({ query: 'tides', readTop: 2 });
      assert.equal(errorOf(wide)?.details?.reason, 'budget', wide.output);
      assert.match(
        wide.output,
        /reading the top 2 results needs 2 web_fetch calls; a session may make 1 \(limits\.session\.maxCalls\.web_fetch\): search with a smaller readTop/,
      );
      assert.equal((await periscope.search({ query: 'tides', readTop: 1 })).isError, false);
    } finally {
      await periscope.close();
    }
  });
});

describe('readTop', () => {
  test('a search reserves all its reads first: all or none, and its reads draw from that reservation', async () => {
    const provider = countedProvider();
    const periscope = open({ session: { maxCalls: { web_fetch: 3 } } }, { provider });
    try {
      const session = { sessionId: 'read' };
      const wide = await periscope.search({ query: 'wide', readTop: 4 }, session);
      assert.equal(errorOf(wide)?.details?.reason, 'budget');
      assert.equal(provider.asked, 0, 'refused before the provider was asked');
      const requests = origin.calls.length;
      const read = await periscope.search({ query: 'tides', readTop: 2 }, session);
      assert.equal(read.isError, false, read.output);
      const data = read.data as { results: Array<{ passages?: unknown; readError?: unknown }> };
      assert.ok(data.results.slice(0, 2).every((result) => Array.isArray(result.passages)));
      assert.equal(origin.calls.length - requests, 2, 'two pages read');
      // Two of three used by the reads: one more web_fetch, then none.
      assert.equal((await periscope.fetch(page('x'), session)).isError, false);
      assert.equal(errorOf(await periscope.fetch(page('y'), session))?.details?.reason, 'budget');
    } finally {
      await periscope.close();
    }
  });

  test('reads the search did not make (fewer results than readTop) are given back when it ends', async () => {
    const periscope = open({ session: { maxCalls: { web_fetch: 3 } } }, { provider: countedProvider(1) });
    try {
      const session = { sessionId: 'few' };
      const read = await periscope.search({ query: 'tides', readTop: 3 }, session);
      assert.equal(read.isError, false, read.output);
      assert.match(String(read.display), /read 1 page/);
      assert.equal((await periscope.fetch(page('x'), session)).isError, false);
      assert.equal((await periscope.fetch(page('y'), session)).isError, false);
      assert.equal(errorOf(await periscope.fetch(page('z'), session))?.details?.reason, 'budget');
    } finally {
      await periscope.close();
    }
  });
});

describe('credits', () => {
  test('maxCredits counts limits.credits.cost whether or not charging is on; a refunded failure gives them back', async () => {
    // web_search costs 2, web_fetch 1 (the defaults).
    const periscope = open({ session: { maxCredits: 4 } });
    try {
      const session = { sessionId: 'credits' };
      assert.equal((await periscope.search({ query: 'tides' }, session)).isError, false);
      const down = await periscope.fetch(page('down'), session);
      assert.equal(errorOf(down)?.code, 'HTTP_STATUS', 'a 503: refunded by the credit rule');
      assert.equal((await periscope.fetch(page('a'), session)).isError, false);
      assert.equal((await periscope.fetch(page('b'), session)).isError, false);
      const over = await periscope.fetch(page('c'), session);
      assert.equal(errorOf(over)?.details?.reason, 'budget');
      assert.match(over.output, /this call needs 1 credit; this session may spend 4, and has used 4/);
      const missing = await periscope.fetch({ url: `http://site.test:${origin.port}/nothing-here` }, {});
      assert.equal(
        errorOf(missing)?.code,
        'HTTP_STATUS',
        'a 404 is the agent’s: kept (no session: not stored)',
      );
    } finally {
      await periscope.close();
    }
  });

  test('a caller narrows the budget, never widens it; the message names who set the limit', async () => {
    const periscope = open({ session: { maxCalls: { web_fetch: 2 } } });
    try {
      const narrow = { sessionId: 'narrow', egress: { budget: { maxCalls: { web_fetch: 1 } } } };
      assert.equal((await periscope.fetch(page('a'), narrow)).isError, false);
      const refused = await periscope.fetch(page('b'), narrow);
      assert.match(refused.output, /may make 1 web_fetch call, and has used 1 \(the caller's session budget/);
      const wide = { sessionId: 'wide', egress: { budget: { maxCalls: { web_fetch: 10 }, maxCredits: 50 } } };
      assert.equal((await periscope.fetch(page('a'), wide)).isError, false);
      assert.equal((await periscope.fetch(page('b'), wide)).isError, false);
      const capped = await periscope.fetch(page('c'), wide);
      assert.match(capped.output, /\(limits\.session\.maxCalls\.web_fetch\)/);
    } finally {
      await periscope.close();
    }
  });
});

describe('released when the call is refused for another reason', () => {
  test('a later egress check, the rate limit and credits each give the reservation back', async () => {
    let refuse = true;
    const hook: EgressCheck = {
      name: 'later',
      checkCall: () => (refuse ? { reason: 'domain', message: 'not now' } : undefined),
    };
    const periscope = open(
      {
        session: { maxCalls: { web_fetch: 1 } },
        credits: { enabled: true },
        rate: { perAgent: { count: 2, windowMs: 60_000 } },
      },
      { egressChecks: [hook] },
    );
    try {
      const session = { sessionId: 'released', agentId: 'r1' };
      assert.equal(errorOf(await periscope.fetch(page('a'), session))?.details?.reason, 'domain');
      refuse = false;
      assert.equal(errorOf(await periscope.fetch(page('a'), session))?.code, 'CREDITS_EXHAUSTED');
      await periscope.credits.grant('r1', 5);
      assert.equal((await periscope.fetch(page('a'), session)).isError, false, 'the one call is still there');
      assert.equal(errorOf(await periscope.fetch(page('b'), session))?.details?.reason, 'budget');
      // Rate limit (2 calls: the credit-refused one and the one that ran): a fresh session's first call is refused.
      const limited = { sessionId: 'limited', agentId: 'r1' };
      assert.equal(errorOf(await periscope.fetch(page('c'), limited))?.code, 'RATE_LIMITED');
      const store = await periscope.store();
      const keys = await store.keys('session-budget:');
      const counts = await Promise.all(keys.map((key) => store.get<Record<string, number>>(key)));
      assert.deepEqual(
        counts.map((count) => count?.['calls.web_fetch']).sort(),
        [0, 1],
        'the refused session holds nothing',
      );
    } finally {
      await periscope.close();
    }
  });
});

// 200 calls at once against one session's budget: exactly the budget pass, the rest POLICY_DENIED budget, and no
// credit is charged for them — on each store.
const { skip: redisSkip } = redisTestGate();
let redis: RedisTestServer | undefined;
const dir = mkdtempSync(join(tmpdir(), 'periscope-budget-'));
before(async () => {
  if (redisSkip === false) redis = await startRedisServer();
});
after(async () => {
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

let opened = 0;
const stores: Array<{ name: string; skip: string | false; open: () => Promise<Store> }> = [
  { name: 'memory', skip: false, open: async () => createMemoryStore() },
  { name: 'SQLite', skip: false, open: async () => createSqliteStore({ path: join(dir, `${++opened}.db`) }) },
  {
    name: 'Redis',
    skip: redisSkip,
    open: () =>
      createRedisStore({
        url: (redis as RedisTestServer).url,
        keyPrefix: `budget-${process.pid}-${++opened}:`,
      }),
  },
];

for (const kind of stores) {
  describe(`200 concurrent calls on ${kind.name}`, { skip: kind.skip }, () => {
    test('37 web_search calls pass, 163 are POLICY_DENIED budget and not charged', async () => {
      const store = await kind.open();
      const provider = countedProvider();
      const periscope = open(
        { session: { maxCalls: { web_search: 37 } }, credits: { enabled: true } },
        { provider, store },
      );
      try {
        await periscope.credits.grant('crowd', 1000);
        const results = await Promise.all(
          Array.from({ length: 200 }, (_, index) =>
            periscope.search({ query: `tides ${index}` }, { agentId: 'crowd', sessionId: 'one' }),
          ),
        );
        const passed = results.filter((result) => !result.isError);
        const refused = results.map(errorOf).filter((error) => error !== undefined);
        assert.equal(passed.length, 37);
        assert.equal(refused.length, 163);
        assert.ok(
          refused.every((error) => error.code === 'POLICY_DENIED' && error.details?.reason === 'budget'),
        );
        assert.equal(provider.asked, 37);
        assert.equal(await periscope.credits.balance('crowd'), 1000 - 37 * 2, 'only the 37 were charged');
        const charges = (await store.ledger('crowd')).filter((entry) => entry.reason === 'charge');
        assert.equal(charges.length, 37);
      } finally {
        await periscope.close();
        await store.close();
      }
    });

    test('readTop under concurrency: 40 searches reading 2 pages against 21 web_fetch calls → exactly 10', async () => {
      const store = await kind.open();
      const periscope = open({ session: { maxCalls: { web_fetch: 21 } } }, { store });
      try {
        const results = await Promise.all(
          Array.from({ length: 40 }, (_, index) =>
            periscope.search({ query: `read ${index}`, readTop: 2 }, { sessionId: 'readers' }),
          ),
        );
        assert.equal(results.filter((result) => !result.isError).length, 10);
        const keys = await store.keys('session-budget:');
        assert.equal(keys.length, 1);
        assert.equal((await store.get<Record<string, number>>(keys[0] as string))?.['calls.web_fetch'], 20);
        // The one left is still there.
        assert.equal((await periscope.fetch(page('last'), { sessionId: 'readers' })).isError, false);
        assert.equal(
          errorOf(await periscope.fetch(page('over'), { sessionId: 'readers' }))?.code,
          'POLICY_DENIED',
        );
      } finally {
        await periscope.close();
        await store.close();
      }
    });
  });
}
