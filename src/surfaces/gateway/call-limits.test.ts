// gateway.maxConcurrentCalls / maxQueuedCalls over real sockets: a gateway on 127.0.0.1:0 and a local origin whose
// /held page answers only when the test releases it. No timing assertions: every wait is on an observed state.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { GatewayConfig } from '../../config/gateway-schema.ts';
import { createPeriscope, type Periscope } from '../../index.ts';
import { createMemoryStore } from '../../store/memory-store.ts';
import { type HttpCallResult, httpCall } from '../../testing/http-call.ts';
import { parsePrometheusText } from '../../testing/prometheus-text.ts';
import { startTestServer, type TestServer } from '../../testing/test-server.ts';
import { createCallLimiter } from './call-limiter.ts';
import { createGateway, type Gateway } from './gateway.ts';
import { mountMcp } from './mount-mcp.ts';

const PAGE = `<!doctype html><html><head><title>Held</title></head><body><main><article>
<h1>Held page</h1><p>${'This page was held until the test let it go. '.repeat(20)}</p>
</article></main></body></html>`;
const JSON_TYPE = { 'content-type': 'application/json' };

interface HeldOrigin {
  server: TestServer;
  /** Requests to /held being held now, and the most ever held at once. */
  readonly active: number;
  readonly maxActive: number;
  /** The query strings of every /held request that arrived. */
  arrived(): string[];
  /** Answer every held request, and every later one at once. */
  release(): void;
}

