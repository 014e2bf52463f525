// web_search with readTop: the top results read in parallel through web_fetch as the policy guards it (credits,
// network rules), their passages attached under one budget, a failed read a readError, the search still a success.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPeriscope } from '../index.ts';
import { openEnvelope } from '../testing/envelope.ts';
import { type LoopbackServer, startHttpServerOn } from '../testing/loopback-server.ts';
import { jsonReply, startProviderStandIn } from '../testing/provider-stand-in.ts';
import { createStandInSearchProvider } from '../testing/search-stand-in.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import type { WebSearchData } from './web-search.ts';

const filler = (topic: string) =>
  Array.from(
    { length: 20 },
    (_, index) => `<p>${topic} ${index}: ledgers list every ship that docked in the season.</p>`,
  ).join('');
const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><article><h1>${title}</h1>${body}</article></body></html>`;
const PAGES: Record<string, string> = {
  '/lighthouse': page(
    'Helgoland',
    `<h2>History</h2>${filler('History')}<h2>Construction</h2><p>The Helgoland lighthouse tower was built in 1952 by Clara Vogt.</p>`,
  ),
  '/harbour': page(
    'Harbour',
    `${filler('Harbour')}<p>The old Helgoland lighthouse tower was bombed in 1945 and rebuilt.</p>`,
  ),
};

let pages: TestServer;
let search: TestServer;
/** On 127.0.0.2, which the allow-list does not open: a read of it must never connect. */
let canary: LoopbackServer;
before(async () => {
  pages = await startTestServer((request, response) => {
    const body = PAGES[request.url ?? ''];
    if (body === undefined) return void response.writeHead(404, { 'content-type': 'text/plain' }).end('no');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });
  canary = await startHttpServerOn('127.0.0.2', (_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html' }).end(page('Secret', '<p>Helgoland tower</p>')),
  );
  search = await startProviderStandIn(() =>
    jsonReply({
      results: [
        { title: 'Helgoland lighthouse', url: `${pages.url}/lighthouse`, snippet: 'Built in 1952' },
        { title: 'Gone', url: `${pages.url}/gone`, snippet: 'Moved' },
        { title: 'Intranet', url: `${canary.url}/secret`, snippet: 'Inside' },
        { title: 'Harbour', url: `${pages.url}/harbour`, snippet: 'Old tower' },
      ],
    }),
  );
});
after(async () => {
  await Promise.all([pages.close(), search.close(), canary.close()]);
});

const open = (config: Record<string, unknown> = {}) =>
  createPeriscope(
    {
      search: { chain: ['stand-in'] },
      network: { allowPrivateNetwork: ['127.0.0.1/32'] },
      cache: { enabled: false },
      limits: { credits: { enabled: true } },
      ...config,
    },
    { env: {}, providers: [createStandInSearchProvider(search.url)] },
  );
const QUERY = 'When was the Helgoland lighthouse tower built?';

test('readTop: passages attached to the top results, a 404 and a blocked address are readErrors, each read a call', async () => {
  const periscope = open();
  await periscope.credits.grant('reader', 100);
  const before = pages.calls.length;
  const result = await periscope.search({ query: QUERY, readTop: 3 }, { agentId: 'reader' });
  assert.equal(result.isError, false, result.output);
  const [lighthouse, gone, intranet, harbour] = (result.data as WebSearchData).results;
  const answer = lighthouse?.passages?.find((passage) => passage.text.includes('Clara Vogt'));
  assert.ok(answer, JSON.stringify(lighthouse));
  assert.equal(answer.citation.url, `${pages.url}/lighthouse`);
  assert.equal(answer.heading, 'Construction');
  assert.equal(gone?.readError?.code, 'HTTP_STATUS');
  assert.equal(intranet?.readError?.code, 'URL_BLOCKED');
  assert.equal(canary.connections, 0, 'the blocked address was never connected to');
  assert.equal(harbour?.passages, undefined, 'the fourth result is not read');
  assert.equal(harbour?.readError, undefined);
  // Two pages asked of the origin (the read one and the 404), plus robots.txt where the chain asks for it.
  const asked = pages.calls.slice(before).map((call) => call.url.pathname);
  assert.deepEqual(asked.filter((path) => path !== '/robots.txt').sort(), ['/gone', '/lighthouse']);
  // Credits: the search (2) and each of the three reads (1 each; a 404 and a blocked URL are kept, not refunded).
  assert.equal(await periscope.credits.balance('reader'), 100 - 2 - 3);
  const ledger = await periscope.credits.ledger('reader');
  assert.equal(ledger.filter((entry) => entry.tool === 'web_fetch' && entry.delta < 0).length, 3);
  // The output: results and passages in one envelope, the passages under their result after a line naming their
  // page, the failures (which may quote a site) there too; then, outside it, how to read on.
  const envelope = openEnvelope(result.output);
  assert.equal(envelope.before, `Results for: ${QUERY}\n\n`);
  assert.match(
    envelope.body,
    new RegExp(
      `^1\\. Helgoland lighthouse\\n {3}\\S+\\n {3}Built in 1952\\n {3}\\[Read from ${pages.url.replace(/\./g, '\\.')}/lighthouse; the passages that answer the query:\\]\\n\\[chars `,
    ),
  );
  assert.ok(
    envelope.body.includes(`[chars ${answer.start}–${answer.end}] under "Construction"\n${answer.text}`),
  );
  assert.match(envelope.body, /\n {3}\[Not read: HTTP_STATUS: [^\n]*404[^\n]*\]\n/);
  assert.match(envelope.body, /\n {3}\[Not read: URL_BLOCKED: [^\n]+\]\n/);
  assert.equal(
    envelope.after,
    "\n\n[The top 3 results were read for the passages that answer the query. To read one in full, call web_fetch with its url (and startIndex set to a passage's start to read on from there).]",
  );
  // The search's own charge on its line; each read's on its own call.
  assert.match(result.display ?? '', /^stand-in → 4 results in \d+ ms · read 1 page, 2 failed · 2 credits$/);
});

test('readTop shares one budget: readMaxChars split evenly across the pages read', async () => {
  const periscope = open({ limits: {} });
  const result = await periscope.search({ query: QUERY, readTop: 4, readMaxChars: 600 });
  assert.equal(result.isError, false, result.output);
  const { results } = result.data as WebSearchData;
  const read = results.filter((entry) => entry.passages && entry.passages.length > 0);
  assert.equal(read.length, 2);
  for (const entry of read) {
    const text = (entry.passages ?? []).map((passage) => passage.text).join('\n\n');
    assert.ok(text.length <= 150, `${entry.url}: ${text.length} characters, share 150`);
  }
  assert.ok(results[3]?.passages?.some((passage) => passage.text.includes('bombed in 1945')));
});

test('readTop is 0–5; without it the results are as before, and no page is read', async () => {
  const periscope = open({ limits: {} });
  const refused = await periscope.search({ query: QUERY, readTop: 6 });
  assert.equal((refused.data as { error: { code: string } }).error.code, 'INVALID_INPUT');
  const before = pages.calls.length;
  const plain = await periscope.search({ query: QUERY });
  assert.equal(plain.isError, false);
  assert.equal(pages.calls.length, before);
  assert.ok((plain.data as WebSearchData).results.every((entry) => entry.passages === undefined));
  assert.doesNotMatch(openEnvelope(plain.output).body, /Read from|Not read/);
  assert.doesNotMatch(plain.output, /were read/);
});

test('readTop with web_fetch switched off: the search succeeds, each read says why it failed', async () => {
  const periscope = open({ limits: {}, tools: { web_fetch: { enabled: false } } });
  const result = await periscope.search({ query: QUERY, readTop: 1 });
  assert.equal(result.isError, false, result.output);
  assert.equal((result.data as WebSearchData).results[0]?.readError?.code, 'NOT_CONFIGURED');
});

test('readTop reads its pages with the search’s maxAgeSeconds: a cached copy by default, live with 0', async () => {
  const periscope = open({ limits: {}, cache: { enabled: true } });
  const downloads = () => pages.calls.filter((call) => call.url.pathname === '/lighthouse').length;
  const before = downloads();
  await periscope.fetch({ url: `${pages.url}/lighthouse` });
  const cachedRead = await periscope.search({ query: QUERY, readTop: 1 });
  assert.equal(cachedRead.isError, false, cachedRead.output);
  assert.ok(((cachedRead.data as WebSearchData).results[0]?.passages ?? []).length > 0);
  assert.equal(downloads() - before, 1, 'the page came from the cache');
  const live = await periscope.search({ query: QUERY, readTop: 1, maxAgeSeconds: 0 });
  assert.equal((live.data as WebSearchData).cached, false);
  assert.ok(((live.data as WebSearchData).results[0]?.passages ?? []).length > 0);
  assert.equal(downloads() - before, 2, 'read live');
  await periscope.close();
});
