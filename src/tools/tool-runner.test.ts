import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import { createPeriscope, type Periscope } from '../index.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import type { Tool, ToolExecuteOptions } from './tool.ts';
import { runToolCalls, type ToolCall } from './tool-runner.ts';

// The runner over the real tools, against a stand-in that counts how many requests are in flight at once.

let server: TestServer;
let periscope: Periscope;
let inFlight = 0;
let maxInFlight = 0;
/** [path, 'start' | 'end'] in the order the stand-in saw them. */
const timeline: Array<[string, 'start' | 'end']> = [];
const closedEarly: string[] = [];

const PAGE = (n: string) =>
  `<html><head><title>Page ${n}</title></head><body><article><h1>Page ${n}</h1><p>${'This page is number '.repeat(
    5,
  )}${n}, served by the stand-in for the runner tests.</p></article></body></html>`;

before(async () => {
  server = await startTestServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    if (url.pathname === '/robots.txt') return void response.writeHead(404).end();
    const path = `${url.pathname}${url.search}`;
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    timeline.push([path, 'start']);
    let open = true;
    response.on('close', () => {
      if (open) closedEarly.push(path);
      open = false;
    });
    const delay = Number(url.searchParams.get('delay') ?? 30);
    if (url.pathname !== '/hang') await new Promise((resolve) => setTimeout(resolve, delay));
    else await new Promise<void>((resolve) => response.on('close', () => resolve()));
    inFlight -= 1;
    timeline.push([path, 'end']);
    if (!open) return;
    open = false;
    if (url.pathname.startsWith('/brave')) {
      const query = url.searchParams.get('q') ?? '';
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          web: { results: [{ title: query, url: 'https://r.example/', description: 'snippet' }] },
        }),
      );
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE(url.searchParams.get('n') ?? '?'));
  });
  periscope = createPeriscope({
    network: { allowPrivateNetwork: ['127.0.0.1/32'] },
    search: { chain: ['brave'] },
    providers: { brave: { baseUrl: `${server.url}/brave`, apiKey: 'k', minIntervalMs: 0 } },
    store: { url: 'memory:' },
  });
});

after(async () => {
  await periscope.close();
  await server.close();
});

function reset() {
  inFlight = 0;
  maxInFlight = 0;
  timeline.length = 0;
  closedEarly.length = 0;
}

/** Wait for a condition the stand-in reports, at most 5 s. */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    assert.ok(Date.now() < deadline, 'timed out waiting for the stand-in');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const fetchCall = (id: string, query: string): ToolCall => ({
  id,
  name: 'web_fetch',
  input: { url: `${server.url}/page?${query}` },
});

test('results come back in call order, matched to call ids, whatever order the calls finish in', async () => {
  reset();
  const calls = [
    fetchCall('call_a', 'n=a&delay=400'),
    fetchCall('call_b', 'n=b&delay=10'),
    { id: 'call_c', name: 'web_search', input: JSON.stringify({ query: 'ordering' }) },
    fetchCall('call_d', 'n=d&delay=60'),
  ];
  const results = await runToolCalls(calls, { tools: periscope.tools, concurrency: 4 });
  assert.deepEqual(
    results.map((entry) => entry.id),
    ['call_a', 'call_b', 'call_c', 'call_d'],
  );
  assert.deepEqual(
    results.map((entry) => entry.result.isError),
    [false, false, false, false],
  );
  assert.match(results[0]?.result.output ?? '', /Page a/);
  assert.match(results[2]?.result.output ?? '', /^Results for: ordering/);
  assert.match(results[3]?.result.output ?? '', /Page d/);
  const endOf = (marker: string) =>
    timeline.findIndex(([path, kind]) => kind === 'end' && path.includes(marker));
  assert.ok(endOf('n=b') < endOf('n=a'), 'the second call finished before the first');
});

