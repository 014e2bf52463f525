// The operator console over real sockets: its files and headers, who may open its API, the live tail (server-sent
// events of calls made through the REST API), the bounded recent-calls store, and switching it off.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { GatewayConfig } from '../../config/gateway-schema.ts';
import { createPeriscope, type Periscope, type PeriscopeConfigInput } from '../../index.ts';
import { createApiKey } from '../../keys/api-keys.ts';
import { createMemoryStore } from '../../store/memory-store.ts';
import type { Store } from '../../store/store.ts';
import { httpCall } from '../../testing/http-call.ts';
import { startTestServer, type TestServer } from '../../testing/test-server.ts';
import type { ToolResult } from '../../tool-call.ts';
import { createGateway, type Gateway } from './gateway.ts';
import { CONSOLE_CSP } from './operator-console.ts';
import { createRecentCalls, MAX_TEXT_CHARS } from './recent-calls.ts';

const HOSTILE_TITLE = '<img src=x onerror=alert(1)> \u202Egnp.exe';
const PAGE = `<!doctype html><html><head><title>${HOSTILE_TITLE.replace('<', '&lt;')}</title></head><body><main><article>
<h1>Tide tables for Brest</h1><p>${'High tide is at 06:12 and again at 18:40. '.repeat(20)}</p>
<p><a href="javascript:alert(1)">click</a></p></article></main></body></html>`;

/** The console's files as they sit in its folder: its page, its style, and its ES modules (kernel/, tabs/, …). */
const CONSOLE_FILES = readdirSync(new URL('./console/', import.meta.url), {
  recursive: true,
  encoding: 'utf8',
})
  .filter((name) => /\.(html|js|css)$/.test(name))
  .sort();
const CONSOLE_MODULES = CONSOLE_FILES.filter((name) => name.endsWith('.js'));

