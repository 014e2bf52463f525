// The gateway over real sockets: a gateway on 127.0.0.1:0, tools pointed at a local origin, a memory store.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';
import type { GatewayConfig } from '../../config/gateway-schema.ts';
import { createPeriscope, type Periscope, type PeriscopeConfigInput } from '../../index.ts';
import { createApiKey, revokeApiKey } from '../../keys/api-keys.ts';
import { createMemoryStore } from '../../store/memory-store.ts';
import { createSqliteStore } from '../../store/sqlite-store.ts';
import type { Store } from '../../store/store.ts';
import { httpCall } from '../../testing/http-call.ts';
import { parsePrometheusText } from '../../testing/prometheus-text.ts';
import { startTestServer, type TestServer } from '../../testing/test-server.ts';
import { createGateway, type Gateway } from './gateway.ts';
import { mountMcp } from './mount-mcp.ts';

const PAGE = `<!doctype html><html><head><title>Tide tables</title></head><body><main><article>
<h1>Tide tables for Brest</h1><p>${'High tide is at 06:12 and again at 18:40. '.repeat(20)}</p>
</article></main></body></html>`;

let origin: TestServer;
let slowArrived: () => void = () => {};
before(async () => {
  origin = await startTestServer({
    'GET /page': (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE),
    'GET /slow': async (_request, response) => {
      slowArrived();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    },
  });
});
after(() => origin.close());

interface Running {
  url: string;
  gateway: Gateway;
  periscope: Periscope;
  store: Store;
  close(): Promise<void>;
}

async function startGateway(
  gateway: Partial<GatewayConfig> = {},
  config: PeriscopeConfigInput = {},
): Promise<Running> {
  const store = createMemoryStore();
  const periscope = createPeriscope(
    { network: { allowPrivateNetwork: ['127.0.0.1/32'] }, ...config, gateway: { port: 0, ...gateway } },
    { store },
  );
  const server = createGateway({ periscope, mcp: mountMcp, version: '0.0.0-test' });
  const { url } = await server.listen();
  return {
    url,
    gateway: server,
    periscope,
    store,
    close: async () => {
      await server.close();
      await periscope.close();
      await store.close();
    },
  };
}

const json = (body: unknown) => JSON.stringify(body);
const bearer = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
const JSON_TYPE = { 'content-type': 'application/json' };

function fetchPage(url: string, headers: Record<string, string>) {
  return httpCall(`${url}/v1/tools/web_fetch`, { headers, body: json({ url: `${origin.url}/page` }) });
}