test('onResult reports each call as soon as it ends, in the order they end, before the batch resolves', async () => {
  reset();
  const calls = [fetchCall('slow', 'n=s&delay=400'), fetchCall('fast', 'n=f&delay=10')];
  const ended: Array<[number, boolean]> = [];
  let batchDone = false;
  const batch = runToolCalls(calls, {
    tools: periscope.tools,
    onResult: (index, result) => ended.push([index, result.isError]),
  }).then((results) => {
    batchDone = true;
    return results;
  });
  await until(() => ended.length === 1);
  assert.deepEqual(ended, [[1, false]], 'the fast call is reported while the slow one still runs');
  assert.equal(batchDone, false);
  await batch;
  assert.deepEqual(ended, [
    [1, false],
    [0, false],
  ]);
});

test('no more calls run at once than the concurrency limit (seen at the stand-in)', async () => {
  reset();
  const calls = Array.from({ length: 9 }, (_, index) =>
    fetchCall(`c${index}`, `n=${index}&limit=1&delay=150`),
  );
  const results = await runToolCalls(calls, { tools: periscope.tools, concurrency: 3 });
  assert.equal(
    results.every((entry) => !entry.result.isError),
    true,
  );
  assert.equal(maxInFlight, 3);
});

test('an exclusive tool runs alone: nothing else is in flight while it runs', async () => {
  reset();
  const calls = [
    fetchCall('f1', 'n=1&excl=1&delay=50'),
    fetchCall('f2', 'n=2&excl=1&delay=50'),
    { id: 's1', name: 'web_search', input: { query: 'alone', count: 1 } },
    fetchCall('f3', 'n=3&excl=1&delay=50'),
    fetchCall('f4', 'n=4&excl=1&delay=50'),
  ];
  const results = await runToolCalls(calls, {
    tools: periscope.tools,
    concurrency: 4,
    exclusive: new Set(['web_search']),
  });
  assert.equal(
    results.every((entry) => !entry.result.isError),
    true,
  );
  const searchStart = timeline.findIndex(([path, kind]) => path.startsWith('/brave') && kind === 'start');
  const searchEnd = timeline.findIndex(([path, kind]) => path.startsWith('/brave') && kind === 'end');
  const during = timeline.slice(searchStart + 1, searchEnd);
  assert.deepEqual(during, [], 'no page request started or ended while the search ran');
  const before = timeline.slice(0, searchStart);
  assert.equal(before.filter(([, kind]) => kind === 'start').length, 2);
  assert.equal(before.filter(([, kind]) => kind === 'end').length, 2, 'the earlier calls finished first');
});

test('one failing call never touches the others: blocked URL, unknown tool, bad JSON, a throwing tool', async () => {
  reset();
  const throwing: Tool = {
    name: 'image_search',
    description: 'a tool with a bug',
    inputSchema: z.object({}),
    jsonSchema: { type: 'object' },
    execute: () => {
      throw new Error('boom');
    },
  };
  const tools = [...periscope.tools.filter((tool) => tool.name !== 'image_search'), throwing];
  const results = await runToolCalls(
    [
      fetchCall('ok1', 'n=ok1'),
      { id: 'blocked', name: 'web_fetch', input: { url: 'http://169.254.169.254/' } },
      { id: 'unknown', name: 'web_browse', input: {} },
      { id: 'json', name: 'web_search', input: '{"query": "unterminated' },
      { id: 'throws', name: 'image_search', input: { query: 'x' } },
      fetchCall('ok2', 'n=ok2'),
    ],
    { tools, concurrency: 2 },
  );
  const byId = Object.fromEntries(results.map((entry) => [entry.id, entry.result]));
  assert.equal(byId.ok1?.isError, false);
  assert.equal(byId.ok2?.isError, false);
  const errorOf = (id: string) =>
    (byId[id]?.data as { error: { code: string; message: string } } | undefined)?.error;
  const codes = (id: string) => errorOf(id)?.code;
  assert.equal(codes('blocked'), 'URL_BLOCKED');
  assert.equal(codes('unknown'), 'INVALID_INPUT');
  assert.match(byId.unknown?.output ?? '', /web_browse/);
  assert.equal(codes('json'), 'INVALID_INPUT');
  assert.match(byId.json?.output ?? '', /not valid JSON/);
  assert.equal(byId.throws?.isError, true);
  assert.match(errorOf('throws')?.message ?? '', /boom/);
});

