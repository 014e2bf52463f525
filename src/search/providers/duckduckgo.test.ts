// DuckDuckGo against a local stand-in that speaks its protocol: HTML endpoint, lite endpoint, the vqd + i.js image
// flow, and every way it turns bots away (202, the anomaly page served with 200). Asserts the normalised results
// and the requests sent.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import { providersSchema, searchSchema } from '../../config/search-schema.ts';
import { isPeriscopeError, type PeriscopeError } from '../../errors.ts';
import { createHttpClient } from '../../net/http-client.ts';
import { createLoopbackConnectGuard } from '../../testing/connect-guard.ts';
import {
  expectProviderError,
  runProviderFailureSuite,
  type StandInHandler,
  type StandInReply,
  standInContext,
  withStandIn,
} from '../../testing/provider-stand-in.ts';
import { startTestServer, type TestServer } from '../../testing/test-server.ts';
import { createSearchChain } from '../chain.ts';
import type { ProviderContext } from '../types.ts';
import { duckduckgoSearchProvider } from './duckduckgo.ts';

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
const RESULTS = fixture('duckduckgo-html-results.html');
const NO_RESULTS = fixture('duckduckgo-html-no-results.html');
const ANOMALY = fixture('duckduckgo-anomaly.html');
const LITE = fixture('duckduckgo-lite-results.html');
const VQD_PAGE = fixture('duckduckgo-vqd-page.html');
const IMAGES = fixture('duckduckgo-images.json');
const VQD = '3-320068370671196460038575011587633753929-199869977846294510399902480995708132308';
/** A results page whose snippet quotes the anti-bot page's words: text must never be taken for the page itself. */
const QUOTING_RESULTS = RESULTS.replace(
  'Go is an open source <b>programming</b>',
  'Unfortunately, bots use DuckDuckGo too. &lt;form id="challenge-form" action="anomaly.js"&gt; Go is an open source <b>programming</b>',
);

function html(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, { 'content-type': 'text/html; charset=UTF-8' }).end(body);
}

let server: TestServer;
before(async () => {
  server = await startTestServer({
    'POST /html/': (_request, response, body) => {
      const q = new URLSearchParams(body).get('q');
      if (q === 'blocked' || q === 'fallback') return html(response, 202, q === 'blocked' ? ANOMALY : '');
      if (q === 'challenge') return html(response, 200, ANOMALY);
      if (q === 'nothing') return html(response, 200, NO_RESULTS);
      if (q === 'outage') return html(response, 503, '<h1>503 Service Unavailable</h1>');
      if (q === 'weird')
        return html(response, 200, '<html><body><p>Something else entirely</p></body></html>');
      if (q === 'quoting') return html(response, 200, QUOTING_RESULTS);
      return html(response, 200, RESULTS);
    },
    'POST /lite/': (_request, response, body) => {
      const q = new URLSearchParams(body).get('q');
      if (q === 'fallback' || q === 'outage') return html(response, 200, LITE);
      return html(response, 202, ANOMALY);
    },
    'GET /': (request, response) => {
      const q = new URL(request.url ?? '/', 'http://x').searchParams.get('q');
      html(response, 200, q === 'guarded' ? ANOMALY : VQD_PAGE);
    },
    'GET /i.js': (request, response) => {
      const vqd = new URL(request.url ?? '/', 'http://x').searchParams.get('vqd');
      if (vqd !== VQD) return response.writeHead(403, { 'content-type': 'text/plain' }).end('Forbidden');
      response.writeHead(200, { 'content-type': 'application/json' }).end(IMAGES);
    },
  });
});
after(() => server.close());

const httpFetch = createHttpClient({ beforeConnect: createLoopbackConnectGuard().beforeConnect });

function context(settings: Record<string, unknown> = {}): ProviderContext {
  return {
    fetch: httpFetch,
    signal: new AbortController().signal,
    settings: { baseUrl: server.url, ...settings },
  };
}

function chain() {
  return createSearchChain({
    search: searchSchema.parse({ chain: ['duckduckgo'], timeoutMs: 3000 }),
    providers: providersSchema.parse({ duckduckgo: { baseUrl: server.url, minIntervalMs: 0 } }),
    env: {},
    httpFetch,
  });
}

function callsSince(start: number) {
  return server.calls
    .slice(start)
    .map((call) => ({ method: call.method, path: call.url.pathname, body: call.body }));
}