describe('open mode (no keys: loopback, no authentication)', () => {
  let running: Running;
  before(async () => {
    running = await startGateway();
  });
  after(() => running.close());

  test('POST /v1/tools/web_fetch: tool input in, ToolResult out', async () => {
    const response = await fetchPage(running.url, JSON_TYPE);
    assert.equal(response.status, 200, response.text);
    const result = response.json as {
      isError: boolean;
      output: string;
      data: { finalUrl: string; title: string };
    };
    assert.equal(result.isError, false);
    assert.equal(result.data.finalUrl, `${origin.url}/page`);
    assert.equal(result.data.title, 'Tide tables');
    assert.match(result.output, /High tide is at 06:12/);
  });

  test('Periscope-Return: both (the default), output (no data.text), data (no output); any other value is 400', async () => {
    const call = (headers: Record<string, string> = {}) =>
      fetchPage(running.url, { ...JSON_TYPE, ...headers });
    type Answer = { isError: boolean; output?: string; data: Record<string, unknown>; display?: string };
    await call(); // then every answer below is the cached page
    const [plain, both, output, data] = [
      await call(),
      await call({ 'periscope-return': 'both' }),
      await call({ 'periscope-return': 'output' }),
      await call({ 'periscope-return': 'data' }),
    ];
    for (const answer of [plain, both, output, data]) assert.equal(answer.status, 200, answer.text);
    // The same answer, but for the envelope's id (fresh for every output) and the cache's age.
    const same = (answer: Answer) => ({
      ...answer,
      output: answer.output?.replace(/ id="[0-9a-f]+"/g, ''),
      data: { ...answer.data, cacheAgeSeconds: undefined },
      display: undefined,
    });
    const whole = plain.json as Answer;
    assert.equal(whole.isError, false);
    const text = String(whole.data.text);
    assert.match(text, /High tide is at 06:12/);
    assert.ok(whole.output?.includes(text), 'the text twice: in output and in data.text');
    assert.deepEqual(Object.keys(both.json as object), Object.keys(whole));
    assert.deepEqual(same(both.json as Answer), same(whole));

    const withoutText = output.json as Answer;
    assert.deepEqual(Object.keys(withoutText), Object.keys(whole));
    assert.equal('text' in withoutText.data, false);
    const { text: _text, ...otherData } = whole.data;
    assert.deepEqual(same(withoutText), same({ ...whole, data: otherData }));
    assert.ok(output.text.length < plain.text.length - text.length);

    const withoutOutput = data.json as Answer;
    assert.equal('output' in withoutOutput, false);
    assert.deepEqual(same(withoutOutput), { ...same(whole), output: undefined });

    for (const value of ['OUTPUT', 'text', 'output, data', '']) {
      const refused = await call({ 'periscope-return': value });
      assert.equal(refused.status, 400, value);
      const { error } = refused.json as { error: { code: string; message: string } };
      assert.equal(error.code, 'BAD_REQUEST');
      assert.match(error.message, /Periscope-Return .*both, output, data/);
    }
  });

  test('a tool failure is still 200, with isError and the code', async () => {
    const blocked = await httpCall(`${running.url}/v1/tools/web_fetch`, {
      headers: JSON_TYPE,
      body: json({ url: 'http://10.1.2.3/' }),
    });
    assert.equal(blocked.status, 200);
    const result = blocked.json as { isError: boolean; data: { error: { code: string } } };
    assert.equal(result.isError, true);
    assert.equal(result.data.error.code, 'URL_BLOCKED');

    const invalid = await httpCall(`${running.url}/v1/tools/web_fetch`, { headers: JSON_TYPE, body: '{}' });
    assert.equal(invalid.status, 200);
    assert.equal((invalid.json as { data: { error: { code: string } } }).data.error.code, 'INVALID_INPUT');
  });

  test('transport problems are 4xx: bad JSON, unknown tool, wrong method, not JSON', async () => {
    const badJson = await httpCall(`${running.url}/v1/tools/web_fetch`, {
      headers: JSON_TYPE,
      body: '{"url":',
    });
    assert.equal(badJson.status, 400);
    assert.equal((badJson.json as { error: { code: string } }).error.code, 'BAD_REQUEST');
    const unknown = await httpCall(`${running.url}/v1/tools/web_crawl`, { headers: JSON_TYPE, body: '{}' });
    assert.equal(unknown.status, 404);
    assert.match((unknown.json as { error: { message: string } }).error.message, /web_fetch, web_search/);
    const wrongMethod = await httpCall(`${running.url}/v1/tools/web_fetch`);
    assert.equal(wrongMethod.status, 405);
    assert.equal(wrongMethod.headers.allow, 'POST');
    const form = await httpCall(`${running.url}/v1/tools/web_fetch`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'url=x',
    });
    assert.equal(form.status, 415);
  });

  test('GET /v1/tools lists the tools with their JSON Schemas; /openapi.json is generated from them', async () => {
    const listed = (await httpCall(`${running.url}/v1/tools`)).json as {
      tools: Array<{ name: string; inputSchema: { properties: Record<string, unknown> } }>;
    };
    assert.deepEqual(
      listed.tools.map((tool) => tool.name),
      ['web_fetch', 'web_search', 'image_search'],
    );
    assert.ok(listed.tools[0]?.inputSchema.properties.url);

    const spec = (await httpCall(`${running.url}/openapi.json`)).json as {
      openapi: string;
      paths: Record<string, { post?: { requestBody: { content: Record<string, { schema: unknown }> } } }>;
    };
    assert.equal(spec.openapi, '3.1.0');
    const { $schema: _dialect, ...webFetchSchema } = (listed.tools[0] as unknown as { inputSchema: object })
      .inputSchema as Record<string, unknown>;
    assert.deepEqual(
      spec.paths['/v1/tools/web_fetch']?.post?.requestBody.content['application/json']?.schema,
      webFetchSchema,
    );
    for (const name of ['web_search', 'image_search']) assert.ok(spec.paths[`/v1/tools/${name}`]?.post);
  });

  test('/healthz and /v1/status', async () => {
    assert.deepEqual((await httpCall(`${running.url}/healthz`)).json, { status: 'ok' });
    const status = (await httpCall(`${running.url}/v1/status`)).json as {
      agent: string;
      key: null;
      credits: { balance: number };
      providers: Array<{ id: string; health: { state: string } }>;
    };
    assert.equal(status.agent, 'default');
    assert.equal(status.key, null);
    assert.equal(status.credits.balance, 0);
    assert.ok(status.providers.some((provider) => provider.id === 'duckduckgo'));
  });

  test('open mode checks Host on every route (a rebinding page cannot use it)', async () => {
    const rebound = await httpCall(`${running.url}/v1/tools`, { headers: { host: 'evil.example:80' } });
    assert.equal(rebound.status, 403);
    const foreignPage = await httpCall(`${running.url}/v1/tools/web_fetch`, {
      headers: { ...JSON_TYPE, origin: 'http://evil.example' },
      body: json({ url: `${origin.url}/page` }),
    });
    assert.equal(foreignPage.status, 403);
  });

  test('admin routes need an admin key, which open mode does not have', async () => {
    const response = await httpCall(`${running.url}/v1/admin/keys`);
    assert.equal(response.status, 403);
    assert.match(
      (response.json as { error: { message: string } }).error.message,
      /keys create --agent NAME --admin/,
    );
  });
});

