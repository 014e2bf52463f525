import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  expectProviderError,
  jsonReply,
  runProviderFailureSuite,
  type StandInHandler,
  type StandInReply,
  standInContext,
  startProviderStandIn,
  withStandIn,
} from '../../testing/provider-stand-in.ts';
import type { RecordedCall } from '../../testing/test-server.ts';
import { kagiSearchProvider as kagi } from './kagi.ts';

const KEY = 'kagi-test-token';
const settings = { apiKey: KEY };
const meta = { trace: 't1', node: 'us-central1', ms: 120 };

const v1Body = {
  meta: { ...meta, query: { raw: 'steve jobs', terms: 'steve jobs', workflow: 'search' } },
  data: {
    search: [
      {
        url: 'https://en.wikipedia.org/wiki/Steve_Jobs',
        title: 'Steve Jobs - Wikipedia',
        snippet: 'Steven Paul Jobs (February 24, 1955 – October 5, 2011) was an American businessman.',
        time: '2024-11-29T03:54:26Z',
        props: { sort_group_id: 'wikipedia.org' },
      },
      {
        url: 'https://www.billboard.com/pro/iphone',
        title: 'iPhone Turns 10',
        image: { url: 'x' },
        props: {},
      },
    ],
    video: [{ url: 'https://www.youtube.com/watch?v=1', title: 'Not a web result' }],
  },
};

const v0Body = {
  meta: { id: 'id1', node: 'us-central1', ms: 213, api_balance: 123.456 },
  data: [
    {
      t: 0,
      url: 'https://en.wikipedia.org/wiki/Steve_Jobs',
      title: 'Steve Jobs - Wikipedia',
      snippet: 'Steven Paul Jobs was an American businessman.',
      published: '2024-09-30T00:00:00Z',
      thumbnail: { url: '/proxy/steve.jpg', width: 310, height: 300 },
    },
    { t: 1, list: ['steve jobs death', 'steve jobs quotes'] },
  ],
};

/** The stand-in accepts both schemes, as Kagi's docs disagree (Bot in the spec and help center, Bearer in 2026 clients). */
function authorised(call: RecordedCall): boolean {
  return call.headers.authorization === `Bot ${KEY}` || call.headers.authorization === `Bearer ${KEY}`;
}

const unauthorized = jsonReply({ meta, error: { code: 2, msg: 'Unauthorized' } }, 401);

/** `POST /api/v1/search Bot <key>`: each request's method, path and Authorization. */
const sent = (calls: readonly RecordedCall[]) =>
  calls.map((call) => `${call.method} ${call.url.pathname} ${call.headers.authorization}`);

function kagiStandIn(v1: (call: RecordedCall) => StandInReply) {
  return startProviderStandIn((call) => {
    if (!authorised(call)) return unauthorized;
    if (call.method === 'POST' && call.url.pathname === '/api/v1/search') return v1(call);
    if (call.method === 'GET' && call.url.pathname === '/api/v0/search') return jsonReply(v0Body);
    return jsonReply({ meta, error: [{ code: 404, message: 'Not found' }] }, 404);
  });
}

test('kagi v1: POST /api/v1/search with Authorization: Bot, data.search mapped', async () => {
  const server = await kagiStandIn(() => jsonReply(v1Body));
  try {
    const response = await kagi.search!(
      { query: 'steve jobs', count: 5, freshness: 'week' },
      standInContext(server, settings),
    );
    assert.deepEqual(response.results, [
      {
        title: 'Steve Jobs - Wikipedia',
        url: 'https://en.wikipedia.org/wiki/Steve_Jobs',
        snippet: 'Steven Paul Jobs (February 24, 1955 – October 5, 2011) was an American businessman.',
        publishedAt: '2024-11-29T03:54:26Z',
      },
      { title: 'iPhone Turns 10', url: 'https://www.billboard.com/pro/iphone', snippet: '' },
    ]);
    assert.equal(response.warnings, undefined);
    assert.equal(server.calls.length, 1);
    const [call] = server.calls;
    assert.equal(call?.method, 'POST');
    assert.equal(call?.url.pathname, '/api/v1/search');
    assert.equal(call?.headers.authorization, `Bot ${KEY}`);
    // The past week is `filters.after` a week back (v1 has no freshness field).
    const weekAgo = new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 10);
    const body = JSON.parse(call?.body ?? '');
    assert.ok(
      [weekAgo, new Date(Date.now() - 8 * 86_400_000).toISOString().slice(0, 10)].includes(
        body.filters?.after,
      ),
    );
    assert.deepEqual(
      { ...body, filters: undefined },
      { query: 'steve jobs', workflow: 'search', limit: 5, filters: undefined },
    );
  } finally {
    await server.close();
  }
});