async function startHeldOrigin(): Promise<HeldOrigin> {
  const waiting: Array<() => void> = [];
  let released = false;
  let active = 0;
  let maxActive = 0;
  const server = await startTestServer({
    'GET /held': async (_request, response) => {
      active += 1;
      maxActive = Math.max(maxActive, active);
      if (!released) await new Promise<void>((resolve) => waiting.push(resolve));
      active -= 1;
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    },
  });
  return {
    server,
    get active() {
      return active;
    },
    get maxActive() {
      return maxActive;
    },
    arrived: () =>
      server.calls.filter((call) => call.url.pathname === '/held').map((call) => call.url.search),
    release() {
      released = true;
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
}

interface Running {
  url: string;
  gateway: Gateway;
  periscope: Periscope;
  close(): Promise<void>;
}

async function startGateway(gateway: Partial<GatewayConfig>): Promise<Running> {
  const store = createMemoryStore();
  const periscope = createPeriscope(
    { network: { allowPrivateNetwork: ['127.0.0.1/32'] }, gateway: { port: 0, ...gateway } },
    { store },
  );
  const server = createGateway({ periscope, mcp: mountMcp, version: '0.0.0-test' });
  const { url } = await server.listen();
  return {
    url,
    gateway: server,
    periscope,
    close: async () => {
      await server.close();
      await periscope.close();
      await store.close();
    },
  };
}

/** Waits (polling) until `condition` holds; fails after a deadline generous enough for a loaded CI machine. */
async function until(condition: () => boolean, what: string, deadlineMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > deadlineMs) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function fetchHeld(running: Running, origin: HeldOrigin, tag: string, signal?: AbortSignal) {
  return httpCall(`${running.url}/v1/tools/web_fetch`, {
    headers: JSON_TYPE,
    body: JSON.stringify({ url: `${origin.server.url}/held?${tag}` }),
    ...(signal ? { signal } : {}),
  });
}

async function scrape(running: Running) {
  const families = parsePrometheusText((await httpCall(`${running.url}/metrics`)).text);
  return (family: string, labels: Record<string, string> = {}) =>
    families
      .get(family)
      ?.samples.find((sample) =>
        Object.entries(labels).every(([name, wanted]) => sample.labels[name] === wanted),
      )?.value;
}

type ToolResultBody = {
  isError: boolean;
  output: string;
  data: {
    error?: { code: string; retryable: boolean; retryAfterMs?: number; details?: { reason?: string } };
  };
};

test('maxConcurrentCalls 2, maxQueuedCalls 1: two run, the third waits, the fourth gets 503 + Retry-After; all finish after release', async () => {
  const origin = await startHeldOrigin();
  const running = await startGateway({ maxConcurrentCalls: 2, maxQueuedCalls: 1 });
  try {
    const first = fetchHeld(running, origin, 'a');
    const second = fetchHeld(running, origin, 'b');
    await until(() => origin.active === 2, 'the origin holds two requests');
    const third = fetchHeld(running, origin, 'c');
    await until(() => running.gateway.metrics.queued === 1, 'the third call is queued');

    const fourth = await fetchHeld(running, origin, 'd');
    assert.equal(fourth.status, 503, fourth.text);
    assert.equal(fourth.headers['retry-after'], '1');
    const refused = fourth.json as ToolResultBody;
    assert.equal(refused.isError, true);
    assert.equal(refused.data.error?.code, 'RATE_LIMITED');
    assert.equal(refused.data.error?.retryable, true);
    assert.equal(refused.data.error?.retryAfterMs, 1000);
    assert.equal(refused.data.error?.details?.reason, 'overloaded');
    assert.match(refused.output, /The gateway is at capacity \(2 calls running, 1 waiting\)/);

    const during = await scrape(running);
    assert.equal(during('periscope_tool_calls_in_flight'), 2);
    assert.equal(during('periscope_tool_calls_queued'), 1);
    assert.equal(during('periscope_tool_calls_refused_total', { surface: 'rest', reason: 'overloaded' }), 1);
    assert.equal(during('periscope_http_requests_total', { route: '/v1/tools/web_fetch', status: '503' }), 1);
    assert.deepEqual(
      origin.arrived().sort(),
      ['?a', '?b'],
      'the queued and the refused call never reached it',
    );

    origin.release();
    for (const [tag, answer] of [
      ['a', await first],
      ['b', await second],
      ['c', await third],
    ] as Array<[string, HttpCallResult]>) {
      assert.equal(answer.status, 200, `${tag}: ${answer.text}`);
      assert.equal((answer.json as ToolResultBody).isError, false, `${tag}: ${answer.text}`);
    }
    assert.equal(origin.maxActive, 2, 'never more than maxConcurrentCalls at the origin');
    assert.deepEqual(origin.arrived().sort(), ['?a', '?b', '?c']);

    const after = await scrape(running);
    assert.equal(after('periscope_tool_calls_in_flight'), 0);
    assert.equal(after('periscope_tool_calls_queued'), 0);
    assert.equal(
      after('periscope_tool_calls_total', { tool: 'web_fetch', surface: 'rest', outcome: 'ok' }),
      3,
    );
  } finally {
    origin.release();
    await running.close();
    await origin.server.close();
  }
});

test('a queued call whose client disconnects (REST) or cancels (MCP) leaves the queue and never reaches the origin', async () => {
  const origin = await startHeldOrigin();
  const running = await startGateway({ maxConcurrentCalls: 1, maxQueuedCalls: 5 });
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import(
    '@modelcontextprotocol/sdk/client/streamableHttp.js'
  );
  const client = new Client({ name: 'call-limits-test', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`)));
    const holder = fetchHeld(running, origin, 'holder');
    await until(() => origin.active === 1, 'the origin holds the first request');

    const gone = new AbortController();
    const restQueued = fetchHeld(running, origin, 'rest-gone', gone.signal).catch((error: Error) => error);
    const cancel = new AbortController();
    const mcpQueued = client
      .callTool({ name: 'web_fetch', arguments: { url: `${origin.server.url}/held?mcp-gone` } }, undefined, {
        signal: cancel.signal,
      })
      .catch((error: Error) => error);
    await until(() => running.gateway.metrics.queued === 2, 'both calls are queued');

    gone.abort();
    assert.ok((await restQueued) instanceof Error, 'the REST client went away');
    await until(() => running.gateway.metrics.queued === 1, 'the REST call left the queue');
    cancel.abort();
    assert.ok((await mcpQueued) instanceof Error, 'the MCP client cancelled');
    await until(() => running.gateway.metrics.queued === 0, 'the MCP call left the queue');

    origin.release();
    assert.equal((await holder).status, 200);
    // A later call runs: had either left-behind call still been queued, it would have gone first (FIFO).
    const later = await fetchHeld(running, origin, 'later');
    assert.equal(later.status, 200, later.text);
    assert.deepEqual(origin.arrived().sort(), ['?holder', '?later']);
    const metrics = await scrape(running);
    assert.equal(metrics('periscope_tool_calls_refused_total', { reason: 'overloaded' }), undefined);
  } finally {
    origin.release();
    await client.close().catch(() => {});
    await running.close();
    await origin.server.close();
  }
});

test('MCP: a call past the queue is an isError result with the sentence; on close() queued calls are answered at once', async () => {
  const origin = await startHeldOrigin();
  const running = await startGateway({ maxConcurrentCalls: 1, maxQueuedCalls: 2 });
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import(
    '@modelcontextprotocol/sdk/client/streamableHttp.js'
  );
  const client = new Client({ name: 'call-limits-mcp-test', version: '1.0.0' });
  type McpResult = { isError?: boolean; content: Array<{ type: string; text?: string }> };
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`)));
    const holder = fetchHeld(running, origin, 'holder');
    await until(() => origin.active === 1, 'the origin holds the first request');
    const restQueued = fetchHeld(running, origin, 'rest-queued');
    const callHeld = (tag: string) =>
      client.callTool({
        name: 'web_fetch',
        arguments: { url: `${origin.server.url}/held?${tag}` },
      }) as Promise<McpResult>;
    const mcpQueued = callHeld('mcp-queued');
    await until(() => running.gateway.metrics.queued === 2, 'two calls are queued');

    const refused = await callHeld('mcp-refused');
    assert.equal(refused.isError, true);
    assert.match(refused.content[0]?.text ?? '', /The gateway is at capacity \(1 calls running, 2 waiting\)/);
    assert.match(refused.content[0]?.text ?? '', /RATE_LIMITED/);
    const metrics = await scrape(running);
    assert.equal(metrics('periscope_tool_calls_refused_total', { surface: 'mcp', reason: 'overloaded' }), 1);

    // Shutdown: the queued calls are answered while the running one is still held at the origin.
    const closing = running.gateway.close();
    const restAnswer = await restQueued;
    assert.equal(restAnswer.status, 503, restAnswer.text);
    assert.equal(restAnswer.headers['retry-after'], '1');
    const restBody = restAnswer.json as ToolResultBody;
    assert.equal(restBody.isError, true);
    assert.equal(restBody.data.error?.details?.reason, 'shutting-down');
    assert.match(restBody.output, /shutting down/);
    const mcpAnswer = await mcpQueued;
    assert.equal(mcpAnswer.isError, true);
    assert.match(mcpAnswer.content[0]?.text ?? '', /shutting down and did not start this call/);
    assert.equal(origin.active, 1, 'the running call is still held');

    origin.release();
    const holderAnswer = await holder;
    assert.equal(holderAnswer.status, 200, holderAnswer.text);
    assert.equal((holderAnswer.json as ToolResultBody).isError, false, holderAnswer.text);
    assert.deepEqual(await closing, { drained: true, inFlightAtStart: 1 });
    assert.deepEqual(origin.arrived(), ['?holder']);
  } finally {
    origin.release();
    await client.close().catch(() => {});
    await running.close();
    await origin.server.close();
  }
});