describe('API keys', () => {
  let running: Running;
  let alice: string;
  let bob: string;
  let admin: string;
  before(async () => {
    running = await startGateway({ authFailuresPerMinute: 1000 });
    alice = (await createApiKey(running.store, { agent: 'alice' })).key;
    bob = (await createApiKey(running.store, { agent: 'bob', rate: { limit: 2, windowMs: 60_000 } })).key;
    admin = (await createApiKey(running.store, { agent: 'ops', admin: true })).key;
    await new Promise((resolve) => setTimeout(resolve, 1100)); // "any keys?" is remembered for a second
  });
  after(() => running.close());

  test('a key is required, and must be right', async () => {
    const missing = await fetchPage(running.url, JSON_TYPE);
    assert.equal(missing.status, 401);
    assert.equal(missing.headers['www-authenticate'], 'Bearer realm="periscope"');
    const wrongSecret = `${alice.slice(0, -4)}AAAA`;
    assert.equal((await fetchPage(running.url, bearer(wrongSecret))).status, 401);
    assert.equal((await fetchPage(running.url, bearer('not-a-key'))).status, 401);
    const basic = await fetchPage(running.url, { ...JSON_TYPE, authorization: `Basic ${alice}` });
    assert.equal(basic.status, 401);
    for (const path of ['/v1/tools', '/v1/status', '/metrics']) {
      assert.equal((await httpCall(`${running.url}${path}`)).status, 401, path);
    }
    assert.equal((await httpCall(`${running.url}/healthz`)).status, 200);
    assert.equal((await httpCall(`${running.url}/openapi.json`)).status, 200);

    const ok = await fetchPage(running.url, bearer(alice));
    assert.equal(ok.status, 200);
    assert.equal((ok.json as { isError: boolean }).isError, false);
  });

  test('each key is its agent: /v1/status names it', async () => {
    const status = (await httpCall(`${running.url}/v1/status`, { headers: bearer(alice) })).json as {
      agent: string;
      key: { id: string; admin: boolean };
    };
    assert.equal(status.agent, 'alice');
    assert.equal(status.key.admin, false);
    const other = await httpCall(`${running.url}/v1/status?agent=bob`, { headers: bearer(alice) });
    assert.equal(other.status, 403);
    const asAdmin = await httpCall(`${running.url}/v1/status?agent=bob`, { headers: bearer(admin) });
    assert.equal((asAdmin.json as { agent: string }).agent, 'bob');
  });

  test("a key's own rate limit answers 429 and touches no other key", async () => {
    for (let call = 0; call < 2; call++)
      assert.equal((await fetchPage(running.url, bearer(bob))).status, 200);
    const limited = await fetchPage(running.url, bearer(bob));
    assert.equal(limited.status, 429);
    assert.equal((limited.json as { error: { code: string } }).error.code, 'RATE_LIMITED');
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.equal((await fetchPage(running.url, bearer(alice))).status, 200, "bob's limit is not alice's");
  });

  test('a revoked key stops working at once', async () => {
    const { key, record } = await createApiKey(running.store, { agent: 'carol' });
    assert.equal((await fetchPage(running.url, bearer(key))).status, 200);
    await revokeApiKey(running.store, record.id);
    const revoked = await fetchPage(running.url, bearer(key));
    assert.equal(revoked.status, 401);
  });

  test('admin routes: keys and credits with an admin key, 403 with any other', async () => {
    assert.equal((await httpCall(`${running.url}/v1/admin/keys`, { headers: bearer(alice) })).status, 403);
    const grantAsAlice = await httpCall(`${running.url}/v1/admin/credits`, {
      headers: bearer(alice),
      body: json({ agent: 'alice', amount: 1000 }),
    });
    assert.equal(grantAsAlice.status, 403);

    const created = await httpCall(`${running.url}/v1/admin/keys`, {
      headers: bearer(admin),
      body: json({ agent: 'dave', credits: 50, rate: '100/min', note: 'ci' }),
    });
    assert.equal(created.status, 201, created.text);
    const { key, record, balance } = created.json as {
      key: string;
      record: { id: string; agent: string; hash?: string };
      balance: number;
    };
    assert.equal(record.agent, 'dave');
    assert.equal(record.hash, undefined, 'the hash is never shown');
    assert.equal(balance, 50);
    assert.equal((await fetchPage(running.url, bearer(key))).status, 200);

    const listing = await httpCall(`${running.url}/v1/admin/keys`, { headers: bearer(admin) });
    const listed = listing.json as { keys: Array<{ id: string; hash?: string }> };
    assert.ok(listed.keys.some((entry) => entry.id === record.id));
    assert.ok(listed.keys.every((entry) => entry.hash === undefined));
    assert.ok(!listing.text.includes(key.slice(18)), 'the secret is never shown again');
    // Everything is checked before anything is written: a bad grant leaves no key behind.
    const refused = await httpCall(`${running.url}/v1/admin/keys`, {
      headers: bearer(admin),
      body: json({ agent: 'erin', credits: -5 }),
    });
    assert.equal(refused.status, 400, refused.text);
    assert.match(
      (refused.json as { error: { message: string } }).error.message,
      /credits must be a whole number ≥ 0/,
    );
    const keysAfter = (await httpCall(`${running.url}/v1/admin/keys`, { headers: bearer(admin) })).json as {
      keys: Array<{ agent: string }>;
    };
    assert.ok(!keysAfter.keys.some((entry) => entry.agent === 'erin'));

    const granted = await httpCall(`${running.url}/v1/admin/credits`, {
      headers: bearer(admin),
      body: json({ agent: 'dave', amount: 25 }),
    });
    assert.equal((granted.json as { balance: number }).balance, 75);
    const negative = await httpCall(`${running.url}/v1/admin/credits`, {
      headers: bearer(admin),
      body: json({ agent: 'dave', amount: -100 }),
    });
    assert.equal(negative.status, 400);

    const revoked = await httpCall(`${running.url}/v1/admin/keys/${record.id}`, {
      method: 'DELETE',
      headers: bearer(admin),
    });
    assert.equal(revoked.status, 200);
    assert.equal((await fetchPage(running.url, bearer(key))).status, 401);
    const again = await httpCall(`${running.url}/v1/admin/keys/ffffffffffff`, {
      method: 'DELETE',
      headers: bearer(admin),
    });
    assert.equal(again.status, 404);
  });
});