test('kagi: authScheme Bearer (or a key that already names its scheme) is sent as such', async () => {
  const server = await kagiStandIn(() => jsonReply(v1Body));
  try {
    await kagi.search!(
      { query: 'q', count: 3 },
      standInContext(server, { ...settings, authScheme: 'Bearer' }),
    );
    await kagi.search!({ query: 'q', count: 3 }, standInContext(server, { apiKey: `Bearer ${KEY}` }));
    assert.deepEqual(
      server.calls.map((call) => call.headers.authorization),
      [`Bearer ${KEY}`, `Bearer ${KEY}`],
    );
  } finally {
    await server.close();
  }
});

test('kagi: when v1 refuses the key (invite-only), v0 answers; its api_balance becomes the quota note', async () => {
  const server = await kagiStandIn(() =>
    jsonReply(
      { meta, data: [], error: [{ code: 403, url: null, message: 'API v1 access is invite-only' }] },
      403,
    ),
  );
  try {
    const response = await kagi.search!({ query: 'steve jobs', count: 5 }, standInContext(server, settings));
    assert.deepEqual(response.results, [
      {
        title: 'Steve Jobs - Wikipedia',
        url: 'https://en.wikipedia.org/wiki/Steve_Jobs',
        snippet: 'Steven Paul Jobs was an American businessman.',
        publishedAt: '2024-09-30T00:00:00Z',
      },
    ]);
    assert.deepEqual(response.quota, { note: 'Kagi balance $123.46' });
    assert.deepEqual(
      server.calls.map((call) => `${call.method} ${call.url.pathname}`),
      ['POST /api/v1/search', 'GET /api/v0/search'],
    );
    const v0Call = server.calls[1];
    assert.equal(v0Call?.headers.authorization, `Bot ${KEY}`);
    assert.deepEqual(Object.fromEntries(v0Call?.url.searchParams ?? []), { q: 'steve jobs', limit: '5' });
  } finally {
    await server.close();
  }
});

test('kagi: apiVersion v0 goes straight to v0; a v1 5xx is not a reason to try v0', async () => {
  const server = await kagiStandIn(() => jsonReply({ meta, error: { code: 1, msg: 'Internal error' } }, 500));
  try {
    const v0 = await kagi.search!(
      { query: 'q', count: 3 },
      standInContext(server, { ...settings, apiVersion: 'v0' }),
    );
    assert.equal(v0.results.length, 1);
    await expectProviderError(kagi.search!({ query: 'q', count: 3 }, standInContext(server, settings)), {
      code: 'HTTP_STATUS',
      retryable: true,
      status: 500,
      message: ['Internal error'],
    });
    assert.deepEqual(
      server.calls.map((call) => call.url.pathname),
      ['/api/v0/search', '/api/v1/search'],
    );
  } finally {
    await server.close();
  }
});

test('kagi: an empty v1 answer is an empty list', async () => {
  const server = await kagiStandIn(() => jsonReply({ meta, data: { search: [] } }));
  try {
    const response = await kagi.search!({ query: 'zxqv', count: 3 }, standInContext(server, settings));
    assert.deepEqual(response.results, []);
  } finally {
    await server.close();
  }
});

test('kagi: an invalid key fails on v1 with both schemes, then on v0, and says so', async () => {
  await withStandIn(unauthorized, async (server) => {
    const error = await expectProviderError(
      kagi.search!({ query: 'q', count: 3 }, standInContext(server, settings)),
      {
        code: 'HTTP_STATUS',
        retryable: false,
        reason: 'invalid-key',
        message: ['Unauthorized', 'v1 answered 401'],
      },
    );
    assert.equal(error.details.v1Status, 401);
    assert.deepEqual(sent(server.calls), [
      `POST /api/v1/search Bot ${KEY}`,
      `POST /api/v1/search Bearer ${KEY}`,
      `GET /api/v0/search Bot ${KEY}`,
    ]);
  });
});