async function rejection(promise: Promise<unknown>): Promise<PeriscopeError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isPeriscopeError(error), String(error));
    return error;
  }
  assert.fail('expected a rejection');
}

test('HTML endpoint: results parsed and normalised, ads skipped, the form POST sent as DuckDuckGo expects', async () => {
  const start = server.calls.length;
  const answer = await chain().search({
    query: 'golang programming language',
    count: 10,
    region: 'de',
    freshness: 'week',
  });
  assert.equal(answer.provider, 'duckduckgo');
  assert.deepEqual(answer.results, [
    {
      title: 'The Go Programming Language',
      url: 'https://go.dev/',
      snippet:
        'Go is an open source programming language that makes it simple to build secure, scalable systems.',
    },
    {
      title: 'Go (programming language) - Wikipedia',
      url: 'https://en.wikipedia.org/wiki/Go_(programming_language)',
      snippet:
        'Go is a compiled, concurrent, and garbage-collected language designed at Google in 2009. It has a simple syntax, a large standard library, and two major implementations: a self-hosting compiler and a C++ frontend.',
    },
    {
      title: 'Golang Tutorial - Learn Go Programming Language - GeeksforGeeks',
      url: 'https://www.geeksforgeeks.org/go-language/golang-tutorial-learn-go-programming-language/',
      snippet: answer.results[2]?.snippet ?? '',
    },
  ]);
  assert.match(answer.results[2]?.snippet ?? '', /^This Golang tutorial provides you with all the insights/);
  assert.deepEqual(answer.warnings, []);
  assert.deepEqual(
    answer.attempts.map(({ provider, outcome, results }) => ({ provider, outcome, results })),
    [{ provider: 'duckduckgo', outcome: 'ok', results: 3 }],
  );
  const [call] = server.calls.slice(start);
  assert.equal(call?.method, 'POST');
  assert.equal(call?.url.pathname, '/html/');
  assert.equal(call?.headers['content-type'], 'application/x-www-form-urlencoded');
  assert.equal(call?.headers.referer, `${server.url}/`);
  assert.deepEqual(Object.fromEntries(new URLSearchParams(call?.body)), {
    q: 'golang programming language',
    b: '',
    kl: 'de-de',
    df: 'w',
  });
  assert.equal(server.calls.length, start + 1, 'one request, no lite fallback');
});

test('count caps the results; region us maps to kl us-en; language alone is a warning, not an error', async () => {
  const start = server.calls.length;
  const limited = await duckduckgoSearchProvider.search!({ query: 'go', count: 1, region: 'us' }, context());
  assert.equal(limited.results.length, 1);
  assert.equal(new URLSearchParams(server.calls[start]?.body).get('kl'), 'us-en');
  const warned = await duckduckgoSearchProvider.search!({ query: 'go', count: 5, language: 'de' }, context());
  assert.deepEqual(warned.warnings, [
    'duckduckgo does not support language without region (language=de ignored)',
  ]);
  assert.equal(new URLSearchParams(server.calls[start + 1]?.body).has('kl'), false);
});

test('HTTP 202 is BLOCKED_BY_SITE; the lite endpoint is tried next and its block is reported too', async () => {
  const start = server.calls.length;
  const error = await rejection(duckduckgoSearchProvider.search!({ query: 'blocked', count: 5 }, context()));
  assert.equal(error.code, 'BLOCKED_BY_SITE');
  assert.equal(error.retryable, true);
  assert.match(error.message, /POST http:\/\/127\.0\.0\.1:\d+\/html\/ answered 202/);
  assert.match(error.message, /then duckduckgo: POST http:\/\/127\.0\.0\.1:\d+\/lite\/ answered 202/);
  assert.deepEqual(
    callsSince(start).map(({ method, path }) => `${method} ${path}`),
    ['POST /html/', 'POST /lite/'],
  );
});

test('the anomaly page served with 200 is BLOCKED_BY_SITE (never "no results"), named by its marker', async () => {
  const error = await rejection(
    duckduckgoSearchProvider.search!({ query: 'challenge', count: 5 }, context({ surface: 'html' })),
  );
  assert.equal(error.code, 'BLOCKED_BY_SITE');
  assert.equal(error.details.status, 200);
  assert.equal(error.details.reason, 'challenge');
  assert.equal(error.details.marker, 'form#challenge-form');
  assert.match(error.message, /anti-bot challenge page/);
});

