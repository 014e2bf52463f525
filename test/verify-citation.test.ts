// verifyCitation end to end: pages on 127.0.0.1 read by web_fetch, then checked from the caches it filled or read
// again through the chain and the call policy; and the verify_citation tool over MCP (in memory) and the gateway.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { contentHash } from '../src/content/passages/content-hash.ts';
import { createPeriscope, type PeriscopeConfigInput, type WebFetchData } from '../src/index.ts';
import { createMemoryStore } from '../src/store/memory-store.ts';
import { createGateway } from '../src/surfaces/gateway/gateway.ts';
import { mountMcp } from '../src/surfaces/gateway/mount-mcp.ts';
import { selectTools } from '../src/surfaces/mcp/select-tools.ts';
import { createMcpServer } from '../src/surfaces/mcp/server.ts';
import { httpCall } from '../src/testing/http-call.ts';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';

const QUOTE = 'High tide at Brest is at 06:12 and again at 18:40.';
let tideLine = QUOTE;
const page = (lead: string) => `<!doctype html><html><head><title>Tides</title></head><body><article>
<h1>Tide tables for Brest</h1>${lead}<p>The harbour is sheltered from the west.</p><p>${tideLine}</p>
<p>Low tide comes six hours later, give or take a quarter of an hour.</p></article></body></html>`;

let lead = '<p>Tables are published weekly by the harbour office.</p>';
let origin: TestServer;
before(async () => {
  origin = await startTestServer({
    'GET /tides': (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(lead)),
    'GET /other': (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page('')),
    'GET /gone': (_request, response) => response.writeHead(404, { 'content-type': 'text/plain' }).end('no'),
  });
});
after(() => origin.close());

const hits = (path: string) => origin.calls.filter((call) => call.url.pathname === path).length;

function open(config: PeriscopeConfigInput = {}) {
  return createPeriscope({ network: { allowPrivateNetwork: ['127.0.0.1/32'] }, ...config });
}

/** web_fetch the page, as an agent does: the whole text, its hash, and where the quote is. */
async function cite(periscope: ReturnType<typeof open>, path = '/tides') {
  const result = await periscope.fetch({ url: `${origin.url}${path}` });
  assert.equal(result.isError, false, result.output);
  const data = result.data as WebFetchData;
  assert.equal(data.truncated, false);
  const start = data.text.indexOf(QUOTE);
  assert.ok(start > 0);
  return { url: `${origin.url}${path}`, text: data.text, start, end: start + QUOTE.length };
}

test('a quote web_fetch returned is found at its offsets, from the cache: the site is not asked again', async () => {
  lead = '<p>Tables are published weekly by the harbour office.</p>';
  const periscope = open();
  const cited = await cite(periscope);
  const before = hits('/tides');
  const result = await periscope.verifyCitation({
    url: cited.url,
    quote: QUOTE,
    start: cited.start,
    end: cited.end,
    contentHash: contentHash(cited.text),
  });
  assert.equal(result.status, 'found');
  assert.equal(result.match, 'exact');
  assert.equal(result.fromCache, true);
  assert.equal(result.hashMatches, true);
  assert.deepEqual([result.start, result.end], [cited.start, cited.end]);
  assert.equal(result.contentHash, contentHash(cited.text));
  assert.equal(result.totalLength, cited.text.length);
  assert.equal(result.finalUrl, cited.url);
  assert.match(result.checkedAt, /^\d{4}-\d\d-\d\dT/);
  assert.equal(hits('/tides'), before, 'read from the cache');

  // No offsets: found, and where. Offsets that are off: moved, with the real ones. Whitespace: found, and said.
  const anywhere = await periscope.verifyCitation({ url: cited.url, quote: QUOTE });
  assert.deepEqual([anywhere.status, anywhere.start, anywhere.end], ['found', cited.start, cited.end]);
  const off = await periscope.verifyCitation({ url: cited.url, quote: QUOTE, start: 3, end: 40 });
  assert.deepEqual(
    [off.status, off.start, off.end, off.citedStart, off.citedEnd],
    ['moved', cited.start, cited.end, 3, 40],
  );
  const loose = await periscope.verifyCitation({
    url: cited.url,
    quote: QUOTE.replace('Brest is', 'Brest\n  is'),
    start: cited.start,
    end: cited.end,
  });
  assert.deepEqual([loose.status, loose.match], ['found', 'whitespace']);

  // A quote the page never had: changed. The same text with a stale hash: moved (the page changed around it).
  const invented = await periscope.verifyCitation({
    url: cited.url,
    quote: 'High tide at Brest is at noon.',
  });
  assert.equal(invented.status, 'changed');
  assert.equal(invented.start, undefined);
  const stale = await periscope.verifyCitation({
    url: cited.url,
    quote: QUOTE,
    contentHash: `sha256:${'0'.repeat(64)}`,
  });
  assert.deepEqual([stale.status, stale.hashMatches], ['moved', false]);
  assert.equal(hits('/tides'), before, 'every check read the cache');
  await periscope.close();
});

