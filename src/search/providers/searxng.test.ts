import assert from 'node:assert/strict';
import { test } from 'node:test';
import { providersSchema, searchSchema } from '../../config/search-schema.ts';
import { createPeriscope } from '../../index.ts';
import { createHttpClient } from '../../net/http-client.ts';
import { createLoopbackConnectGuard } from '../../testing/connect-guard.ts';
import { openEnvelope } from '../../testing/envelope.ts';
import {
  expectProviderError,
  jsonReply,
  runProviderFailureSuite,
  standInContext,
  startProviderStandIn,
  withStandIn,
} from '../../testing/provider-stand-in.ts';
import type { ImageSearchData } from '../../tools/image-search.ts';
import { createSearchChain } from '../chain.ts';
import { searxngSearchProvider as searxng } from './searxng.ts';

function answer(results: unknown[], unresponsive: unknown[] = []) {
  return {
    query: 'python',
    number_of_results: 116000000,
    results,
    answers: [],
    corrections: [],
    infoboxes: [],
    suggestions: ['python turtle'],
    unresponsive_engines: unresponsive,
  };
}

test('searxng search: format=json on the instance path, language with region, time_range; results as given', async () => {
  const reply = jsonReply(
    answer([
      {
        url: 'https://www.python.org/',
        title: 'Welcome to Python.org',
        content: 'Python is a versatile and powerful language.',
        engine: 'bing',
        engines: ['bing', 'qwant'],
        positions: [1, 1],
        score: 9,
        category: 'general',
        parsed_url: ['https', 'www.python.org', '/', '', '', ''],
        template: 'default.html',
        publishedDate: '2024-05-01T00:00:00',
      },
      { url: 'https://docs.python.org/3/', title: 'Python docs', content: '', category: 'general' },
      { url: 'https://third.example/', title: 'Third', content: 'cut by count' },
    ]),
  );
  await withStandIn(reply, async (server) => {
    const context = standInContext(undefined, { baseUrl: `${server.url}/searx/` });
    const response = await searxng.search!(
      { query: 'python', count: 2, language: 'DE', region: 'at', freshness: 'year' },
      context,
    );
    assert.deepEqual(response.results, [
      {
        title: 'Welcome to Python.org',
        url: 'https://www.python.org/',
        snippet: 'Python is a versatile and powerful language.',
        publishedAt: '2024-05-01T00:00:00',
      },
      { title: 'Python docs', url: 'https://docs.python.org/3/', snippet: '' },
    ]);
    assert.equal(response.warnings, undefined);
    const [call] = server.calls;
    assert.equal(call?.method, 'GET');
    assert.equal(call?.url.pathname, '/searx/search');
    assert.equal(call?.headers.authorization, undefined);
    assert.deepEqual(Object.fromEntries(call?.url.searchParams ?? []), {
      format: 'json',
      pageno: '1',
      q: 'python',
      categories: 'general',
      language: 'de-AT',
      time_range: 'year',
    });
  });
});

test('searxng search: an empty answer is an empty list; a region without language is a warning', async () => {
  await withStandIn(jsonReply(answer([])), async (server) => {
    const response = await searxng.search!(
      { query: 'zxqv', count: 5, region: 'us' },
      standInContext(server, {}),
    );
    assert.deepEqual(response.results, []);
    assert.deepEqual(response.warnings, ['searxng does not support region without language (us ignored)']);
  });
});

test('searxng: no results while upstream engines failed is BLOCKED_BY_SITE, never "no results"', async () => {
  const reply = jsonReply(
    answer(
      [],
      [
        ['google', 'CAPTCHA'],
        ['duckduckgo', 'Suspended: too many requests'],
      ],
    ),
  );
  await withStandIn(reply, async (server) => {
    await expectProviderError(searxng.search!({ query: 'q', count: 5 }, standInContext(server, {})), {
      code: 'BLOCKED_BY_SITE',
      retryable: true,
      reason: 'engines-unresponsive',
      message: ['google: CAPTCHA', 'duckduckgo: Suspended: too many requests'],
    });
  });
});

test('searxng: some results with some engines down is a warning', async () => {
  const reply = jsonReply(
    answer([{ url: 'https://a.example/', title: 'A', content: 'a' }], [['google', 'timeout']]),
  );
  await withStandIn(reply, async (server) => {
    const response = await searxng.search!({ query: 'q', count: 5 }, standInContext(server, {}));
    assert.equal(response.results.length, 1);
    assert.deepEqual(response.warnings, ['searxng engines unresponsive: google: timeout']);
  });
});