test('a snippet quoting the anti-bot page is a result, not a block', async () => {
  const answer = await duckduckgoSearchProvider.search!({ query: 'quoting', count: 5 }, context());
  assert.equal(answer.results.length, 3);
  assert.match(answer.results[0]?.snippet ?? '', /bots use DuckDuckGo too\. <form id="challenge-form"/);
});

test('the no-results page is an honest empty answer; an unrecognised page is not', async () => {
  const empty = await chain().search({ query: 'nothing', count: 5 });
  assert.deepEqual(empty.results, []);
  assert.equal(empty.attempts[0]?.outcome, 'ok');
  const error = await rejection(
    duckduckgoSearchProvider.search!({ query: 'weird', count: 5 }, context({ surface: 'html' })),
  );
  assert.equal(error.code, 'BLOCKED_BY_SITE');
  assert.equal(error.details.reason, 'unrecognised-page');
});

test('lite is the second surface: after a 202 or a 503 from the HTML endpoint its rows are read, ads skipped', async () => {
  for (const query of ['fallback', 'outage']) {
    const start = server.calls.length;
    const answer = await chain().search({ query, count: 5, freshness: 'day' });
    assert.deepEqual(
      answer.results.map((result) => [result.title, result.url, result.snippet]),
      [
        [
          'The Go Programming Language',
          'https://go.dev/',
          'Go is an open source programming language that makes it simple to build secure, scalable systems.',
        ],
        [
          'Go (programming language) - Wikipedia',
          'https://en.wikipedia.org/wiki/Go_(programming_language)',
          'Go is a compiled, concurrent, and garbage-collected language designed at Google in 2009.',
        ],
      ],
      query,
    );
    const calls = callsSince(start);
    assert.deepEqual(
      calls.map(({ path }) => path),
      ['/html/', '/lite/'],
    );
    assert.deepEqual(Object.fromEntries(new URLSearchParams(calls[1]?.body)), { q: query, df: 'd' });
  }
});

test('surface: html asks only the HTML endpoint; separate lite and images origins are honoured', async () => {
  const start = server.calls.length;
  await rejection(
    duckduckgoSearchProvider.search!({ query: 'fallback', count: 5 }, context({ surface: 'html' })),
  );
  assert.deepEqual(
    callsSince(start).map(({ path }) => path),
    ['/html/'],
  );
  const error = await rejection(
    duckduckgoSearchProvider.search!(
      { query: 'fallback', count: 5 },
      context({ surface: 'lite', liteBaseUrl: 'http://127.0.0.1:9/' }),
    ),
  );
  assert.equal(error.code, 'NETWORK');
});

test('images: the vqd token from the page, then i.js with it; results normalised, the requests as ddgs sends them', async () => {
  const start = server.calls.length;
  const answer = await chain().searchImages({
    query: 'minecraft',
    count: 2,
    size: 'large',
    type: 'photo',
    layout: 'wide',
  });
  assert.deepEqual(answer.results, [
    {
      title: 'Minecraft Earth - How to Craft and Smelt',
      imageUrl: 'https://www.gamepur.com/files/images/2019-11/minecraft-earth-how-to-craft-and-smelt.jpg',
      thumbnailUrl: 'https://tse2.explicit.bing.net/th?id=OIP.Gs1jkAe-9iVFH4-sNHSQoQHaFs&pid=Api',
      sourceUrl: 'https://www.gamepur.com/guide/44494-minecraft-earth-how-craft-smelt.html',
      width: 1214,
      height: 933,
    },
    {
      title: 'Minecraft Games - YouTube',
      imageUrl:
        'https://yt3.ggpht.com/a/AATXAJz0oohW9kRgg-jVmB21Om7QlRYj-ruAg7rNMZo_=s900-c-k-c0xffffffff-no-rj-mo',
      thumbnailUrl: 'https://tse2.explicit.bing.net/th?id=OIP.Dyrg83ia15HVb9ragpDxzQHaHa&pid=Api',
      sourceUrl: 'https://www.youtube.com/channel/UCPFEvlEIx4EyldIqNNe2x2g',
      width: 900,
      height: 900,
    },
  ]);
  const [page, images] = server.calls.slice(start);
  assert.equal(page?.method, 'GET');
  assert.equal(page?.url.pathname, '/');
  assert.equal(page?.url.searchParams.get('q'), 'minecraft');
  assert.equal(images?.url.pathname, '/i.js');
  assert.deepEqual(Object.fromEntries(images?.url.searchParams ?? []), {
    o: 'json',
    q: 'minecraft',
    l: 'wt-wt',
    vqd: VQD,
    p: '1',
    f: ',size:Large,,type:photo,layout:Wide,',
  });
  assert.equal(images?.headers.referer, `${server.url}/`);
  assert.equal(images?.headers['sec-fetch-mode'], 'cors');
});

