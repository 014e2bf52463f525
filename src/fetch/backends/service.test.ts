import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withStandIn } from '../../testing/provider-stand-in.ts';
import { READER_TARGET, readerContext, runReaderSuite } from '../../testing/reader-suite.ts';
import { createServiceBackend } from './service.ts';

const MARKDOWN = '# Rivers of Europe\n\nThe Danube flows through ten countries, more than any other river.\n';

runReaderSuite({
  id: 'service',
  create: (baseUrl, options = {}) =>
    createServiceBackend({
      baseUrl: `${baseUrl}/v1/fetch`,
      apiKey: options.apiKey,
      headers: { 'x-tenant': 'periscope-tests' },
      timeoutMs: options.timeoutMs ?? 5_000,
      toolCallIdHeader: 'x-tool-call-id',
    }),
  needsKey: false,
  success: { headers: { 'content-type': 'text/markdown; charset=utf-8' }, body: MARKDOWN },
  assertRequest(call) {
    assert.equal(call.method, 'POST');
    assert.equal(call.url.pathname, '/v1/fetch');
    assert.equal(call.headers.authorization, 'Bearer test-key-1234');
    assert.equal(call.headers['x-tenant'], 'periscope-tests');
    assert.equal(call.headers['x-tool-call-id'], 'call_42');
    assert.equal(call.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(call.body), { url: READER_TARGET, format: 'markdown' });
  },
  assertPage(page) {
    assert.equal(page.content.extractor, 'service');
    assert.equal(page.content.text, MARKDOWN);
    assert.deepEqual(
      page.content.outline?.map((entry) => entry.title),
      ['Rivers of Europe'],
    );
  },
  invalidKey: { status: 401, body: { error: 'invalid bearer token' } },
  rateLimitedBody: { error: 'slow down' },
});

test('service: a JSON answer {markdown, title, url} is read; without baseUrl it is NOT_CONFIGURED', async () => {
  const reply = {
    body: { data: { markdown: MARKDOWN, title: 'Rivers', url: 'https://example.com/rivers' } },
  };
  await withStandIn(reply, async (server) => {
    const backend = createServiceBackend({ baseUrl: server.url, headers: {}, timeoutMs: 5_000 });
    const page = await backend.fetchPage({ url: new URL(READER_TARGET), mode: 'markdown' }, readerContext());
    assert.equal(page.content.title, 'Rivers');
    assert.equal(page.finalUrl, 'https://example.com/rivers');
    assert.equal(server.calls[0]?.headers.authorization, undefined);
    assert.equal(server.calls[0]?.headers['x-tool-call-id'], undefined);
    const unconfigured = createServiceBackend({ headers: {}, timeoutMs: 5_000 });
    assert.match(unconfigured.unavailableReason() ?? '', /baseUrl/);
  });
});
