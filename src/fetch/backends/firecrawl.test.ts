import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { READER_TARGET, runReaderSuite } from '../../testing/reader-suite.ts';
import { createFirecrawlBackend } from './firecrawl.ts';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`__fixtures__/${name}`, import.meta.url), 'utf8'));

runReaderSuite({
  id: 'firecrawl',
  create: (baseUrl, options = {}) =>
    createFirecrawlBackend({
      baseUrl,
      apiKey: options.apiKey,
      headers: {},
      timeoutMs: options.timeoutMs ?? 5_000,
    }),
  needsKey: true,
  success: { body: fixture('firecrawl-v2-scrape-firecrawl-dev.json') },
  assertRequest(call, { timeoutMs }) {
    assert.equal(call.method, 'POST');
    assert.equal(call.url.pathname, '/v2/scrape');
    assert.equal(call.headers.authorization, 'Bearer test-key-1234');
    const body = JSON.parse(call.body);
    assert.equal(body.url, READER_TARGET);
    assert.deepEqual(body.formats, ['markdown']);
    assert.equal(body.onlyMainContent, true);
    // Firecrawl's own deadline, a second under ours so that its answer comes before we give up.
    assert.equal(body.timeout, Math.max(1_000, timeoutMs - 1_000));
  },
  assertPage(page) {
    assert.equal(page.finalUrl, 'https://www.firecrawl.dev/');
    assert.equal(page.status, 200);
    assert.equal(page.content.title, 'Firecrawl - The Web Data API for AI');
    assert.equal(page.content.extractor, 'firecrawl');
    assert.match(page.content.text, /Turn websites into/);
  },
  invalidKey: { status: 401, body: { success: false, error: 'Unauthorized: Invalid token' } },
  rateLimitedBody: {
    success: false,
    error: 'Rate limit exceeded. Consumed (req/min): 11, Remaining (req/min): 0.',
  },
});