describe("limits and credits (config limits.*) apply to each key's agent, never to another's", () => {
  let running: Running;
  const keys: Record<string, string> = {};
  before(async () => {
    running = await startGateway(
      {},
      {
        limits: {
          repeatLookups: false,
          rate: { perAgent: { count: 3, windowMs: 60_000 } },
          credits: { enabled: true, cost: { web_fetch: 1 } },
        },
        cache: { enabled: false },
      },
    );
    for (const [agent, credits] of [
      ['alice', 2],
      ['bob', 10],
      ['carol', 10],
    ] as const) {
      keys[agent] = (await createApiKey(running.store, { agent })).key;
      await running.periscope.credits.grant(agent, credits);
    }
  });
  after(() => running.close());

  const code = (response: { json: unknown }) =>
    (response.json as { data?: { error?: { code?: string } } }).data?.error?.code ?? 'ok';

  test("credits: alice's run out after 2 calls (200, CREDITS_EXHAUSTED); bob's are his own", async () => {
    const alice = bearer(keys.alice as string);
    assert.equal(code(await fetchPage(running.url, alice)), 'ok');
    assert.equal(code(await fetchPage(running.url, alice)), 'ok');
    const exhausted = await fetchPage(running.url, alice);
    assert.equal(exhausted.status, 200, 'a policy refusal is a tool result, not a transport error');
    assert.equal(code(exhausted), 'CREDITS_EXHAUSTED');
    assert.equal(code(await fetchPage(running.url, bearer(keys.bob as string))), 'ok');
    const status = (await httpCall(`${running.url}/v1/status`, { headers: alice })).json as {
      credits: { balance: number; enabled: boolean };
      usage: { totals: { calls: number } };
    };
    assert.equal(status.credits.enabled, true);
    assert.equal(status.credits.balance, 0);
    assert.equal(status.usage.totals.calls, 3);
  });

  test("rate: bob's fourth call in a minute is RATE_LIMITED; carol's first calls are not", async () => {
    const bob = bearer(keys.bob as string);
    assert.equal(code(await fetchPage(running.url, bob)), 'ok');
    assert.equal(code(await fetchPage(running.url, bob)), 'ok'); // with the credits test's call: 3 in the window
    const limited = await fetchPage(running.url, bob);
    assert.equal(limited.status, 200);
    assert.equal(code(limited), 'RATE_LIMITED');
    for (let call = 0; call < 3; call++) {
      assert.equal(code(await fetchPage(running.url, bearer(keys.carol as string))), 'ok');
    }
    assert.equal(await running.periscope.credits.balance('bob'), 7, 'the refused call cost nothing');
  });
});