test('refetch reads the page again: the quote moved when the page grew before it; changed when it is gone', async () => {
  lead = '<p>Tables are published weekly by the harbour office.</p>';
  const periscope = open();
  const cited = await cite(periscope);
  const hash = contentHash(cited.text);
  lead = '<p>New: tables for Roscoff and Morlaix are now on the harbour office site, every week.</p>';
  const before = hits('/tides');
  const cachedCheck = await periscope.verifyCitation({ url: cited.url, quote: QUOTE, contentHash: hash });
  assert.equal(cachedCheck.status, 'found', 'the cache still holds the page as cited');
  const moved = await periscope.verifyCitation({
    url: cited.url,
    quote: QUOTE,
    start: cited.start,
    end: cited.end,
    contentHash: hash,
    refetch: true,
  });
  assert.equal(hits('/tides'), before + 1, 'fetched again');
  assert.equal(moved.status, 'moved');
  assert.equal(moved.fromCache, false);
  assert.equal(moved.hashMatches, false);
  assert.ok((moved.start as number) > cited.start);
  assert.equal(moved.end, (moved.start as number) + QUOTE.length);
  // The fresh copy is what the next cache-first check reads.
  const again = await periscope.verifyCitation({
    url: cited.url,
    quote: QUOTE,
    start: moved.start,
    end: moved.end,
  });
  assert.deepEqual([again.status, again.fromCache], ['found', true]);
  assert.equal(hits('/tides'), before + 1);
  tideLine = 'High tide at Brest is at 07:02 and again at 19:31.';
  try {
    const changed = await periscope.verifyCitation({ url: cited.url, quote: QUOTE, refetch: true });
    assert.deepEqual([changed.status, changed.fromCache, changed.start], ['changed', false, undefined]);
    assert.notEqual(changed.contentHash, moved.contentHash);
  } finally {
    tideLine = QUOTE;
  }
  await periscope.close();
});

test('unreachable: a page that fails (with its code), and cacheOnly on a page never read (nothing fetched)', async () => {
  const periscope = open();
  const gone = await periscope.verifyCitation({ url: `${origin.url}/gone`, quote: 'anything' });
  assert.equal(gone.status, 'unreachable');
  assert.equal(gone.error?.code, 'HTTP_STATUS');
  assert.equal(gone.contentHash, undefined);
  const before = hits('/other');
  const notCached = await periscope.verifyCitation({
    url: `${origin.url}/other`,
    quote: QUOTE,
    cacheOnly: true,
  });
  assert.equal(notCached.status, 'unreachable');
  assert.equal(notCached.error?.code, 'NOT_CONFIGURED');
  assert.equal(notCached.error?.details?.reason, 'not-cached');
  assert.equal(hits('/other'), before, 'cacheOnly never fetches');
  // Cache first, not cached: read through the chain (and kept for the next check).
  const fetched = await periscope.verifyCitation({ url: `${origin.url}/other`, quote: QUOTE });
  assert.deepEqual([fetched.status, fetched.fromCache], ['found', false]);
  assert.equal(hits('/other'), before + 1);
  const cachedNow = await periscope.verifyCitation({
    url: `${origin.url}/other`,
    quote: QUOTE,
    cacheOnly: true,
  });
  assert.deepEqual([cachedNow.status, cachedNow.fromCache], ['found', true]);
  assert.equal(hits('/other'), before + 1);
  const blocked = await open({ network: {} }).verifyCitation({ url: `${origin.url}/other`, quote: QUOTE });
  assert.equal(blocked.error?.code, 'URL_BLOCKED', 'the network policy applies to these reads');
  await periscope.close();
});

