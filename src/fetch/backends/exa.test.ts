import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { expectProviderError, withStandIn } from '../../testing/provider-stand-in.ts';
import { READER_TARGET, readerContext, runReaderSuite } from '../../testing/reader-suite.ts';
import { createExaBackend } from './exa.ts';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`__fixtures__/${name}`, import.meta.url), 'utf8'));
const create = (baseUrl: string, options: { apiKey?: string | undefined; timeoutMs?: number } = {}) =>
  createExaBackend({ baseUrl, apiKey: options.apiKey, headers: {}, timeoutMs: options.timeoutMs ?? 5_000 });

runReaderSuite({
  id: 'exa',
  create,
  needsKey: true,
  success: { body: fixture('exa-contents-openapi-example.json') },
  assertRequest(call) {
    assert.equal(call.method, 'POST');
    assert.equal(call.url.pathname, '/contents');
    assert.equal(call.headers['x-api-key'], 'test-key-1234');
    assert.deepEqual(JSON.parse(call.body), { urls: [READER_TARGET], text: true });
  },
  assertPage(page) {
    assert.equal(page.finalUrl, 'https://arxiv.org/pdf/2307.06435.pdf');
    assert.equal(page.content.title, 'A Comprehensive Overview of Large Language Models');
    assert.equal(page.content.publishedAt, '2023-11-16T01:36:32.547Z');
    assert.equal(page.content.extractor, 'exa');
    assert.match(page.content.text, /Large Language Models/);
  },
  invalidKey: { status: 401, body: { requestId: 'r1', error: 'Invalid API key', tag: 'INVALID_API_KEY' } },
  rateLimitedBody: { requestId: 'r2', error: 'Rate limit exceeded', tag: 'RATE_LIMIT_EXCEEDED' },
});

test("exa: a per-URL error status carries the origin's HTTP status", async () => {
  const reply = {
    body: {
      results: [],
      statuses: [
        { id: READER_TARGET, status: 'error', error: { tag: 'CRAWL_NOT_FOUND', httpStatusCode: 404 } },
      ],
    },
  };
  await withStandIn(reply, async (server) => {
    const backend = create(server.url, { apiKey: 'exa-test-key' });
    await expectProviderError(
      backend.fetchPage({ url: new URL(READER_TARGET), mode: 'markdown' }, readerContext()),
      {
        code: 'HTTP_STATUS',
        retryable: false,
        status: 404,
        message: ['CRAWL_NOT_FOUND'],
      },
    );
  });
});