test('failed authentications from one IP are limited (429), whatever key comes next', async () => {
  const running = await startGateway({ authFailuresPerMinute: 3 });
  try {
    const { key } = await createApiKey(running.store, { agent: 'alice' });
    const wrong = `${key.slice(0, -4)}AAAA`;
    for (let attempt = 0; attempt < 3; attempt++) {
      assert.equal((await fetchPage(running.url, bearer(wrong))).status, 401);
    }
    const blocked = await fetchPage(running.url, bearer(key));
    assert.equal(blocked.status, 429);
    assert.ok(Number(blocked.headers['retry-after']) > 50);
  } finally {
    await running.close();
  }
});

/** Opens a raw connection, writes `text`, and resolves with what the server answered and how long it took. */
function rawExchange(url: string, text: string): Promise<{ answer: string; ms: number }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect({ host: hostname, port: Number(port) }, () => socket.write(text));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve({ answer, ms: performance.now() - started }));
    socket.setTimeout(10_000, () => socket.destroy(new Error('the gateway never closed the connection')));
  });
}

test('header limit and timeouts: 431 past maxHeaderBytes, 408 for a slow head or body, slow tools unaffected', async () => {
  const running = await startGateway({ maxHeaderBytes: 2048, headersTimeoutMs: 500, requestTimeoutMs: 1000 });
  try {
    const big = await httpCall(`${running.url}/healthz`, { headers: { 'x-padding': 'x'.repeat(4096) } });
    assert.equal(big.status, 431);
    const host = new URL(running.url).host;
    const slowHead = await rawExchange(
      running.url,
      `GET /healthz HTTP/1.1\r\nHost: ${host}\r\nX-Slow: 1\r\n`,
    );
    assert.match(slowHead.answer, /^HTTP\/1\.1 408 /);
    assert.ok(slowHead.ms < 3000, `cut after ${slowHead.ms} ms`);
    const slowBody = await rawExchange(
      running.url,
      `POST /v1/tools/web_fetch HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"url":`,
    );
    assert.match(slowBody.answer, /^HTTP\/1\.1 408 /);
    assert.ok(slowBody.ms < 4000, `cut after ${slowBody.ms} ms`);
    // requestTimeoutMs bounds receiving the request, not the tool call: a page slower than it is still read.
    const slowPage = await httpCall(`${running.url}/v1/tools/web_fetch`, {
      headers: JSON_TYPE,
      body: json({ url: `${origin.url}/slow` }),
    });
    assert.equal(slowPage.status, 200);
    assert.equal((slowPage.json as { isError: boolean }).isError, false, slowPage.text);
  } finally {
    await running.close();
  }
});