test('store cache off: a short page web_fetch read in one window is checked from memory, without a request', async () => {
  lead = '<p>Tables are published weekly by the harbour office.</p>';
  const periscope = open({ cache: { enabled: false } });
  const cited = await cite(periscope, '/other');
  const before = hits('/other');
  const result = await periscope.verifyCitation({
    url: cited.url,
    quote: QUOTE,
    start: cited.start,
    end: cited.end,
    cacheOnly: true,
  });
  assert.deepEqual([result.status, result.fromCache, result.error], ['found', true, undefined]);
  assert.equal(result.contentHash, contentHash(cited.text));
  assert.equal(hits('/other'), before, 'the origin saw no request');
  // The page read from its start is still read afresh: with the store off, memory only serves what follows a read.
  const again = await periscope.fetch({ url: cited.url });
  assert.equal((again.data as WebFetchData).cached, false);
  assert.equal(hits('/other'), before + 1);
  await periscope.close();
});

test('cache.scope agent: what one agent read is not in memory for another (store on or off)', async () => {
  for (const enabled of [false, true]) {
    const periscope = open({ cache: { enabled, scope: 'agent' } });
    const read = await periscope.fetch({ url: `${origin.url}/other` }, { agentId: 'alice' });
    assert.equal(read.isError, false, read.output);
    const own = await periscope.verifyCitation(
      { url: `${origin.url}/other`, quote: QUOTE, cacheOnly: true },
      { agentId: 'alice' },
    );
    assert.deepEqual([own.status, own.fromCache], ['found', true]);
    const other = await periscope.verifyCitation(
      { url: `${origin.url}/other`, quote: QUOTE, cacheOnly: true },
      { agentId: 'bob' },
    );
    assert.deepEqual([other.status, other.error?.details?.reason], ['unreachable', 'not-cached']);
    await periscope.close();
  }
});

test('a malformed input rejects with INVALID_INPUT naming the problem', async () => {
  const periscope = open();
  await assert.rejects(
    periscope.verifyCitation({ url: `${origin.url}/tides`, quote: QUOTE, start: 4 }),
    (error: Error & { code?: string }) =>
      error.code === 'INVALID_INPUT' && /start and end together/.test(error.message),
  );
  await assert.rejects(
    periscope.verifyCitation({ url: `${origin.url}/tides`, quote: QUOTE, refetch: true, cacheOnly: true }),
    /exclude each other/,
  );
  await assert.rejects(
    periscope.verifyCitation({ url: 'not a url at all', quote: QUOTE }),
    /not a valid URL/,
  );
  await assert.rejects(
    periscope.verifyCitation({ url: `${origin.url}/tides`, quote: QUOTE, contentHash: 'md5:abc' }),
    /sha256/,
  );
  await periscope.close();
});

test('credits: a check from the cache is free; a read from the site is a web_fetch call and costs one', async () => {
  lead = '<p>Tables are published weekly by the harbour office.</p>';
  const periscope = open({ limits: { credits: { enabled: true } } });
  await periscope.credits.grant('reader', 2);
  const fetched = await periscope.fetch({ url: `${origin.url}/tides` }, { agentId: 'reader' });
  assert.equal(fetched.isError, false);
  assert.equal(await periscope.credits.balance('reader'), 1);
  const cached = await periscope.verifyCitation(
    { url: `${origin.url}/tides`, quote: QUOTE },
    { agentId: 'reader' },
  );
  assert.equal(cached.status, 'found');
  assert.equal(await periscope.credits.balance('reader'), 1, 'the cache read cost nothing');
  const refetched = await periscope.verifyCitation(
    { url: `${origin.url}/tides`, quote: QUOTE, refetch: true },
    { agentId: 'reader' },
  );
  assert.equal(refetched.status, 'found');
  assert.equal(await periscope.credits.balance('reader'), 0);
  const broke = await periscope.verifyCitation(
    { url: `${origin.url}/tides`, quote: QUOTE, refetch: true },
    { agentId: 'reader' },
  );
  assert.deepEqual([broke.status, broke.error?.code], ['unreachable', 'CREDITS_EXHAUSTED']);
  // Usage counts the page reads as web_fetch calls (the first fetch, the refetch, the refused one).
  const usage = await periscope.usage({ agentId: 'reader' });
  const fetches = usage.rows.filter((row) => row.tool === 'web_fetch');
  assert.equal(
    fetches.reduce((sum, row) => sum + row.calls, 0),
    3,
  );
  assert.equal(
    usage.rows.filter((row) => row.tool === 'verify_citation').length,
    0,
    'the library call is no tool call',
  );
  await periscope.close();
});

