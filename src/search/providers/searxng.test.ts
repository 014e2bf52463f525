import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  expectProviderError,
  jsonReply,
  runProviderFailureSuite,
  standInContext,
  startProviderStandIn,
} from '../../testing/provider-stand-in.ts';
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
  const server = await startProviderStandIn(() =>
    jsonReply(
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
    ),
  );
  try {
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
  } finally {
    await server.close();
  }
});

test('searxng search: an empty answer is an empty list; a region without language is a warning', async () => {
  const server = await startProviderStandIn(() => jsonReply(answer([])));
  try {
    const response = await searxng.search!(
      { query: 'zxqv', count: 5, region: 'us' },
      standInContext(server, {}),
    );
    assert.deepEqual(response.results, []);
    assert.deepEqual(response.warnings, ['searxng does not support region without language (us ignored)']);
  } finally {
    await server.close();
  }
});

test('searxng: no results while upstream engines failed is BLOCKED_BY_SITE, never "no results"', async () => {
  const server = await startProviderStandIn(() =>
    jsonReply(
      answer(
        [],
        [
          ['google', 'CAPTCHA'],
          ['duckduckgo', 'Suspended: too many requests'],
        ],
      ),
    ),
  );
  try {
    await expectProviderError(searxng.search!({ query: 'q', count: 5 }, standInContext(server, {})), {
      code: 'BLOCKED_BY_SITE',
      retryable: true,
      reason: 'engines-unresponsive',
      message: ['google: CAPTCHA', 'duckduckgo: Suspended: too many requests'],
    });
  } finally {
    await server.close();
  }
});

test('searxng: some results with some engines down is a warning', async () => {
  const server = await startProviderStandIn(() =>
    jsonReply(answer([{ url: 'https://a.example/', title: 'A', content: 'a' }], [['google', 'timeout']])),
  );
  try {
    const response = await searxng.search!({ query: 'q', count: 5 }, standInContext(server, {}));
    assert.equal(response.results.length, 1);
    assert.deepEqual(response.warnings, ['searxng engines unresponsive: google: timeout']);
  } finally {
    await server.close();
  }
});

test('searxng images: categories=images, img_src made absolute, resolution read', async () => {
  const server = await startProviderStandIn(() =>
    jsonReply(
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
    ),
  );
  try {
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
    assert.equal(server.calls[0]?.url.searchParams.get('categories'), 'images');
  } finally {
    await server.close();
  }
});

test('searxng: no instance URL is NOT_CONFIGURED; a 403 for format=json says how to enable it', async () => {
  assert.equal(searxng.isConfigured({}), false);
  await expectProviderError(searxng.search!({ query: 'q', count: 3 }, standInContext(undefined, {})), {
    code: 'NOT_CONFIGURED',
    message: ['SEARXNG_BASE_URL'],
  });
  const server = await startProviderStandIn(() => ({ status: 403, body: '<h1>Forbidden</h1>' }));
  try {
    await expectProviderError(searxng.search!({ query: 'q', count: 3 }, standInContext(server, {})), {
      code: 'HTTP_STATUS',
      retryable: false,
      status: 403,
      message: ['format=json', 'settings.yml'],
    });
  } finally {
    await server.close();
  }
});

runProviderFailureSuite({
  provider: searxng,
  settings: {},
  rateLimitedBody: 'Too Many Requests',
});