test('searxng images: categories=images, img_src made absolute, resolution read', async () => {
  const reply = jsonReply(
    answer([
      {
        url: 'https://photos.example/lion',
        title: 'A lion',
        img_src: '//images.example/lion.jpg',
        thumbnail_src: '/image_proxy?url=lion',
        resolution: '1920 x 1080',
        img_format: 'jpeg',
        template: 'images.html',
        category: 'images',
      },
      { url: 'https://photos.example/none', title: 'No image', category: 'images' },
    ]),
  );
  await withStandIn(reply, async (server) => {
    const response = await searxng.searchImages!(
      { query: 'lion', count: 5, type: 'photo' },
      standInContext(server, {}),
    );
    assert.deepEqual(response.results, [
      {
        title: 'A lion',
        imageUrl: 'http://images.example/lion.jpg',
        thumbnailUrl: `${server.url}/image_proxy?url=lion`,
        sourceUrl: 'https://photos.example/lion',
        width: 1920,
        height: 1080,
      },
    ]);
    assert.deepEqual(response.warnings, ['searxng does not support type (photo ignored)']);
    assert.equal(server.calls.length, 1);
    const [call] = server.calls;
    assert.equal(call?.method, 'GET');
    assert.equal(call?.url.pathname, '/search');
    assert.equal(call?.headers.authorization, undefined);
    assert.equal(call?.headers.accept, 'application/json');
    assert.deepEqual(Object.fromEntries(call?.url.searchParams ?? []), {
      format: 'json',
      pageno: '1',
      q: 'lion',
      categories: 'images',
    });
  });
});

/** An image hit as a self-hosted instance gives it: img_src and thumbnail_src through its own image_proxy. */
function proxiedImage(name: string, extra: Record<string, unknown> = {}) {
  return {
    url: `https://photos.example/${name}`,
    title: `A ${name}`,
    img_src: `/image_proxy?url=${name}.jpg`,
    thumbnail_src: `/image_proxy?url=${name}-thumb.jpg`,
    resolution: '800 x 600',
    template: 'images.html',
    category: 'images',
    ...extra,
  };
}

function instanceChain(baseUrl: string) {
  return createSearchChain({
    search: searchSchema.parse({ chain: ['searxng'], timeoutMs: 3000 }),
    providers: providersSchema.parse({ searxng: { baseUrl, minIntervalMs: 0 } }),
    env: {},
    httpFetch: createHttpClient({ beforeConnect: createLoopbackConnectGuard().beforeConnect }),
  });
}

test('searxng images on a self-hosted instance at 127.0.0.1: URLs on the instance are kept; other private URLs are dropped, said in warnings', async () => {
  const reply = jsonReply(
    answer([
      proxiedImage('lion'),
      proxiedImage('fox', {
        img_src: 'https://images.example/fox.jpg',
        thumbnail_src: 'http://10.1.2.3/t.jpg',
      }),
      proxiedImage('lan', { img_src: 'http://192.168.1.20/lan.jpg' }),
      proxiedImage('other-port', { img_src: 'http://127.0.0.1:1/elsewhere.jpg' }),
    ]),
  );
  await withStandIn(reply, async (server) => {
    const base = `${server.url}/searx/`;
    const answer = await instanceChain(base).searchImages({ query: 'lion', count: 10 });
    assert.equal(answer.provider, 'searxng');
    assert.deepEqual(answer.results, [
      {
        title: 'A lion',
        imageUrl: `${server.url}/image_proxy?url=lion.jpg`,
        thumbnailUrl: `${server.url}/image_proxy?url=lion-thumb.jpg`,
        sourceUrl: 'https://photos.example/lion',
        width: 800,
        height: 600,
      },
      {
        // A private thumbnail alone costs the thumbnail, not the result.
        title: 'A fox',
        imageUrl: 'https://images.example/fox.jpg',
        sourceUrl: 'https://photos.example/fox',
        width: 800,
        height: 600,
      },
    ]);
    assert.deepEqual(answer.warnings, [
      'searxng gave 2 image results on a private or local address, dropped (network.allowPrivateNetwork opens such ranges)',
    ]);
    assert.equal(answer.attempts[0]?.results, 2);
  });
});

test('image_search through a SearXNG on 127.0.0.1: its own images are shown, and when every answer is dropped the tool says so instead of "No images found"', async () => {
  const bodies = [
    answer([proxiedImage('lion')]),
    answer([
      proxiedImage('lan', { img_src: 'http://192.168.1.20/lan.jpg' }),
      proxiedImage('meta', { img_src: 'http://169.254.169.254/latest' }),
    ]),
  ];
  const server = await startProviderStandIn(() => jsonReply(bodies.shift() ?? answer([])));
  const periscope = createPeriscope(
    {
      search: { chain: ['searxng'] },
      providers: { searxng: { baseUrl: server.url, minIntervalMs: 0 } },
      cache: { enabled: false },
    },
    { env: {} },
  );
  try {
    const shown = await periscope.imageSearch({ query: 'lion', count: 5 });
    assert.equal(shown.isError, false, shown.output);
    const envelope = openEnvelope(shown.output);
    assert.equal(envelope.before, 'Image results for: lion\n\n');
    assert.equal(
      envelope.body,
      [
        '1. A lion',
        `   ${server.url}/image_proxy?url=lion.jpg`,
        '   source: https://photos.example/lion (800×600)',
      ].join('\n'),
    );
    const dropped = await periscope.imageSearch({ query: 'intranet', count: 5 });
    assert.equal(dropped.isError, false, dropped.output);
    const data = dropped.data as ImageSearchData;
    assert.deepEqual(data.results, []);
    assert.deepEqual(data.warnings, [
      'searxng gave 2 image results on a private or local address, dropped (network.allowPrivateNetwork opens such ranges)',
    ]);
    assert.doesNotMatch(dropped.output, /No images found|answered with none/);
    assert.equal(
      dropped.output,
      `Image results for: intranet\n\nNo images to show (searxng): ${data.warnings[0]}.`,
    );
  } finally {
    await periscope.close();
    await server.close();
  }
});