test('the signal aborts every call: running ones close their connection, queued ones never start', async () => {
  reset();
  const controller = new AbortController();
  const calls = Array.from({ length: 5 }, (_, index) => ({
    id: `h${index}`,
    name: 'web_fetch',
    input: { url: `${server.url}/hang?n=${index}` },
  }));
  const pending = runToolCalls(calls, { tools: periscope.tools, concurrency: 2, signal: controller.signal });
  await until(() => inFlight >= 2);
  controller.abort();
  // Every call ABORTED, none a TIMEOUT: the abort settled the batch (the hang never answers), shown by the codes
  // rather than by a clock a loaded machine stretches.
  const results = await pending;
  assert.deepEqual(
    results.map((entry) => (entry.result.data as { error: { code: string } }).error.code),
    ['ABORTED', 'ABORTED', 'ABORTED', 'ABORTED', 'ABORTED'],
  );
  await until(() => closedEarly.length >= 2);
  assert.deepEqual(closedEarly.sort(), ['/hang?n=0', '/hang?n=1']);
  assert.equal(
    timeline.filter(([, kind]) => kind === 'start').length,
    2,
    'queued calls never reached the network',
  );
});

test('every call of a batch shares one session id (the repeat-throttle scope) and the agent id', async () => {
  const seen: ToolExecuteOptions[] = [];
  const spy: Tool = {
    name: 'web_search',
    description: 'records its options',
    inputSchema: z.object({}),
    jsonSchema: { type: 'object' },
    execute: async (_input, options = {}) => {
      seen.push(options);
      return { isError: false, output: 'ok' };
    },
  };
  const calls = [1, 2, 3].map((n) => ({ id: `s${n}`, name: 'web_search', input: {} }));
  await runToolCalls(calls, { tools: [spy], agentId: 'agent-7' });
  const sessions = new Set(seen.map((options) => options.sessionId));
  assert.equal(sessions.size, 1);
  assert.equal(typeof [...sessions][0], 'string');
  assert.deepEqual(
    seen.map((options) => options.agentId),
    ['agent-7', 'agent-7', 'agent-7'],
  );
  seen.length = 0;
  await runToolCalls(calls, { tools: [spy], session: 'turn-42' });
  assert.deepEqual(
    seen.map((options) => options.sessionId),
    ['turn-42', 'turn-42', 'turn-42'],
  );
});

test('the repeat throttle applies across a batch: the same lookup a third time in one session is refused', async () => {
  reset();
  const same = (id: string) => ({ id, name: 'web_search', input: { query: 'spring tides runner' } });
  const results = await runToolCalls([same('r1'), same('r2'), same('r3'), fetchCall('r4', 'n=other')], {
    tools: periscope.tools,
    session: 'turn-repeat',
    concurrency: 4,
  });
  const codes = results.map(
    ({ result }) => (result.data as { error?: { code: string } } | undefined)?.error?.code ?? 'ok',
  );
  assert.deepEqual(codes.slice(0, 3).sort(), ['REPEATED_LOOKUP', 'ok', 'ok'], 'limits.repeatLookups is 2');
  assert.equal(codes[3], 'ok', 'another lookup in the batch is not affected');
  const again = await runToolCalls([same('r5')], { tools: periscope.tools, session: 'turn-next' });
  assert.equal(again[0]?.result.isError, false, 'another session starts afresh');
});

test('an empty batch resolves to no results', async () => {
  assert.deepEqual(await runToolCalls([], { tools: periscope.tools }), []);
});