let origin: TestServer;
/** Requests to /slow waiting to be answered. */
const slowPages = new Set<() => void>();
before(async () => {
  origin = await startTestServer({
    'GET /page': (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE),
    'GET /broken': (_request, response) => response.writeHead(503).end('down for maintenance'),
    'GET /slow': async (_request, response) => {
      await new Promise<void>((resolve) => slowPages.add(resolve));
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
  seed: (store: Store) => Promise<void> = async () => {},
  extra: Omit<PeriscopeConfigInput, 'gateway'> = {},
): Promise<Running> {
  const store = createMemoryStore();
  await seed(store);
  const periscope = createPeriscope(
    {
      network: { allowPrivateNetwork: ['127.0.0.1/32'] },
      cache: { enabled: false },
      ...extra,
      gateway: { port: 0, ...gateway },
    },
    { store },
  );
  const server = createGateway({ periscope, version: '0.0.0-test' });
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

const bearer = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
const fetchPage = (url: string, key: string, path = '/page') =>
  httpCall(`${url}/v1/tools/web_fetch`, {
    headers: { ...bearer(key), 'periscope-session': 'turn-1' },
    body: JSON.stringify({ url: `${origin.url}${path}` }),
  });

/** Reads a streamed body as text, chunk by chunk. */
function textReader(response: Response): { read(): Promise<{ value: string; done: boolean }> } {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  return {
    async read() {
      const { value, done } = await reader.read();
      return { value: value ? decoder.decode(value, { stream: true }) : '', done };
    },
  };
}

describe('console with keys', () => {
  let running: Running;
  let admin: string;
  let alice: string;
  before(async () => {
    running = await startGateway({}, async (store) => {
      admin = (await createApiKey(store, { agent: 'ops', admin: true })).key;
      alice = (await createApiKey(store, { agent: 'alice' })).key;
    });
  });
  after(() => running.close());

  test('its files are served with a strict CSP, no framing, nosniff; the page has no inline script or style', async () => {
    for (const [path, type] of [
      ['/console', 'text/html'],
      ['/console/', 'text/html'],
      ['/console/console.js', 'text/javascript'],
      ['/console/console.css', 'text/css'],
      ...CONSOLE_MODULES.map((name) => [`/console/${name}`, 'text/javascript'] as const),
    ]) {
      const response = await httpCall(`${running.url}${path}`);
      assert.equal(response.status, 200, path);
      assert.match(String(response.headers['content-type']), new RegExp(`^${type}`));
      assert.equal(response.headers['content-security-policy'], CONSOLE_CSP);
      assert.match(CONSOLE_CSP, /script-src 'self';/);
      assert.match(CONSOLE_CSP, /frame-ancestors 'none'/);
      assert.equal(response.headers['x-frame-options'], 'DENY');
      assert.equal(response.headers['x-content-type-options'], 'nosniff');
    }
    const html = (await httpCall(`${running.url}/console`)).text;
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/i, 'every script is a file');
    assert.doesNotMatch(html, /\son[a-z]+\s*=/i, 'no inline event handlers');
    assert.doesNotMatch(html, /\sstyle\s*=|<style/i, 'no inline styles');
    assert.doesNotMatch(html, /https?:\/\//i, 'nothing from another origin');
    for (const name of CONSOLE_MODULES) {
      const script = (await httpCall(`${running.url}/console/${name}`)).text;
      assert.doesNotMatch(
        script,
        /innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/,
        name,
      );
    }
    assert.equal((await httpCall(`${running.url}/console/nothing.js`)).status, 404);
  });

  test('the page says a key is needed, so the console never has to fail an authentication to learn it; /favicon.ico is a public, cacheable image', async () => {
    for (const path of ['/console', '/console/', '/console/index.html']) {
      const page = await httpCall(`${running.url}${path}`);
      assert.match(page.text, /<meta name="periscope-sign-in" content="key">/, path);
      assert.equal(Number(page.headers['content-length']), Buffer.byteLength(page.text), path);
    }
    const icon = await httpCall(`${running.url}/favicon.ico`);
    assert.equal(icon.status, 200, icon.text);
    assert.equal(icon.headers['content-type'], 'image/svg+xml');
    assert.match(String(icon.headers['cache-control']), /^public, max-age=\d+$/);
    assert.match(icon.text, /^<svg /);
    assert.equal((await httpCall(`${running.url}/favicon.ico`, { method: 'HEAD' })).text, '');
  });

  test('a page from another Host or Origin is refused (DNS rebinding), even for the static files', async () => {
    const port = new URL(running.url).port;
    const refused = await httpCall(`${running.url}/console`, { headers: { host: `evil.example:${port}` } });
    assert.equal(refused.status, 403);
    const crossOrigin = await httpCall(`${running.url}/v1/admin/console/overview`, {
      headers: { ...bearer(admin), origin: 'http://evil.example' },
    });
    assert.equal(crossOrigin.status, 403);
  });

  test('its API needs an admin key: none → 401, an agent key → 403, an admin key → 200', async () => {
    for (const path of ['overview', 'calls', 'events']) {
      const url = `${running.url}/v1/admin/console/${path}`;
      assert.equal((await httpCall(url)).status, 401, path);
      assert.equal((await httpCall(url, { headers: bearer(alice) })).status, 403, path);
    }
    const overview = await httpCall(`${running.url}/v1/admin/console/overview`, { headers: bearer(admin) });
    assert.equal(overview.status, 200);
    assert.equal(overview.headers['content-security-policy'], CONSOLE_CSP);
    const body = overview.json as { inFlight: number; queued: number; steps: unknown[]; stepMinutes: number };
    assert.equal(body.inFlight, 0);
    assert.equal(body.queued, 0);
    assert.equal(body.steps.length, 60);
    assert.equal(body.stepMinutes, 1);
    const day = await httpCall(`${running.url}/v1/admin/console/overview?window=day`, {
      headers: bearer(admin),
    });
    assert.equal((day.json as { steps: unknown[] }).steps.length, 96, 'the last day by quarter hour');
    const bad = await httpCall(`${running.url}/v1/admin/console/overview?window=week`, {
      headers: bearer(admin),
    });
    assert.equal(bad.status, 400);
  });

  test('the live tail: a REST call is pushed over server-sent events, and its input and result can be read', async () => {
    const abort = new AbortController();
    const stream = await fetch(`${running.url}/v1/admin/console/events`, {
      headers: { authorization: `Bearer ${admin}` },
      signal: abort.signal,
    });
    assert.equal(stream.status, 200);
    assert.match(String(stream.headers.get('content-type')), /^text\/event-stream/);
    assert.equal(stream.headers.get('content-security-policy'), CONSOLE_CSP);
    const reader = textReader(stream);
    const called = await fetchPage(running.url, alice);
    assert.equal(called.status, 200);
    let text = '';
    const deadline = Date.now() + 5000;
    while (!/event: call\ndata: .*"agent":"alice"/.test(text) && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    abort.abort();
    const line = /event: call\ndata: (.*)\n/.exec(text)?.[1];
    assert.ok(line, `no call event in ${text.slice(0, 300)}`);
    const event = JSON.parse(line) as Record<string, unknown>;
    assert.equal(event.tool, 'web_fetch');
    assert.equal(event.agent, 'alice');
    assert.equal(event.session, 'alice/turn-1');
    assert.equal(event.outcome, 'ok');
    assert.equal(event.surface, 'rest');
    assert.equal(typeof event.ms, 'number');
    assert.equal(event.input, undefined, 'the stream carries summaries only');

    const detail = await httpCall(`${running.url}/v1/admin/console/calls/${event.id}`, {
      headers: bearer(admin),
    });
    assert.equal(detail.status, 200);
    const call = detail.json as {
      input: { url: string };
      result: { output: string; data: { title?: string } };
    };
    assert.equal(call.input.url, `${origin.url}/page`);
    assert.equal(call.result.output, (called.json as ToolResult).output, 'the output as the model saw it');
    assert.match(
      JSON.stringify(call.result.data),
      /onerror/,
      'hostile text is kept as data, to be shown as text',
    );
    assert.equal(
      (await httpCall(`${running.url}/v1/admin/console/calls/999999`, { headers: bearer(admin) })).status,
      404,
    );
  });

  test('an event stream sent Last-Event-ID resumes after that call', async () => {
    await fetchPage(running.url, alice);
    const list = (await httpCall(`${running.url}/v1/admin/console/calls`, { headers: bearer(admin) }))
      .json as {
      calls: Array<{ id: number }>;
    };
    const last = list.calls.at(-1)?.id ?? 0;
    assert.ok(last >= 2);
    const abort = new AbortController();
    const stream = await fetch(`${running.url}/v1/admin/console/events`, {
      headers: { authorization: `Bearer ${admin}`, 'last-event-id': String(last - 1) },
      signal: abort.signal,
    });
    const reader = textReader(stream);
    let text = '';
    while (!text.includes(`id: ${last}\n`)) text += (await reader.read()).value ?? '';
    abort.abort();
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
    assert.deepEqual(ids, [last], 'only the calls after Last-Event-ID');
  });

  test('credits: GET /v1/admin/credits lists balances, /v1/admin/credits/{agent} its ledger (admin only)', async () => {
    await httpCall(`${running.url}/v1/admin/credits`, {
      headers: bearer(admin),
      body: JSON.stringify({ agent: 'alice', amount: 7, reason: 'trial' }),
    });
    assert.equal((await httpCall(`${running.url}/v1/admin/credits`, { headers: bearer(alice) })).status, 403);
    const list = await httpCall(`${running.url}/v1/admin/credits`, { headers: bearer(admin) });
    assert.equal(list.status, 200);
    assert.deepEqual(
      (list.json as { accounts: Array<{ agent: string; balance: number }> }).accounts.find(
        (a) => a.agent === 'alice',
      ),
      { agent: 'alice', balance: 7 },
    );
    const ledger = await httpCall(`${running.url}/v1/admin/credits/alice`, { headers: bearer(admin) });
    assert.equal(ledger.status, 200);
    const body = ledger.json as { balance: number; ledger: Array<{ delta: number; reason: string }> };
    assert.equal(body.balance, 7);
    assert.deepEqual(
      body.ledger.map((entry) => [entry.delta, entry.reason]),
      [[7, 'trial']],
    );
    assert.equal(
      (await httpCall(`${running.url}/v1/admin/credits/bad%20id`, { headers: bearer(admin) })).status,
      400,
    );
    assert.equal(
      (await httpCall(`${running.url}/v1/admin/credits/alice`, { method: 'DELETE', headers: bearer(admin) }))
        .status,
      405,
    );
  });
});

test("PATCH /v1/admin/keys/{id} sets a key's rate (held at once) and removes it with null; admin only", async () => {
  let admin = '';
  let bob = '';
  let bobId = '';
  const running = await startGateway({}, async (store) => {
    admin = (await createApiKey(store, { agent: 'ops', admin: true })).key;
    const created = await createApiKey(store, { agent: 'bob' });
    bob = created.key;
    bobId = created.record.id;
  });
  try {
    const patch = (key: string, body: unknown, id = bobId) =>
      httpCall(`${running.url}/v1/admin/keys/${id}`, {
        method: 'PATCH',
        headers: bearer(key),
        body: JSON.stringify(body),
      });
    assert.equal((await patch(bob, { rate: '1/min' })).status, 403);
    assert.equal((await patch(admin, { rate: 'often' })).status, 400);
    assert.equal((await patch(admin, {})).status, 400);
    assert.equal((await patch(admin, { rate: '1/min' }, 'ffffffffffff')).status, 400);
    const set = await patch(admin, { rate: '1/min' });
    assert.equal(set.status, 200);
    assert.deepEqual((set.json as { key: { rate: unknown } }).key.rate, { limit: 1, windowMs: 60_000 });
    assert.equal((await fetchPage(running.url, bob)).status, 200);
    assert.equal((await fetchPage(running.url, bob)).status, 429, 'the new rate holds at once');
    const removed = await patch(admin, { rate: null });
    assert.equal((removed.json as { key: { rate?: unknown } }).key.rate, undefined);
    assert.equal((await fetchPage(running.url, bob)).status, 200);
    await httpCall(`${running.url}/v1/admin/keys/${bobId}`, { method: 'DELETE', headers: bearer(admin) });
    assert.equal((await patch(admin, { rate: '5/s' })).status, 400, 'a revoked key is not changed');
  } finally {
    await running.close();
  }
});

test("the playground runs a call as a chosen key: that agent's credits, rate and session; seen in the tail as it", async () => {
  let admin = '';
  let carol = { id: '', key: '' };
  let revoked = '';
  const running = await startGateway(
    {},
    async (store) => {
      admin = (await createApiKey(store, { agent: 'ops', admin: true })).key;
      const created = await createApiKey(store, { agent: 'carol', rate: { limit: 2, windowMs: 60_000 } });
      carol = { id: created.record.id, key: created.key };
      revoked = (await createApiKey(store, { agent: 'dave' })).record.id;
    },
    { limits: { credits: { enabled: true } } },
  );
  try {
    await running.periscope.keys.revoke(revoked);
    await running.periscope.credits.grant('carol', 5, { reason: 'trial' });
    const play = (key: string, as: string, tool = 'web_fetch') =>
      httpCall(`${running.url}/v1/admin/console/as/${as}/tools/${tool}`, {
        headers: { ...bearer(key), 'periscope-session': 'play-1' },
        body: JSON.stringify({ url: `${origin.url}/page` }),
      });
    assert.equal((await play(carol.key, carol.id)).status, 403, 'an agent key cannot run as another key');
    assert.equal((await play(admin, revoked)).status, 400, 'a revoked key is refused, as its calls are');
    assert.equal((await play(admin, 'ffffffffffff')).status, 404);
    assert.equal((await play(admin, carol.id, 'no_such_tool')).status, 404);
    const ran = await play(admin, carol.id);
    assert.equal(ran.status, 200);
    const result = ran.json as { isError: boolean; output: string; data: { creditsSpent?: number } };
    assert.equal(result.isError, false, result.output);
    const spent = result.data.creditsSpent ?? 0;
    assert.ok(spent > 0, 'the call was charged');
    assert.equal(await running.periscope.credits.balance('carol'), 5 - spent, "carol's credits dropped");
    assert.equal(await running.periscope.credits.balance('ops'), 0, 'not the admin');
    const calls = (await httpCall(`${running.url}/v1/admin/console/calls`, { headers: bearer(admin) }))
      .json as { calls: Array<{ agent: string; session: string; surface: string; credits: number }> };
    assert.deepEqual(
      calls.calls.map(({ agent, session, surface, credits }) => ({ agent, session, surface, credits })),
      [{ agent: 'carol', session: 'carol/play-1', surface: 'console', credits: spent }],
    );
    // carol's own rate (2/min) holds for the playground as for her key: the second call is her last one.
    assert.equal((await fetchPage(running.url, carol.key)).status, 200);
    assert.equal((await play(admin, carol.id)).status, 429, "the key's rate counts playground calls");
    assert.equal((await fetchPage(running.url, carol.key)).status, 429);
  } finally {
    await running.close();
  }
});

test("fetch-chain: the web_fetch back-ends in order, whether each can be used, and how this gateway's calls met them", async () => {
  const store = createMemoryStore();
  const admin = (await createApiKey(store, { agent: 'ops', admin: true })).key;
  const periscope = createPeriscope(
    {
      network: { allowPrivateNetwork: ['127.0.0.1/32'] },
      cache: { enabled: false },
      fetch: { chain: ['local', 'firecrawl'] },
      gateway: { port: 0 },
    },
    { store, env: {} },
  );
  const gateway = createGateway({ periscope });
  const { url } = await gateway.listen();
  try {
    // A 503 from the origin is retryable: local fails, the chain moves on (firecrawl is skipped), and the error
    // result lists both rungs.
    assert.equal((await fetchPage(url, admin, '/broken')).status, 200);
    assert.equal((await fetchPage(url, admin)).status, 200);
    const answer = await httpCall(`${url}/v1/admin/console/fetch-chain`, { headers: bearer(admin) });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['content-security-policy'], CONSOLE_CSP);
    const [local, firecrawl, ...rest] = (answer.json as { backends: Array<Record<string, unknown>> })
      .backends;
    assert.deepEqual(rest, []);
    assert.deepEqual(
      { ...local, health: { ...(local?.health as object), lastOkAt: 'x', lastFailure: 'y' } },
      {
        id: 'local',
        position: 1,
        kind: 'origin',
        rendersJavaScript: false,
        unavailable: null,
        health: { ok: 1, failed: 1, skipped: 0, lastOkAt: 'x', lastFailure: 'y' },
      },
    );
    const health = local?.health as { lastOkAt: string; lastFailure: { code: string; message: string } };
    assert.ok(Date.parse(health.lastOkAt) > Date.now() - 60_000);
    assert.equal(health.lastFailure.code, 'HTTP_STATUS');
    assert.match(health.lastFailure.message, /503/);
    assert.equal(firecrawl?.id, 'firecrawl');
    assert.equal(firecrawl?.kind, 'reader');
    assert.match(String(firecrawl?.unavailable), /key/i, 'no key: every call that reaches it skips it');
    assert.deepEqual(
      { ...(firecrawl?.health as object), lastOkAt: null },
      { ok: 0, failed: 0, skipped: 1, lastOkAt: null, lastFailure: null },
    );
    const agent = (await createApiKey(store, { agent: 'eve' })).key;
    assert.equal(
      (await httpCall(`${url}/v1/admin/console/fetch-chain`, { headers: bearer(agent) })).status,
      403,
    );
  } finally {
    await gateway.close();
    await periscope.close();
  }
});

test('the overview shows the calls running now and those queued behind gateway.maxConcurrentCalls', async () => {
  const running = await startGateway({ maxConcurrentCalls: 1, maxQueuedCalls: 5 });
  try {
    const gauges = async () => {
      const { inFlight, queued } = (await httpCall(`${running.url}/v1/admin/console/overview`)).json as {
        inFlight: number;
        queued: number;
      };
      return { inFlight, queued };
    };
    const call = () =>
      httpCall(`${running.url}/v1/tools/web_fetch`, {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${origin.url}/slow` }),
      });
    /** The gauges once they read `expected` (each call reaches the gateway in its own time), or the last read. */
    const settled = async (expected: { inFlight: number; queued: number }) => {
      const deadline = Date.now() + 5000;
      let seen = await gauges();
      while (JSON.stringify(seen) !== JSON.stringify(expected) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        seen = await gauges();
      }
      return seen;
    };
    const releasePage = async () => {
      const deadline = Date.now() + 5000;
      while (slowPages.size === 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(slowPages.size, 1, 'one page request at a time: the other call waits in the queue');
      for (const answer of slowPages) answer();
      slowPages.clear();
    };
    const first = call();
    const second = call();
    assert.deepEqual(await settled({ inFlight: 1, queued: 1 }), { inFlight: 1, queued: 1 });
    await releasePage();
    assert.deepEqual(await settled({ inFlight: 1, queued: 0 }), { inFlight: 1, queued: 0 });
    await releasePage();
    assert.equal((await first).status, 200);
    assert.equal((await second).status, 200);
    assert.deepEqual(await gauges(), { inFlight: 0, queued: 0 });
  } finally {
    await running.close();
  }
});

test('open mode (no keys, loopback): the console API answers without a key, and the page says so', async () => {
  const running = await startGateway();
  try {
    const overview = await httpCall(`${running.url}/v1/admin/console/overview`);
    assert.equal(overview.status, 200);
    const page = await httpCall(`${running.url}/console`);
    assert.match(
      page.text,
      /<meta name="periscope-sign-in" content="open">/,
      'the page says no key is needed',
    );
  } finally {
    await running.close();
  }
});

test('gateway.console.recentCalls bounds what is kept: the newest N calls', async () => {
  let admin = '';
  const running = await startGateway(
    { console: { enabled: true, recentCalls: 3, recentCallsMaxAgeMs: 60_000 } },
    async (store) => {
      admin = (await createApiKey(store, { agent: 'ops', admin: true })).key;
    },
  );
  try {
    for (let index = 0; index < 5; index += 1)
      assert.equal((await fetchPage(running.url, admin)).status, 200);
    const list = await httpCall(`${running.url}/v1/admin/console/calls`, { headers: bearer(admin) });
    assert.deepEqual(
      (list.json as { calls: Array<{ id: number }> }).calls.map((call) => call.id),
      [3, 4, 5],
    );
    const overview = await httpCall(`${running.url}/v1/admin/console/overview`, { headers: bearer(admin) });
    assert.equal(
      (overview.json as { calls: number }).calls,
      5,
      'the overview counts every call, not only those kept',
    );
  } finally {
    await running.close();
  }
});

test('gateway.console.enabled false: /console and its API are 404, and the gateway keeps no calls', async () => {
  let admin = '';
  const running = await startGateway(
    { console: { enabled: false, recentCalls: 1000, recentCallsMaxAgeMs: 60_000 } },
    async (store) => {
      admin = (await createApiKey(store, { agent: 'ops', admin: true })).key;
    },
  );
  try {
    assert.equal((await fetchPage(running.url, admin)).status, 200);
    for (const path of [
      '/console',
      ...CONSOLE_MODULES.map((name) => `/console/${name}`),
      '/v1/admin/console/events',
      '/v1/admin/console/calls',
    ]) {
      assert.equal((await httpCall(`${running.url}${path}`, { headers: bearer(admin) })).status, 404, path);
    }
    // the other admin routes are unaffected
    assert.equal((await httpCall(`${running.url}/v1/admin/keys`, { headers: bearer(admin) })).status, 200);
  } finally {
    await running.close();
  }
});

test('shutdown ends open console event streams instead of waiting for them', async () => {
  const running = await startGateway();
  const stream = await fetch(`${running.url}/v1/admin/console/events`);
  assert.equal(stream.status, 200);
  const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
  const started = performance.now();
  const { drained } = await running.gateway.close();
  assert.equal(drained, true);
  assert.ok(performance.now() - started < 5000);
  let done = false;
  while (!done) done = (await reader.read()).done;
  await running.periscope.close();
  await running.store.close();
});

describe('the recent-calls ring buffer', () => {
  const result = (output: string, extra: Record<string, unknown> = {}): ToolResult => ({
    isError: false,
    output,
    data: { title: 't', ...extra },
    display: 'line',
  });
  const entry = (output = 'x', extra: Record<string, unknown> = {}) => ({
    tool: 'web_fetch',
    surface: 'rest',
    agent: 'a',
    session: undefined,
    input: { url: 'http://127.0.0.1/' },
    result: result(output, extra),
    ms: 12.4,
  });

  test('keeps at most its capacity, forgets calls past maxAgeMs, cuts long text', () => {
    let now = 1_000_000;
    const recent = createRecentCalls({ capacity: 4, maxAgeMs: 10_000, now: () => now });
    for (let index = 0; index < 10; index += 1) {
      recent.add(entry());
      now += 1000;
    }
    assert.deepEqual(
      recent.list().map((call) => call.id),
      [7, 8, 9, 10],
    );
    now += 7_500; // the oldest two are now older than 10 s
    assert.deepEqual(
      recent.list().map((call) => call.id),
      [9, 10],
    );
    recent.add(
      entry('y'.repeat(MAX_TEXT_CHARS * 3), { content: 'z'.repeat(MAX_TEXT_CHARS * 2), creditsSpent: 2 }),
    );
    const last = recent.list().at(-1);
    assert.ok(last);
    assert.equal(last.result.output.length, MAX_TEXT_CHARS);
    assert.equal((last.result.data as { content: string }).content.length, MAX_TEXT_CHARS + 1);
    assert.equal(last.result.truncated, true);
    assert.equal(last.credits, 2);
    assert.equal(last.ms, 12);
  });

  test('capacity 0 keeps nothing and tells no one; a throwing listener never fails a call', () => {
    const none = createRecentCalls({ capacity: 0, maxAgeMs: 10_000 });
    let told = 0;
    none.subscribe(() => told++);
    none.add(entry());
    assert.deepEqual(none.list(), []);
    assert.equal(told, 0);
    const some = createRecentCalls({ capacity: 2, maxAgeMs: 10_000 });
    some.subscribe(() => {
      throw new Error('broken stream');
    });
    some.add(entry());
    assert.equal(some.list().length, 1);
  });
});

test('the console is small: its first load (every file) under 150 KB even uncompressed, so compressed too', () => {
  let bytes = 0;
  let gzipped = 0;
  for (const name of CONSOLE_FILES) {
    const body = readFileSync(new URL(`./console/${name}`, import.meta.url));
    bytes += body.length;
    gzipped += gzipSync(body, { level: 9 }).length;
  }
  assert.ok(bytes < 150_000, `${bytes} bytes as served`);
  assert.ok(gzipped < bytes / 2, `${gzipped} bytes gzipped`);
});