test('kagi: a v1 401 to Bot is retried once with Bearer; the scheme that worked is sent first from then on', async () => {
  const handler: StandInHandler = (call) => {
    if (call.url.pathname !== '/api/v1/search') return jsonReply(v0Body);
    return call.headers.authorization === `Bearer ${KEY}` ? jsonReply(v1Body) : unauthorized;
  };
  await withStandIn(handler, async (server) => {
    const first = await kagi.search!({ query: 'steve jobs', count: 5 }, standInContext(server, settings));
    assert.equal(first.results[0]?.title, 'Steve Jobs - Wikipedia');
    assert.equal(first.quota, undefined, 'v1 answers carry no balance');
    const again = await kagi.search!({ query: 'steve jobs', count: 5 }, standInContext(server, settings));
    assert.equal(again.results.length, 2);
    assert.deepEqual(sent(server.calls), [
      `POST /api/v1/search Bot ${KEY}`,
      `POST /api/v1/search Bearer ${KEY}`,
      `POST /api/v1/search Bearer ${KEY}`,
    ]);
  });
});

test('kagi: a key v1 refuses with both schemes is sent straight to v0 by later searches (one request, not three)', async () => {
  const handler: StandInHandler = (call) =>
    call.url.pathname === '/api/v1/search' ? unauthorized : jsonReply(v0Body);
  await withStandIn(handler, async (server) => {
    for (let index = 0; index < 2; index++) {
      const response = await kagi.search!({ query: 'q', count: 3 }, standInContext(server, settings));
      assert.deepEqual(response.quota, { note: 'Kagi balance $123.46' });
    }
    // Another key on the same endpoint is not taken for refused.
    await kagi.search!({ query: 'q', count: 3 }, standInContext(server, { apiKey: 'other-key' }));
    assert.deepEqual(sent(server.calls), [
      `POST /api/v1/search Bot ${KEY}`,
      `POST /api/v1/search Bearer ${KEY}`,
      `GET /api/v0/search Bot ${KEY}`,
      `GET /api/v0/search Bot ${KEY}`,
      'POST /api/v1/search Bot other-key',
      'POST /api/v1/search Bearer other-key',
      'GET /api/v0/search Bot other-key',
    ]);
  });
});

test('kagi: once v1 refused a key, a v0 failure still says what v1 answered; apiVersion v1 still asks v1', async () => {
  let v0Down = false;
  const handler: StandInHandler = (call) => {
    if (call.url.pathname === '/api/v1/search') return unauthorized;
    return v0Down
      ? jsonReply({ meta, error: [{ code: 1, message: 'Internal error' }] }, 500)
      : jsonReply(v0Body);
  };
  await withStandIn(handler, async (server) => {
    await kagi.search!({ query: 'q', count: 3 }, standInContext(server, settings));
    v0Down = true;
    const error = await expectProviderError(
      kagi.search!({ query: 'q', count: 3 }, standInContext(server, settings)),
      { code: 'HTTP_STATUS', status: 500, message: ['Internal error', 'v1 answered 401 before'] },
    );
    assert.equal(error.details.v1Status, 401);
    await expectProviderError(
      kagi.search!({ query: 'q', count: 3 }, standInContext(server, { ...settings, apiVersion: 'v1' })),
      { code: 'HTTP_STATUS', status: 401 },
    );
    assert.deepEqual(sent(server.calls).slice(3), [
      `GET /api/v0/search Bot ${KEY}`,
      `POST /api/v1/search Bot ${KEY}`,
      `POST /api/v1/search Bearer ${KEY}`,
    ]);
  });
});

test('kagi: a pinned scheme (authScheme, or a key with its scheme) is not switched: a 401 goes to v0', async () => {
  const handler: StandInHandler = (call) => {
    if (call.url.pathname !== '/api/v1/search') return jsonReply(v0Body);
    return call.headers.authorization === `Bearer ${KEY}` ? jsonReply(v1Body) : unauthorized;
  };
  await withStandIn(handler, async (server) => {
    const pinned = await kagi.search!(
      { query: 'q', count: 3 },
      standInContext(server, { ...settings, authScheme: 'Bot' }),
    );
    assert.deepEqual(pinned.quota, { note: 'Kagi balance $123.46' });
    // The same Authorization (the scheme in the key this time): v1 refused it already, so v0 straight away.
    await kagi.search!({ query: 'q', count: 3 }, standInContext(server, { apiKey: `Bot ${KEY}` }));
    assert.deepEqual(sent(server.calls), [
      `POST /api/v1/search Bot ${KEY}`,
      `GET /api/v0/search Bot ${KEY}`,
      `GET /api/v0/search Bot ${KEY}`,
    ]);
  });
});