test('verify_citation is in no tool list by default; tools.verify_citation.enabled offers it', async () => {
  const plain = open();
  assert.deepEqual(
    plain.tools.map((tool) => tool.name),
    ['web_fetch', 'web_search', 'image_search'],
  );
  const selected = selectTools(plain.tools, ['web_fetch', 'verify_citation']);
  assert.deepEqual(selected.switchedOff, ['verify_citation']);
  await plain.close();
  const enabled = open({ tools: { verify_citation: { enabled: true } } });
  assert.ok(enabled.tools.some((tool) => tool.name === 'verify_citation'));
  const tool = enabled.tools.find((candidate) => candidate.name === 'verify_citation');
  const refused = await tool?.execute({ url: `${origin.url}/tides` });
  assert.equal(refused?.isError, true);
  assert.match(refused?.output ?? '', /quote/);
  await enabled.close();
});

test('verify_citation over MCP: listed with its schemas; a real quote is found, an invented one changed', async () => {
  lead = '<p>Tables are published weekly by the harbour office.</p>';
  const periscope = open({ tools: { verify_citation: { enabled: true } } });
  const cited = await cite(periscope);
  const server = createMcpServer({ tools: selectTools(periscope.tools, null).tools, agentId: 'mcp-test' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientSide);
  const { tools } = await client.listTools();
  const listed = tools.find((tool) => tool.name === 'verify_citation');
  assert.ok(listed, 'offered');
  assert.ok(listed.inputSchema.properties && 'quote' in listed.inputSchema.properties);
  assert.ok(listed.outputSchema?.properties && 'status' in listed.outputSchema.properties);
  const found = await client.callTool({
    name: 'verify_citation',
    arguments: { url: cited.url, quote: QUOTE, start: cited.start, end: cited.end },
  });
  assert.equal(found.isError, false);
  assert.equal((found.structuredContent as { status: string }).status, 'found');
  assert.match(
    (found.content as Array<{ text: string }>)[0]?.text ?? '',
    /^found: the quote is on .* at characters \d+–\d+/,
  );
  const invented = await client.callTool({
    name: 'verify_citation',
    arguments: { url: cited.url, quote: 'Low tide never comes.' },
  });
  assert.equal((invented.structuredContent as { status: string }).status, 'changed');
  assert.match((invented.content as Array<{ text: string }>)[0]?.text ?? '', /^changed: the quote is not on/);
  const bad = await client.callTool({ name: 'verify_citation', arguments: { url: cited.url } });
  assert.equal(bad.isError, true);
  await client.close();
  await periscope.close();
});

test('verify_citation on the gateway: /v1/tools lists it only when enabled; POST /v1/tools/verify_citation answers', async () => {
  lead = '<p>Tables are published weekly by the harbour office.</p>';
  for (const enabled of [false, true]) {
    const store = createMemoryStore();
    const periscope = createPeriscope(
      {
        network: { allowPrivateNetwork: ['127.0.0.1/32'] },
        tools: { verify_citation: { enabled } },
        gateway: { port: 0 },
      },
      { store },
    );
    const gateway = createGateway({ periscope, mcp: mountMcp, version: '0.0.0-test' });
    const { url } = await gateway.listen();
    try {
      const list = await httpCall(`${url}/v1/tools`);
      const names = (list.json as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name);
      assert.equal(names.includes('verify_citation'), enabled);
      const headers = { 'content-type': 'application/json' };
      const fetched = await httpCall(`${url}/v1/tools/web_fetch`, {
        headers,
        body: JSON.stringify({ url: `${origin.url}/tides` }),
      });
      assert.equal(fetched.status, 200);
      const call = await httpCall(`${url}/v1/tools/verify_citation`, {
        headers,
        body: JSON.stringify({ url: `${origin.url}/tides`, quote: QUOTE }),
      });
      if (!enabled) {
        assert.equal(call.status, 404);
        continue;
      }
      assert.equal(call.status, 200, call.text);
      const result = call.json as { isError: boolean; data: { status: string; fromCache: boolean } };
      assert.equal(result.isError, false);
      assert.deepEqual([result.data.status, result.data.fromCache], ['found', true]);
      const openApi = await httpCall(`${url}/openapi.json`);
      assert.match(openApi.text, /verify_citation/);
    } finally {
      await gateway.close();
      await periscope.close();
      await store.close();
    }
  }
});
