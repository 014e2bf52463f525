import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  jsonReply,
  runProviderFailureSuite,
  standInContext,
  withStandIn,
} from '../../testing/provider-stand-in.ts';
import { serperSearchProvider as serper } from './serper.ts';

const settings = { apiKey: 'serper-test-key' };

test('serper search: organic[].link is the url, credits noted, and the body we sent', async () => {
  const reply = jsonReply({
    searchParameters: { q: 'apple inc', gl: 'us', hl: 'en', type: 'search', num: 2, engine: 'google' },
    knowledgeGraph: { title: 'Apple', type: 'Technology company' },
    organic: [
      {
        title: 'Apple',
        link: 'https://www.apple.com/',
        snippet: 'Discover the innovative world of Apple.',
        sitelinks: [{ title: 'Support', link: 'https://support.apple.com/' }],
        position: 1,
      },
      {
        title: 'Apple Inc. - Wikipedia',
        link: 'https://en.wikipedia.org/wiki/Apple_Inc.',
        snippet: 'Apple Inc. is an American multinational technology company.',
        date: 'Nov 11, 2022',
        position: 2,
      },
    ],
    peopleAlsoAsk: [],
    relatedSearches: [{ query: 'Apple Inc competitors' }],
    credits: 1,
  });
  await withStandIn(reply, async (server) => {
    const response = await serper.search!(
      { query: 'apple inc', count: 2, region: 'US', language: 'en', freshness: 'year' },
      standInContext(server, settings),
    );
    assert.deepEqual(response.results, [
      { title: 'Apple', url: 'https://www.apple.com/', snippet: 'Discover the innovative world of Apple.' },
      {
        title: 'Apple Inc. - Wikipedia',
        url: 'https://en.wikipedia.org/wiki/Apple_Inc.',
        snippet: 'Apple Inc. is an American multinational technology company.',
        publishedAt: 'Nov 11, 2022',
      },
    ]);
    assert.deepEqual(response.quota, { note: '1 credit used' });
    const [call] = server.calls;
    assert.equal(call?.method, 'POST');
    assert.equal(call?.url.pathname, '/search');
    assert.equal(call?.headers['x-api-key'], 'serper-test-key');
    assert.deepEqual(JSON.parse(call?.body ?? ''), {
      q: 'apple inc',
      num: 2,
      gl: 'us',
      hl: 'en',
      tbs: 'qdr:y',
    });
  });
});

test('serper search: no organic section is an empty list', async () => {
  const reply = jsonReply({ searchParameters: { q: 'zxqv', type: 'search' }, credits: 1 });
  await withStandIn(reply, async (server) => {
    const response = await serper.search!({ query: 'zxqv', count: 5 }, standInContext(server, settings));
    assert.deepEqual(response.results, []);
  });
});

test('serper images: POST /images, imageUrl/link/sizes mapped, filters it cannot apply are warnings', async () => {
  const reply = jsonReply({
    searchParameters: { q: 'lion', type: 'images', num: 3 },
    images: [
      {
        title: 'Lion - Wikipedia',
        imageUrl: 'https://upload.wikimedia.org/lion.jpg',
        imageWidth: 5168,
        imageHeight: 3448,
        thumbnailUrl: 'https://encrypted-tbn0.gstatic.com/images?q=tbn:lion',
        thumbnailWidth: 275,
        thumbnailHeight: 183,
        source: 'Wikipedia',
        domain: 'en.wikipedia.org',
        link: 'https://en.wikipedia.org/wiki/Lion',
        position: 1,
      },
    ],
    credits: 2,
  });
  await withStandIn(reply, async (server) => {
    const response = await serper.searchImages!(
      { query: 'lion', count: 3, size: 'large', type: 'photo' },
      standInContext(server, settings),
    );
    assert.deepEqual(response.results, [
      {
        title: 'Lion - Wikipedia',
        imageUrl: 'https://upload.wikimedia.org/lion.jpg',
        thumbnailUrl: 'https://encrypted-tbn0.gstatic.com/images?q=tbn:lion',
        sourceUrl: 'https://en.wikipedia.org/wiki/Lion',
        width: 5168,
        height: 3448,
      },
    ]);
    assert.deepEqual(response.warnings, [
      'serper does not support size (large ignored)',
      'serper does not support type (photo ignored)',
    ]);
    assert.deepEqual(response.quota, { note: '2 credits used' });
    assert.equal(server.calls.length, 1);
    const [call] = server.calls;
    assert.equal(call?.method, 'POST');
    assert.equal(call?.url.pathname, '/images');
    assert.equal(call?.headers['x-api-key'], 'serper-test-key');
    assert.equal(call?.headers['content-type'], 'application/json');
    assert.equal(call?.headers.authorization, undefined);
    assert.deepEqual(JSON.parse(call?.body ?? ''), { q: 'lion', num: 3 });
  });
});

const rateLimitedBody = { message: 'Too many requests', statusCode: 429 };
/** The recorded 403 body (fixtures/providers/serper/error-403-unauthorized.json). */
const invalidKey = {
  reply: jsonReply({ message: 'Unauthorized.', statusCode: 403 }, 403),
  message: 'Unauthorized.',
};

runProviderFailureSuite({
  provider: serper,
  settings,
  invalidKey,
  rateLimitedBody,
  quota: {
    reply: jsonReply({ message: 'Not enough credits', statusCode: 400 }, 400),
    message: 'Not enough credits',
  },
});

runProviderFailureSuite({
  provider: serper,
  label: 'images',
  settings,
  call: (context) => serper.searchImages!({ query: 'lion', count: 3 }, context),
  invalidKey,
  empty: jsonReply({
    searchParameters: { q: 'zxqv', type: 'images', engine: 'google' },
    images: [],
    credits: 1,
  }),
  rateLimitedBody,
});
