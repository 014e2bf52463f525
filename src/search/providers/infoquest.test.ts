import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  expectProviderError,
  jsonReply,
  runProviderFailureSuite,
  standInContext,
  withStandIn,
} from '../../testing/provider-stand-in.ts';
import { infoquestSearchProvider as infoquest } from './infoquest.ts';

const settings = { apiKey: 'iq-test-key' };

function wrap(results: Record<string, unknown>) {
  return { search_result: { results: [{ content: { results } }] } };
}

test('infoquest search: organic then top stories, the first count kept; time_range in days', async () => {
  const reply = jsonReply(
    wrap({
      organic: [
        { title: 'Result one', desc: 'First description', url: 'https://one.example/' },
        { title: 'Result two', desc: 'Second description', url: 'https://two.example/' },
      ],
      top_stories: {
        items: [
          {
            title: 'A story',
            url: 'https://news.example/story',
            source: 'News',
            time_frame: '2 hours ago',
          },
        ],
      },
    }),
  );
  await withStandIn(reply, async (server) => {
    const response = await infoquest.search!(
      { query: 'test query', count: 3, freshness: 'week', language: 'en' },
      standInContext(server, settings),
    );
    assert.deepEqual(response.results, [
      { title: 'Result one', url: 'https://one.example/', snippet: 'First description' },
      { title: 'Result two', url: 'https://two.example/', snippet: 'Second description' },
      { title: 'A story', url: 'https://news.example/story', snippet: 'News', publishedAt: '2 hours ago' },
    ]);
    assert.deepEqual(response.warnings, ['infoquest does not support language (en ignored)']);
    const [call] = server.calls;
    assert.equal(call?.method, 'POST');
    assert.equal(call?.url.pathname, '/');
    assert.equal(call?.headers.authorization, 'Bearer iq-test-key');
    assert.equal(call?.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(call?.body ?? ''), { format: 'JSON', query: 'test query', time_range: 7 });
  });
});

test('infoquest search: an empty result is an empty list; a body without search_result is an error', async () => {
  const bodies = [{ search_result: { results: [] } }, { content: 'wrong format' }];
  const handler = () => jsonReply(bodies.shift());
  await withStandIn(handler, async (server) => {
    const context = standInContext(server, settings);
    assert.deepEqual((await infoquest.search!({ query: 'zxqv', count: 5 }, context)).results, []);
    await expectProviderError(infoquest.search!({ query: 'q', count: 5 }, context), {
      code: 'HTTP_STATUS',
      reason: 'unexpected-shape',
      message: ['search_result'],
    });
  });
});

test('infoquest images: search_type Images, size as image_size, original is the image and url the page', async () => {
  const reply = jsonReply(
    wrap({
      images_results: [
        {
          original: 'https://example.com/image1.jpg',
          title: 'Test Image',
          url: 'https://example.com/page1',
        },
        { title: 'No original' },
      ],
    }),
  );
  await withStandIn(reply, async (server) => {
    const response = await infoquest.searchImages!(
      { query: 'cat', count: 5, size: 'small', layout: 'square' },
      standInContext(server, settings),
    );
    assert.deepEqual(response.results, [
      {
        title: 'Test Image',
        imageUrl: 'https://example.com/image1.jpg',
        sourceUrl: 'https://example.com/page1',
      },
    ]);
    assert.deepEqual(response.warnings, ['infoquest does not support layout (square ignored)']);
    assert.equal(server.calls.length, 1);
    const [call] = server.calls;
    assert.equal(call?.method, 'POST');
    assert.equal(call?.url.pathname, '/');
    assert.equal(call?.headers.authorization, 'Bearer iq-test-key');
    assert.equal(call?.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(call?.body ?? ''), {
      format: 'JSON',
      query: 'cat',
      search_type: 'Images',
      image_size: 'i',
    });
  });
});

// No published error body: the suite serves plain JSON messages with the statuses the API gateway uses.
const invalidKey = { reply: jsonReply({ message: 'Invalid API key' }, 401), message: 'Invalid API key' };

runProviderFailureSuite({
  provider: infoquest,
  settings,
  invalidKey,
  rateLimitedBody: { message: 'Too Many Requests' },
});

runProviderFailureSuite({
  provider: infoquest,
  label: 'images',
  settings,
  call: (context) => infoquest.searchImages!({ query: 'cat', count: 3 }, context),
  invalidKey,
  empty: jsonReply(wrap({ images_results: [] })),
  rateLimitedBody: { message: 'Too Many Requests' },
});