test('searxng: no instance URL is NOT_CONFIGURED; a 403 for format=json says how to enable it', async () => {
  assert.equal(searxng.isConfigured({}), false);
  await expectProviderError(searxng.search!({ query: 'q', count: 3 }, standInContext(undefined, {})), {
    code: 'NOT_CONFIGURED',
    message: ['SEARXNG_BASE_URL'],
  });
  await withStandIn({ status: 403, body: '<h1>Forbidden</h1>' }, async (server) => {
    await expectProviderError(searxng.search!({ query: 'q', count: 3 }, standInContext(server, {})), {
      code: 'HTTP_STATUS',
      retryable: false,
      status: 403,
      message: ['format=json', 'settings.yml'],
    });
  });
});

runProviderFailureSuite({
  provider: searxng,
  settings: {},
  rateLimitedBody: 'Too Many Requests',
});

// Keyless (the instance URL is the only setting): no invalid-key case; its 403 for format=json is tested above.
runProviderFailureSuite({
  provider: searxng,
  label: 'images',
  settings: {},
  call: (context) => searxng.searchImages!({ query: 'lion', count: 3 }, context),
  empty: jsonReply(answer([])),
  rateLimitedBody: 'Too Many Requests',
});

/** An instance that pages by `size`: page n holds results (n-1)·size+1 … n·size, `total` in all. */
function pagedInstance(size: number, total: number) {
  return startProviderStandIn((call) => {
    const pageno = Number(call.url.searchParams.get('pageno') ?? '1');
    const first = (pageno - 1) * size + 1;
    const numbers = Array.from({ length: size }, (_, index) => first + index).filter((n) => n <= total);
    return jsonReply(
      answer(numbers.map((n) => ({ url: `https://r${n}.example/`, title: `R${n}`, content: `result ${n}` }))),
    );
  });
}

const titles = (results: readonly { title: string }[]) => results.map((result) => result.title);
const pagenos = (calls: readonly { url: URL }[]) => calls.map((call) => call.url.searchParams.get('pageno'));

test('searxng: offset 3, count 5 on an instance paging by 5 reads pages 1 and 2 and gives results 4–8, without a warning', async () => {
  const server = await pagedInstance(5, 40);
  try {
    const response = await searxng.search!({ query: 'q', count: 5, offset: 3 }, standInContext(server, {}));
    assert.deepEqual(titles(response.results), ['R4', 'R5', 'R6', 'R7', 'R8']);
    assert.equal(response.warnings, undefined);
    assert.deepEqual(pagenos(server.calls), ['1', '2']);
  } finally {
    await server.close();
  }
});

test('searxng: offset 12, count 5 jumps to the page holding it (page 1 shows the size): results 13–17', async () => {
  const server = await pagedInstance(5, 40);
  try {
    const response = await searxng.search!({ query: 'q', count: 5, offset: 12 }, standInContext(server, {}));
    assert.deepEqual(titles(response.results), ['R13', 'R14', 'R15', 'R16', 'R17']);
    assert.deepEqual(pagenos(server.calls), ['1', '3', '4']);
  } finally {
    await server.close();
  }
});

test('searxng: a count above one page reads the pages after it; the last page ends the reading', async () => {
  const server = await pagedInstance(5, 12);
  try {
    const response = await searxng.search!({ query: 'q', count: 15 }, standInContext(server, {}));
    assert.deepEqual(
      titles(response.results),
      Array.from({ length: 12 }, (_, index) => `R${index + 1}`),
    );
    assert.equal(response.warnings, undefined);
    assert.deepEqual(pagenos(server.calls), ['1', '2', '3', '4']);
  } finally {
    await server.close();
  }
});

test('searxng: when the pages one search may read run out before the count, the warning says what came back', async () => {
  const server = await pagedInstance(2, 100);
  try {
    const response = await searxng.search!({ query: 'q', count: 20 }, standInContext(server, {}));
    assert.equal(response.results.length, 8);
    assert.deepEqual(response.warnings, [
      'searxng pages by 2 results and 4 pages were read: 8 of the 20 asked came back',
    ]);
  } finally {
    await server.close();
  }
});

test('searxng: time_range takes day, month and year; a week is asked as the month, with a warning', async () => {
  await withStandIn(jsonReply(answer([])), async (server) => {
    const response = await searxng.search!(
      { query: 'q', count: 5, freshness: 'week' },
      standInContext(server, {}),
    );
    assert.equal(server.calls[0]?.url.searchParams.get('time_range'), 'month');
    assert.deepEqual(response.warnings, [
      'searxng has no week time_range (day, month or year): the past month was asked instead',
    ]);
  });
});