test('the limiter: FIFO order, refusal past the queue, abort while queued, close() refuses the queue', async () => {
  const counts: Array<{ running: number; queued: number }> = [];
  const limiter = createCallLimiter({ maxConcurrent: 1, maxQueued: 2, onChange: (now) => counts.push(now) });
  const first = await limiter.acquire();
  const order: string[] = [];
  const second = limiter.acquire().then((release) => {
    order.push('second');
    return release;
  });
  const gone = new AbortController();
  const third = limiter.acquire(gone.signal);
  await assert.rejects(
    limiter.acquire(),
    (error: Error & { code?: string }) => error.code === 'RATE_LIMITED',
  );
  gone.abort();
  await assert.rejects(third, (error: Error & { code?: string }) => error.code === 'ABORTED');
  const fourth = limiter.acquire().then((release) => {
    order.push('fourth');
    return release;
  });
  assert.deepEqual([limiter.running, limiter.queued], [1, 2]);
  first();
  first(); // releasing twice gives back one slot
  (await second)();
  (await fourth)();
  assert.deepEqual(order, ['second', 'fourth']);
  assert.deepEqual([limiter.running, limiter.queued], [0, 0]);
  assert.deepEqual(counts.at(-1), { running: 0, queued: 0 });

  const holding = await limiter.acquire();
  const queued = limiter.acquire();
  limiter.close();
  await assert.rejects(queued, /shutting down/);
  await assert.rejects(limiter.acquire(), /shutting down/);
  holding();
  assert.equal(limiter.running, 0);
});
