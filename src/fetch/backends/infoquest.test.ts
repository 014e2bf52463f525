import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { expectProviderError, withStandIn } from '../../testing/provider-stand-in.ts';
import { READER_TARGET, readerContext, runReaderSuite } from '../../testing/reader-suite.ts';
import { createInfoquestBackend } from './infoquest.ts';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`__fixtures__/${name}`, import.meta.url), 'utf8'));
const create = (baseUrl: string, options: { apiKey?: string | undefined; timeoutMs?: number } = {}) =>
  createInfoquestBackend({
    baseUrl,
    apiKey: options.apiKey,
    headers: {},
    timeoutMs: options.timeoutMs ?? 5_000,
  });

const ARTICLE = `<html><head><title>Rivers</title></head><body><nav>Home About</nav><article><h1>Rivers</h1>${'<p>The Danube flows through ten countries, more than any other river in the world.</p>'.repeat(8)}</article></body></html>`;

runReaderSuite({
  id: 'infoquest',
  create,
  needsKey: true,
  success: { body: { reader_result: ARTICLE } },
  assertRequest(call, { timeoutMs }) {
    assert.equal(call.method, 'POST');
    assert.equal(call.url.pathname, '/');
    assert.equal(call.headers.authorization, 'Bearer test-key-1234');
    assert.deepEqual(JSON.parse(call.body), {
      url: READER_TARGET,
      format: 'HTML',
      timeout: Math.max(1, Math.floor(timeoutMs / 1000) - 1),
    });
  },
  assertPage(page) {
    assert.equal(page.content.title, 'Rivers');
    assert.match(page.content.text, /The Danube flows through ten countries/);
    assert.doesNotMatch(page.content.text, /Home About/);
  },
  invalidKey: { status: 401, body: 'Unauthorized' },
  rateLimitedBody: 'Too Many Requests',
});

test('infoquest: the recorded mock goes through the HTML pipeline; an empty answer is EMPTY_CONTENT', async () => {
  let reply: { body: unknown } = { body: fixture('infoquest-reader-mock.json') };
  const handler = () => reply;
  await withStandIn(handler, async (server) => {
    const backend = create(server.url, { apiKey: 'iq-test-key' });
    const request = { url: new URL(READER_TARGET), mode: 'markdown' as const };
    const page = await backend.fetchPage(request, readerContext());
    assert.match(page.content.text, /Test content/);
    reply = { body: { reader_result: '' } };
    await expectProviderError(backend.fetchPage(request, readerContext()), { code: 'EMPTY_CONTENT' });
  });
});