runProviderFailureSuite({
  provider: kagi,
  settings,
  invalidKey: { reply: unauthorized, message: 'Unauthorized' },
  rateLimitedBody: { meta, data: [], error: [{ code: 429, url: null, message: 'Too many requests' }] },
  quota: {
    reply: jsonReply(
      {
        meta,
        data: null,
        error: [{ code: 1, msg: 'Insufficient credit to perform this request.', ref: null }],
      },
      402,
    ),
    message: 'Insufficient credit',
  },
});

test('kagi v1 takes what its spec documents: workflow news (data.news), filters.after/before/region, safe_search', async () => {
  const newsBody = {
    meta,
    data: {
      news: [
        {
          url: 'https://news.example/a',
          title: 'Kagi news hit',
          snippet: 'News.',
          time: '2025-03-10T08:00:00Z',
        },
      ],
      search: [{ url: 'https://web.example/', title: 'Not news' }],
    },
  };
  const server = await kagiStandIn(() => jsonReply(newsBody));
  try {
    const response = await kagi.search!(
      {
        query: 'kagi',
        count: 5,
        topic: 'news',
        after: '2025-03-01',
        before: '2025-03-31',
        region: 'DE',
        safeSearch: 'off',
      },
      standInContext(server, settings),
    );
    assert.deepEqual(response.results, [
      {
        title: 'Kagi news hit',
        url: 'https://news.example/a',
        snippet: 'News.',
        publishedAt: '2025-03-10T08:00:00Z',
      },
    ]);
    assert.equal(response.warnings, undefined);
    assert.deepEqual(JSON.parse(server.calls[0]?.body ?? ''), {
      query: 'kagi',
      workflow: 'news',
      limit: 5,
      filters: { after: '2025-03-01', before: '2025-03-31', region: 'de' },
      safe_search: false,
    });
  } finally {
    await server.close();
  }
});

test('kagi v1: an offset reads page 1 without limit (its size), then the page holding the offset: offset 12, count 5 is results 13–17', async () => {
  const server = await kagiStandIn((call) => {
    const page = Number(JSON.parse(call.body).page ?? 1);
    const search = Array.from({ length: 10 }, (_, index) => {
      const n = (page - 1) * 10 + index + 1;
      return { url: `https://r${n}.example/`, title: `R${n}`, snippet: '' };
    });
    return jsonReply({ meta, data: { search } });
  });
  try {
    const response = await kagi.search!(
      { query: 'q', count: 5, offset: 12 },
      standInContext(server, settings),
    );
    assert.deepEqual(
      response.results.map((result) => result.title),
      ['R13', 'R14', 'R15', 'R16', 'R17'],
    );
    assert.deepEqual(
      server.calls.map((call) => JSON.parse(call.body)),
      [
        { query: 'q', workflow: 'search' },
        { query: 'q', workflow: 'search', page: 2 },
      ],
    );
  } finally {
    await server.close();
  }
});

test('kagi on v0 (v1 refused the key): news is refused as a parameter v0 lacks, and the chain skips to the next provider saying so', async () => {
  const server = await kagiStandIn(() => unauthorized);
  try {
    await expectProviderError(
      kagi.search!(
        { query: 'q', count: 3, topic: 'news' },
        standInContext(server, { ...settings, apiVersion: 'v0' }),
      ),
      { code: 'INVALID_INPUT', reason: 'unsupported-parameter', message: ['cannot search news on v0'] },
    );
    assert.equal(server.calls.length, 0);
  } finally {
    await server.close();
  }
});

test('kagi on v0: a date range keeps dated results inside it and drops undated ones (v0 cannot search by date), said in a warning', async () => {
  const server = await kagiStandIn(() => unauthorized);
  try {
    const response = await kagi.search!(
      { query: 'q', count: 5, after: '2024-09-01', before: '2024-12-31', offset: 5 },
      standInContext(server, { ...settings, apiVersion: 'v0' }),
    );
    assert.deepEqual(
      response.results.map((result) => result.url),
      ['https://en.wikipedia.org/wiki/Steve_Jobs'],
    );
    assert.deepEqual(response.warnings, [
      'kagi v0 cannot page results: offset 5 was ignored, these are its first results',
      'kagi v0 cannot search by date: its results were kept to 2024-09-01 to 2024-12-31 by their dates',
    ]);
  } finally {
    await server.close();
  }
});