test('request bodies over gateway.maxBodyBytes are refused with 413, declared or chunked', async () => {
  const running = await startGateway({ maxBodyBytes: 1024 });
  try {
    const large = json({ url: `${origin.url}/page`, padding: 'x'.repeat(4096) });
    const declared = await httpCall(`${running.url}/v1/tools/web_fetch`, { headers: JSON_TYPE, body: large });
    assert.equal(declared.status, 413);
    assert.equal((declared.json as { error: { code: string } }).error.code, 'PAYLOAD_TOO_LARGE');
    const chunked = await httpCall(`${running.url}/v1/tools/web_fetch`, {
      headers: JSON_TYPE,
      body: large,
      chunked: true,
    });
    assert.equal(chunked.status, 413);
    const mcp = await httpCall(`${running.url}/mcp`, {
      headers: { ...JSON_TYPE, accept: 'application/json, text/event-stream' },
      body: large,
    });
    assert.equal(mcp.status, 413);
    assert.equal((await fetchPage(running.url, JSON_TYPE)).status, 200, 'a small body still goes through');
  } finally {
    await running.close();
  }
});

test('a client that keeps uploading a refused body is cut off after a bounded drain, having read its 413', async () => {
  const running = await startGateway({ maxBodyBytes: 1024 });
  try {
    const { port } = new URL(running.url);
    const declared = 256 * 1024 * 1024;
    const outcome = await new Promise<{ read: string; sent: number; closedBy: string }>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1');
      let read = '';
      let sent = 0;
      let closedBy = 'server (FIN)';
      socket.on('data', (chunk: Buffer) => {
        read += chunk.toString('utf8');
      });
      socket.on('error', (error: NodeJS.ErrnoException) => {
        closedBy = error.code ?? error.message;
      });
      socket.on('close', () => resolve({ read, sent, closedBy }));
      socket.write(
        `POST /v1/tools/web_fetch HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\ncontent-length: ${declared}\r\n\r\n`,
      );
      const piece = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (!socket.destroyed && sent < declared) {
          sent += piece.length;
          if (!socket.write(piece)) return void socket.once('drain', pump);
        }
      };
      pump();
    });
    assert.match(outcome.read, /^HTTP\/1\.1 413 [\s\S]*"code":"PAYLOAD_TOO_LARGE"/);
    assert.match(outcome.read, /\r\nconnection: close\r\n/i);
    assert.ok(
      outcome.sent < declared,
      `the gateway read the whole ${declared} bytes (closed by ${outcome.closedBy})`,
    );
    assert.equal((await fetchPage(running.url, JSON_TYPE)).status, 200, 'the gateway still answers');
  } finally {
    await running.close();
  }
});

test('the repeat throttle on REST: only within a Periscope-Session; calls without one write nothing to the store', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'periscope-gateway-repeat-'));
  const path = join(folder, 'state.db');
  const store = createSqliteStore({ path });
  const periscope = createPeriscope(
    {
      network: { allowPrivateNetwork: ['127.0.0.1/32'] },
      limits: { repeatLookups: 2 },
      gateway: { port: 0 },
    },
    { store },
  );
  const gateway = createGateway({ periscope, version: '0.0.0-test' });
  const { url } = await gateway.listen();
  const repeatRows = () => {
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      return (
        db.prepare("SELECT count(*) AS rows FROM kv WHERE key LIKE 'repeat:%'").get() as { rows: number }
      ).rows;
    } finally {
      db.close();
    }
  };
  const code = (response: { json: unknown }) =>
    (response.json as { data?: { error?: { code?: string } } }).data?.error?.code ?? 'ok';
  try {
    const without = [];
    for (let call = 0; call < 25; call += 1) without.push(code(await fetchPage(url, JSON_TYPE)));
    assert.deepEqual(new Set(without), new Set(['ok']), 'the same lookup without a session is never refused');
    assert.equal(repeatRows(), 0, 'no repeat-throttle row for calls the throttle cannot refuse');

    const session = { ...JSON_TYPE, 'periscope-session': 'turn-7' };
    const within = [];
    for (let call = 0; call < 3; call += 1) within.push(code(await fetchPage(url, session)));
    assert.deepEqual(
      within,
      ['ok', 'ok', 'REPEATED_LOOKUP'],
      'within a session the throttle holds as before',
    );
    assert.equal(repeatRows(), 1, 'one counter for the session and lookup');

    const invalid = await fetchPage(url, { ...JSON_TYPE, 'periscope-session': 'not a valid id' });
    assert.equal(invalid.status, 400);
    assert.match((invalid.json as { error: { message: string } }).error.message, /Periscope-Session/);
  } finally {
    await gateway.close();
    await periscope.close();
    await store.close();
    rmSync(folder, { recursive: true, force: true });
  }
});