test('images: a challenge instead of the vqd page is BLOCKED_BY_SITE', async () => {
  const error = await rejection(
    duckduckgoSearchProvider.searchImages!({ query: 'guarded', count: 5 }, context()),
  );
  assert.equal(error.code, 'BLOCKED_BY_SITE');
  assert.equal(error.details.reason, 'challenge');
});

test('it declares itself keyless, serialised and spaced', () => {
  assert.deepEqual(duckduckgoSearchProvider.keyEnv, []);
  assert.equal(duckduckgoSearchProvider.isConfigured({}), true);
  assert.equal(duckduckgoSearchProvider.maxConcurrent, 1);
  assert.ok(duckduckgoSearchProvider.minIntervalMs >= 1000);
});

// ---- One page per anti-bot marker that FORMATS.md lists, each served alone with 200 on both surfaces. ----

const page = (body: string, status = 200): StandInReply => ({
  status,
  headers: { 'content-type': 'text/html; charset=UTF-8' },
  body,
});
const bare = (inner: string) =>
  `<!DOCTYPE html><html lang="en-US"><head><title>DuckDuckGo</title></head><body>${inner}</body></html>`;

/** [marker as reported in the error, a page that carries only that marker]. */
const MARKER_PAGES: ReadonlyArray<[marker: string, body: string]> = [
  ['form#challenge-form', bare('<form id="challenge-form" method="POST"><button>Submit</button></form>')],
  [
    'anomaly.js challenge form',
    bare('<form action="//duckduckgo.com/anomaly.js?sv=html&amp;cc=botnet&amp;q=test" method="POST"></form>'),
  ],
  [
    'div.anomaly-modal__title',
    bare('<div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div>'),
  ],
  [
    'text "Please complete the following challenge to confirm this search was made by a human."',
    bare('<p>Please complete the following challenge to confirm this search was made by a human.</p>'),
  ],
  ['text "Select all squares containing a duck:"', bare('<p>Select all squares\n containing a duck:</p>')],
  ['div.anomaly-modal__box', bare('<div class="anomaly-modal__box"><input type="checkbox" /></div>')],
  [
    'img.anomaly-modal__image',
    bare('<img class="anomaly-modal__image" src="//duckduckgo.com/assets/anomaly/images/challenge/0.jpg" />'),
  ],
  // The d.js form of the block (recorded with 200 in 2023), in case a surface ever answers with it.
  ['DDG.deep.anomalyDetectionBlock', 'DDG.deep.anomalyDetectionBlock({"cc":"botnet","s":"d"});'],
];

for (const surface of ['html', 'lite'] as const) {
  for (const [marker, body] of MARKER_PAGES) {
    test(`${surface}: a page carrying only ${marker}, served with 200, is BLOCKED_BY_SITE`, async () => {
      await withStandIn(page(body), async (stand) => {
        const error = await expectProviderError(
          duckduckgoSearchProvider.search!({ query: 'test', count: 5 }, standInContext(stand, { surface })),
          { code: 'BLOCKED_BY_SITE', retryable: true, status: 200, reason: 'challenge' },
        );
        assert.equal(error.details.marker, marker);
        assert.deepEqual(
          stand.calls.map((call) => `${call.method} ${call.url.pathname}`),
          [`POST /${surface}/`],
        );
      });
    });
  }

  test(`${surface}: the whole anomaly page served with 200 is BLOCKED_BY_SITE`, async () => {
    await withStandIn(page(ANOMALY), async (stand) => {
      await expectProviderError(
        duckduckgoSearchProvider.search!({ query: 'test', count: 5 }, standInContext(stand, { surface })),
        { code: 'BLOCKED_BY_SITE', status: 200, reason: 'challenge', message: ['anti-bot challenge page'] },
      );
    });
  });

  test(`${surface}: HTTP 202 (empty, or with the anomaly page) is BLOCKED_BY_SITE`, async () => {
    for (const body of ['', ANOMALY]) {
      await withStandIn(page(body, 202), async (stand) => {
        await expectProviderError(
          duckduckgoSearchProvider.search!({ query: 'test', count: 5 }, standInContext(stand, { surface })),
          {
            code: 'BLOCKED_BY_SITE',
            retryable: true,
            status: 202,
            reason: 'status',
            message: [`POST ${stand.url}/${surface}/ answered 202`],
          },
        );
      });
    }
  });
}

