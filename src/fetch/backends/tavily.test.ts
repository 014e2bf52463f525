import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { expectProviderError, withStandIn } from '../../testing/provider-stand-in.ts';
import { READER_TARGET, readerContext, runReaderSuite } from '../../testing/reader-suite.ts';
import { createTavilyBackend } from './tavily.ts';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`__fixtures__/${name}`, import.meta.url), 'utf8'));
const create = (baseUrl: string, options: { apiKey?: string | undefined; timeoutMs?: number } = {}) =>
  createTavilyBackend({
    baseUrl,
    apiKey: options.apiKey,
    headers: {},
    timeoutMs: options.timeoutMs ?? 5_000,
  });

runReaderSuite({
  id: 'tavily',
  create,
  needsKey: true,
  success: { body: fixture('tavily-extract-theoretical-physics-advanced.json') },
  assertRequest(call) {
    assert.equal(call.method, 'POST');
    assert.equal(call.url.pathname, '/extract');
    assert.equal(call.headers.authorization, 'Bearer test-key-1234');
    assert.deepEqual(JSON.parse(call.body), {
      urls: [READER_TARGET],
      extract_depth: 'basic',
      format: 'markdown',
      include_images: false,
    });
  },
  assertPage(page) {
    assert.equal(page.finalUrl, 'https://en.wikipedia.org/wiki/Theoretical_physics');
    assert.equal(page.content.extractor, 'tavily');
    assert.match(page.content.text, /Theoretical physics/);
  },
  invalidKey: { status: 401, body: { detail: { error: 'Unauthorized: missing or invalid API key.' } } },
  rateLimitedBody: { detail: { error: 'Your request has been blocked due to excessive requests.' } },
});

test('tavily: a page it could not read (failed_results) is an error naming its reason; 432 is quota', async () => {
  let reply: { status?: number; body: unknown } = {
    body: { results: [], failed_results: [{ url: READER_TARGET, error: 'Failed to fetch url' }] },
  };
  const handler = () => reply;
  await withStandIn(handler, async (server) => {
    const backend = create(server.url, { apiKey: 'tvly-test-key' });
    const request = { url: new URL(READER_TARGET), mode: 'markdown' as const };
    await expectProviderError(backend.fetchPage(request, readerContext()), {
      code: 'HTTP_STATUS',
      reason: 'reader-failed',
      message: ['Failed to fetch url'],
    });
    reply = { status: 432, body: { detail: { error: 'This request exceeds your plan limit.' } } };
    await expectProviderError(backend.fetchPage(request, readerContext()), {
      code: 'RATE_LIMITED',
      reason: 'quota',
    });
  });
});
