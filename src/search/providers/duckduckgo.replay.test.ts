// Replays every recorded DuckDuckGo body under ../shared/fixtures/providers/duckduckgo/ through the provider (a
// real socket on 127.0.0.1, the real guarded client) and checks the normalised result. Skipped, with the reason,
// when ../shared is absent (a user's clone).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseHTML } from 'linkedom';
import { providersSchema, searchSchema } from '../../config/search-schema.ts';
import { isPeriscopeError } from '../../errors.ts';
import { createHttpClient } from '../../net/http-client.ts';
import { createLoopbackConnectGuard } from '../../testing/connect-guard.ts';
import { startTestServer, type TestServer } from '../../testing/test-server.ts';
import { createSearchChain } from '../chain.ts';
import { extractVqd } from './duckduckgo-pages.ts';

const FOLDER = fileURLToPath(new URL('../../../../shared/fixtures/providers/duckduckgo/', import.meta.url));
const SKIP = existsSync(FOLDER)
  ? false
  : `recorded fixtures not found at ${FOLDER} (../shared is not part of a clone)`;
const LEGACY = 'd.js is the legacy JavaScript surface; Periscope reads the HTML and lite endpoints instead';

/** Every recorded body and what the replay checks; a new file without an entry fails the coverage test. */
const PLAN: Record<string, string | false> = {
  'html-get-golang-programming-language.html': false,
  'vqd-page-node.html': false,
  'ijs-images-minecraft.json': false,
  'ijs-images-no-results.json': false,
  'djs-anomaly-detection-block.js': false,
  'djs-search-node.js': LEGACY,
  'djs-search-no-results.js': LEGACY,
  'djs-is506.js': LEGACY,
};

const read = (name: string) => readFileSync(`${FOLDER}${name}`, 'utf8');
let server: TestServer;
/** Which recorded body each endpoint serves right now. */
const serving: { html?: string; htmlType?: string; images?: string } = {};

before(async () => {
  if (SKIP) return;
  const vqdPage = read('vqd-page-node.html');
  const token = extractVqd(vqdPage);
  server = await startTestServer({
    'POST /html/': (_request, response) =>
      response
        .writeHead(200, { 'content-type': serving.htmlType ?? 'text/html; charset=UTF-8' })
        .end(serving.html),
    'GET /': (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html; charset=UTF-8' }).end(vqdPage),
    'GET /i.js': (request, response) => {
      const vqd = new URL(request.url ?? '/', 'http://x').searchParams.get('vqd');
      if (vqd !== token) return response.writeHead(403).end('vqd mismatch');
      response.writeHead(200, { 'content-type': 'application/json' }).end(serving.images);
    },
  });
});
after(() => server?.close());

function chain() {
  return createSearchChain({
    search: searchSchema.parse({ chain: ['duckduckgo'], timeoutMs: 3000 }),
    providers: providersSchema.parse({
      duckduckgo: { baseUrl: server.url, minIntervalMs: 0, extras: { surface: 'html' } },
    }),
    env: {},
    httpFetch: createHttpClient({ beforeConnect: createLoopbackConnectGuard().beforeConnect }),
  });
}

test('every recorded DuckDuckGo body has a replay entry', { skip: SKIP }, () => {
  assert.deepEqual(
    readdirSync(FOLDER)
      .filter((name) => !name.endsWith('.meta.json'))
      .sort(),
    Object.keys(PLAN).sort(),
  );
});

test('html-get-golang-programming-language.html: ten results, redirect links decoded', {
  skip: SKIP,
}, async () => {
  serving.html = read('html-get-golang-programming-language.html');
  const answer = await chain().search({ query: 'golang programming language', count: 20 });
  assert.equal(answer.results.length, 10);
  assert.deepEqual(answer.results[0], {
    title: 'The Go Programming Language',
    url: 'https://go.dev/',
    snippet:
      'Go is an open source programming language that makes it simple to build secure, scalable systems.',
  });
  for (const result of answer.results) {
    assert.match(result.url, /^https?:\/\//);
    assert.doesNotMatch(result.url, /duckduckgo\.com\/(?:l|y\.js)/);
    assert.ok(result.title.length > 0 && result.snippet.length > 0, result.url);
    assert.doesNotMatch(`${result.title} ${result.snippet}`, /<\/?b>|&amp;|\s{2}/);
  }
});

test("html-get-golang-programming-language.html: every field we POST is a field of the page's own forms (region is kl, not l)", {
  skip: SKIP,
}, async () => {
  const recorded = read('html-get-golang-programming-language.html');
  serving.html = recorded;
  const { document } = parseHTML(recorded);
  const fields = new Set(
    [...document.querySelectorAll('form [name]')].map((field) => field.getAttribute('name')),
  );
  assert.ok(document.querySelector('form select[name="kl"]'), 'the recorded form has a kl region select');
  assert.equal(fields.has('l'), false, 'the recorded forms have no l field');
  const start = server.calls.length;
  await chain().search({ query: 'golang programming language', count: 3, region: 'de', freshness: 'week' });
  const sent = [...new URLSearchParams(server.calls[start]?.body).keys()];
  assert.deepEqual(sent, ['q', 'b', 'kl', 'df']);
  for (const name of sent) assert.ok(fields.has(name), `${name} is not a field of the recorded page's forms`);
});

test('djs-anomaly-detection-block.js: the block is BLOCKED_BY_SITE, not an empty result', {
  skip: SKIP,
}, async () => {
  serving.html = read('djs-anomaly-detection-block.js');
  serving.htmlType = 'application/x-javascript';
  try {
    await assert.rejects(chain().search({ query: 'Friche la Belle de Mai', count: 5 }), (error: unknown) => {
      assert.ok(isPeriscopeError(error));
      assert.equal(error.code, 'ALL_FAILED');
      const [attempt] = error.details.attempts as Array<{ code: string; message: string }>;
      assert.equal(attempt?.code, 'BLOCKED_BY_SITE');
      assert.match(attempt?.message ?? '', /DDG\.deep\.anomalyDetectionBlock/);
      return true;
    });
  } finally {
    delete serving.htmlType;
  }
});

test('vqd-page-node.html + ijs-images-minecraft.json: the token is found and the images normalised', {
  skip: SKIP,
}, async () => {
  serving.images = read('ijs-images-minecraft.json');
  const answer = await chain().searchImages({ query: 'minecraft', count: 20 });
  assert.equal(answer.results.length, 20);
  assert.equal(answer.results[0]?.title, 'Minecraft Earth - How to Craft and Smelt');
  for (const result of answer.results) {
    assert.match(result.imageUrl, /^https?:\/\//);
    assert.ok(result.width && result.height, result.imageUrl);
  }
});

test('ijs-images-no-results.json: an honest empty answer', { skip: SKIP }, async () => {
  serving.images = read('ijs-images-no-results.json');
  const answer = await chain().searchImages({ query: 'minecraft', count: 5 });
  assert.deepEqual(answer.results, []);
  assert.equal(answer.attempts[0]?.outcome, 'ok');
});

for (const [name, reason] of Object.entries(PLAN)) {
  if (reason) test(`${name}: not replayed`, { skip: SKIP || reason }, () => {});
}