describe('/mcp: Host and Origin checks against DNS rebinding, then the key', () => {
  let running: Running;
  let key: string;
  const initialize = json({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
  });
  const MCP_HEADERS = { ...JSON_TYPE, accept: 'application/json, text/event-stream' };
  before(async () => {
    running = await startGateway();
    key = (await createApiKey(running.store, { agent: 'alice' })).key;
    await new Promise((resolve) => setTimeout(resolve, 1100)); // "any keys?" is remembered for a second
  });
  after(() => running.close());

  test('a foreign Host or Origin is refused before anything else', async () => {
    const port = new URL(running.url).port;
    const cases: Array<Record<string, string>> = [
      { host: `evil.example:${port}` },
      { host: 'evil.example' },
      { host: `127.0.0.1:${Number(port) + 1}` },
      { origin: 'http://evil.example' },
      { origin: `http://evil.example:${port}` },
      { origin: 'null' },
    ];
    for (const headers of cases) {
      const response = await httpCall(`${running.url}/mcp`, {
        headers: { ...MCP_HEADERS, ...bearer(key), ...headers },
        body: initialize,
      });
      assert.equal(response.status, 403, JSON.stringify(headers));
    }
  });

  test('the right Host (127.0.0.1 or localhost) and a key open an MCP session', async () => {
    const port = new URL(running.url).port;
    const noKey = await httpCall(`${running.url}/mcp`, { headers: MCP_HEADERS, body: initialize });
    assert.equal(noKey.status, 401);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const response = await httpCall(`${running.url}/mcp`, {
        headers: { ...MCP_HEADERS, ...bearer(key), host, origin: `http://${host}` },
        body: initialize,
      });
      assert.equal(response.status, 200, response.text);
      assert.ok(response.headers['mcp-session-id']);
      assert.match(response.text, /"serverInfo"/);
    }
  });
});

test('/metrics is Prometheus text: calls, errors by code, latency histograms, cache hits, provider health', async () => {
  const running = await startGateway();
  try {
    await fetchPage(running.url, JSON_TYPE);
    await fetchPage(running.url, JSON_TYPE);
    await httpCall(`${running.url}/v1/tools/web_fetch`, {
      headers: JSON_TYPE,
      body: json({ url: 'http://10.0.0.1/' }),
    });
    await httpCall(`${running.url}/v1/tools/nope`, { headers: JSON_TYPE, body: '{}' });
    const response = await httpCall(`${running.url}/metrics`);
    assert.equal(response.status, 200);
    assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    const families = parsePrometheusText(response.text);
    const value = (family: string, labels: Record<string, string>) =>
      families
        .get(family)
        ?.samples.find((sample) =>
          Object.entries(labels).every(([name, wanted]) => sample.labels[name] === wanted),
        )?.value;
    assert.equal(families.get('periscope_tool_calls_total')?.type, 'counter');
    assert.equal(
      value('periscope_tool_calls_total', { tool: 'web_fetch', surface: 'rest', outcome: 'ok' }),
      2,
    );
    assert.equal(value('periscope_tool_calls_total', { tool: 'web_fetch', outcome: 'error' }), 1);
    assert.equal(value('periscope_tool_errors_total', { tool: 'web_fetch', code: 'URL_BLOCKED' }), 1);
    assert.equal(families.get('periscope_tool_duration_seconds')?.type, 'histogram');
    assert.equal(value('periscope_tool_duration_seconds', { tool: 'web_fetch', le: '+Inf' }), 3);
    assert.equal(
      value('periscope_cache_hits_total', { tool: 'web_fetch' }),
      1,
      'the second read came from the cache',
    );
    assert.equal(value('periscope_http_requests_total', { route: 'other', status: '404' }), 1);
    assert.equal(value('periscope_provider_up', { provider: 'duckduckgo' }), 1);
    assert.ok((value('process_resident_memory_bytes', {}) ?? 0) > 1_000_000);
  } finally {
    await running.close();
  }
});