test('images: the vqd page without a token but with the challenge words is BLOCKED_BY_SITE (challenge)', async () => {
  const reply = page(
    bare('<p>Please complete the following challenge to confirm this search was made by a human.</p>'),
  );
  await withStandIn(reply, async (stand) => {
    await expectProviderError(
      duckduckgoSearchProvider.searchImages!({ query: 'q', count: 3 }, standInContext(stand, {})),
      { code: 'BLOCKED_BY_SITE', reason: 'challenge' },
    );
  });
});

// ---- The shared provider failure suite: 429 + Retry-After, 5xx, empty answer, malformed body, slow answer. ----

/** The lite endpoint's answer when nothing matches, in its documented table layout. */
const LITE_NO_RESULTS = bare(
  "<form action='/lite/' method='post'><input name='q' value='zxqv'></form><table border='0'><tr><td>No results.</td></tr></table>",
);
/** A page cut off in the middle of its first result. */
const TRUNCATED = RESULTS.slice(0, RESULTS.indexOf('class="result__a"') + 10);

for (const [surface, empty] of [
  ['html', NO_RESULTS],
  ['lite', LITE_NO_RESULTS],
] as const) {
  runProviderFailureSuite({
    provider: duckduckgoSearchProvider,
    label: `web (${surface} surface)`,
    settings: { surface },
    rateLimitedBody: bare('<h1>429 Too Many Requests</h1>'),
    serverError: page('<h1>500 Internal Server Error</h1>', 500),
    empty: page(empty),
    malformed: {
      reply: page(TRUNCATED),
      expected: {
        code: 'BLOCKED_BY_SITE',
        status: 200,
        reason: 'unrecognised-page',
        message: ['duckduckgo', 'neither results nor a no-results notice'],
      },
    },
  });
}

const imagesCall = (context: ProviderContext) =>
  duckduckgoSearchProvider.searchImages!({ query: 'minecraft', count: 3 }, context);
const jsonHeaders = { 'content-type': 'application/json' };

/** i.js gets the case's reply; the vqd page is served as recorded. */
runProviderFailureSuite({
  provider: duckduckgoSearchProvider,
  label: 'images (i.js)',
  settings: {},
  call: imagesCall,
  serve: (reply) => (call) => (call.url.pathname === '/i.js' ? reply : page(VQD_PAGE)),
  rateLimitedBody: 'Too Many Requests',
  empty: {
    status: 200,
    headers: jsonHeaders,
    body: JSON.stringify({
      ads: null,
      next: 'i.js?q=zxqv&o=json&p=1&s=100&u=bing&f=,,,,,&l=us-en',
      query: 'zxqv',
      queryEncoded: 'zxqv',
      response_type: 'places',
      results: [],
      vqd: { zxqv: VQD },
    }),
  },
  malformed: {
    reply: {
      status: 200,
      headers: jsonHeaders,
      body: '{"ads":null,"results":[{"height":933,"image":"https://',
    },
    expected: {
      code: 'HTTP_STATUS',
      retryable: true,
      reason: 'malformed-json',
      message: ['duckduckgo', '/i.js?', 'malformed JSON'],
    },
  },
});

/** The vqd page gets the case's reply (i.js is never reached). */
runProviderFailureSuite({
  provider: duckduckgoSearchProvider,
  label: 'images (vqd page)',
  settings: {},
  call: imagesCall,
  rateLimitedBody: bare('<h1>429 Too Many Requests</h1>'),
  malformed: {
    reply: page(VQD_PAGE.replace(/vqd=/g, 'vq=')),
    expected: { code: 'BLOCKED_BY_SITE', reason: 'no-vqd', message: ['no vqd token'] },
  },
});

test('images: i.js JSON without a results array is an unexpected-shape error, not "no images"', async () => {
  const handler: StandInHandler = (call) =>
    call.url.pathname === '/i.js'
      ? { status: 200, headers: jsonHeaders, body: '{"ads":null,"response_type":"places"}' }
      : page(VQD_PAGE);
  await withStandIn(handler, async (stand) => {
    await expectProviderError(imagesCall(standInContext(stand, {})), {
      code: 'HTTP_STATUS',
      reason: 'unexpected-shape',
      message: ['without a results array'],
    });
  });
});
