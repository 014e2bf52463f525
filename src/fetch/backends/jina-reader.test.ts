import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { withStandIn } from '../../testing/provider-stand-in.ts';
import { READER_TARGET, readerContext, runReaderSuite } from '../../testing/reader-suite.ts';
import { createJinaReaderBackend } from './jina-reader.ts';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`__fixtures__/${name}`, import.meta.url), 'utf8'));

const create = (baseUrl: string, options: { apiKey?: string | undefined; timeoutMs?: number } = {}) =>
  createJinaReaderBackend({
    baseUrl,
    apiKey: options.apiKey,
    headers: {},
    timeoutMs: options.timeoutMs ?? 5_000,
  });

runReaderSuite({
  id: 'jina-reader',
  create,
  needsKey: false,
  success: { body: fixture('jina-reader-example-com.json') },
  assertRequest(call) {
    assert.equal(call.method, 'POST');
    assert.equal(call.url.pathname, '/');
    assert.equal(call.headers.authorization, 'Bearer test-key-1234');
    assert.equal(call.headers.accept, 'application/json');
    assert.equal(call.headers['x-return-format'], 'markdown');
    assert.deepEqual(JSON.parse(call.body), { url: READER_TARGET });
  },
  assertPage(page) {
    assert.equal(page.finalUrl, 'https://example.com/');
    assert.equal(page.status, 200);
    assert.equal(page.content.title, 'Example Domain');
    assert.equal(page.content.extractor, 'jina-reader');
    assert.match(page.content.text, /This domain is for use in illustrative examples/);
  },
  invalidKey: {
    status: 401,
    body: {
      data: null,
      code: 401,
      name: 'AuthenticationFailedError',
      status: 40101,
      message: 'Invalid API key',
    },
  },
  rateLimitedBody: {
    data: null,
    code: 429,
    name: 'RateLimitTriggeredError',
    status: 42903,
    message: 'Rate limit exceeded (21 times in last 60 seconds)',
  },
});

test('jina-reader: keyless sends no Authorization; text mode asks for text; configured headers go along', async () => {
  await withStandIn({ body: fixture('jina-reader-example-com.json') }, async (server) => {
    const backend = createJinaReaderBackend({
      baseUrl: server.url,
      headers: { 'X-Engine': 'browser' },
      timeoutMs: 5_000,
    });
    assert.equal(backend.unavailableReason(), undefined);
    await backend.fetchPage({ url: new URL(READER_TARGET), mode: 'text' }, readerContext());
    const call = server.calls[0];
    assert.equal(call?.headers.authorization, undefined);
    assert.equal(call?.headers['x-return-format'], 'text');
    assert.equal(call?.headers['x-engine'], 'browser');
  });
});

test("jina-reader: the origin's error passed on in data.warning is that HTTP status", async () => {
  const reply = {
    body: {
      code: 200,
      status: 20000,
      data: {
        title: '404 Not Found',
        url: READER_TARGET,
        content: 'Not Found',
        warning: 'Target URL returned error 404: Not Found',
      },
    },
  };
  await withStandIn(reply, async (server) => {
    const backend = create(server.url);
    await assert.rejects(
      backend.fetchPage({ url: new URL(READER_TARGET), mode: 'markdown' }, readerContext()),
      (error: { code?: string; details?: { status?: number } }) =>
        error.code === 'HTTP_STATUS' && error.details?.status === 404,
    );
  });
});