test('binding a non-loopback host without a key is refused; with a key it binds and always asks for one', async () => {
  const store = createMemoryStore();
  const periscope = createPeriscope({ gateway: { host: '0.0.0.0', port: 0 } }, { store });
  const refused = createGateway({ periscope });
  await assert.rejects(refused.listen(), /refusing to bind 0\.0\.0\.0 without API keys/);
  const { key, record } = await createApiKey(store, { agent: 'alice' });
  const bound = createGateway({ periscope });
  const { port } = await bound.listen();
  try {
    const url = `http://127.0.0.1:${port}`;
    assert.equal((await httpCall(`${url}/v1/tools`, { headers: bearer(key) })).status, 200);
    await revokeApiKey(store, record.id);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    assert.equal((await httpCall(`${url}/v1/tools`)).status, 401, 'no keys left does not open a public bind');
  } finally {
    await bound.close();
    await store.close();
  }
});

test('/mcp with the official SDK client: the key is the agent, calls are counted as surface="mcp"', async () => {
  const running = await startGateway();
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import(
    '@modelcontextprotocol/sdk/client/streamableHttp.js'
  );
  const { key } = await createApiKey(running.store, { agent: 'alice' });
  const client = new Client({ name: 'gateway-test', version: '1.0.0' });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['image_search', 'web_fetch', 'web_search']);
    const result = (await client.callTool({
      name: 'web_fetch',
      arguments: { url: `${origin.url}/page` },
    })) as {
      isError?: boolean;
      content: Array<{ type: string; text?: string }>;
    };
    assert.notEqual(result.isError, true);
    assert.match(result.content[0]?.text ?? '', /High tide is at 06:12/);
    const metrics = await httpCall(`${running.url}/metrics`, { headers: bearer(key) });
    const calls = parsePrometheusText(metrics.text).get('periscope_tool_calls_total');
    const mcpCalls = calls?.samples.find((sample) => sample.labels.surface === 'mcp');
    assert.equal(mcpCalls?.value, 1);
  } finally {
    await client.close();
    await running.close();
  }
});

test('close() drains: REST and MCP calls in flight finish and are answered, new requests are refused', async () => {
  const running = await startGateway();
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import(
    '@modelcontextprotocol/sdk/client/streamableHttp.js'
  );
  const client = new Client({ name: 'gateway-drain-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`)));
  let arrivals = 0;
  const bothArrived = new Promise<void>((resolve) => {
    slowArrived = () => {
      arrivals += 1;
      if (arrivals === 2) resolve();
    };
  });
  try {
    const rest = httpCall(`${running.url}/v1/tools/web_fetch`, {
      headers: JSON_TYPE,
      body: json({ url: `${origin.url}/slow?rest` }),
    });
    const mcp = client.callTool({ name: 'web_fetch', arguments: { url: `${origin.url}/slow?mcp` } });
    await bothArrived;
    const closing = running.gateway.close();
    const refused = await httpCall(`${running.url}/healthz`).then(
      (response) => response.status,
      (error: NodeJS.ErrnoException) => error.code,
    );
    assert.equal(refused, 'ECONNREFUSED', 'no new connections while draining');
    const restAnswer = await rest;
    assert.equal(restAnswer.status, 200);
    assert.equal((restAnswer.json as { isError: boolean }).isError, false, restAnswer.text);
    const mcpAnswer = (await mcp) as { isError?: boolean; content: Array<{ text?: string }> };
    assert.notEqual(mcpAnswer.isError, true, mcpAnswer.content[0]?.text);
    assert.deepEqual(await closing, { drained: true, inFlightAtStart: 2 });
  } finally {
    slowArrived = () => {};
    await client.close().catch(() => {});
    await running.close();
  }
});
