// The egress rules on the surfaces (src/egress/ has the rules themselves): the task's own URLs under
// egress.seenUrlsOnly, taken from the client program rather than the model — the gateway's Periscope-Task-Urls header
// (REST and /mcp), MCP's _meta["periscope/taskUrls"], the URLs of the `ask` question — and a secret refused by the
// gateway without a trace of it in its answer or metrics.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { runAgent } from '../src/agent/run-agent.ts';
import { createPeriscope, type Periscope, type ToolResult } from '../src/index.ts';
import { createHttpClient } from '../src/net/http-client.ts';
import { createMemoryStore } from '../src/store/memory-store.ts';
import { createGateway, type Gateway } from '../src/surfaces/gateway/gateway.ts';
import { mountMcp } from '../src/surfaces/gateway/mount-mcp.ts';
import { createMcpServer, TASK_URLS_META } from '../src/surfaces/mcp/server.ts';
import { type ChatRequestBody, sendChatReply, toolMessages } from '../src/testing/chat-stand-in.ts';
import { fakeSecrets } from '../src/testing/fake-secrets.ts';
import { httpCall } from '../src/testing/http-call.ts';
import { errorOf, outcome } from '../src/testing/policy-harness.ts';
import { jsonReply, startProviderStandIn } from '../src/testing/provider-stand-in.ts';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import { runCliInProcess } from './support/run-cli.ts';

const ARTICLE = `<!doctype html><html><head><title>Tides</title></head><body><article><h1>Tides</h1><p>${'High tide at Brest is at 06:12 and 18:40. '.repeat(12)}</p></article></body></html>`;

let origin: TestServer;
let periscope: Periscope;
before(async () => {
  origin = await startTestServer((request, response: ServerResponse, body) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    if (path === '/v1/chat/completions') return chat(JSON.parse(body) as ChatRequestBody, response);
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE);
  });
  periscope = createPeriscope(
    {
      network: { allowPrivateNetwork: ['127.0.0.1/32'] },
      egress: { seenUrlsOnly: true },
      gateway: { port: 0 },
    },
    { env: {}, store: createMemoryStore() },
  );
});
after(async () => {
  await periscope.close();
  await origin.close();
});

const page = (name: string) => `${origin.url}/${name}`;
const fetched = (name: string) => origin.calls.filter((call) => call.url.pathname === `/${name}`).length;

/** The scripted model of the `ask` test: reads the question's URL and one it makes up, then answers. */
function chat(body: ChatRequestBody, response: ServerResponse) {
  if (toolMessages(body).length === 0) {
    return sendChatReply(response, body, {
      toolCalls: [
        { name: 'web_fetch', arguments: { url: page('asked') } },
        { name: 'web_fetch', arguments: { url: `${page('asked')}?session=abc` } },
      ],
    });
  }
  return sendChatReply(response, body, { content: `High tide is at 06:12 (${page('asked')}).` });
}

describe('the gateway: Periscope-Task-Urls', () => {
  let gateway: Gateway;
  let base: string;
  before(async () => {
    gateway = createGateway({ periscope, mcp: mountMcp, version: '0.0.0-test' });
    base = (await gateway.listen()).url;
  });
  after(() => gateway.close());

  const call = (url: string, headers: Record<string, string> = {}) =>
    httpCall(`${base}/v1/tools/web_fetch`, {
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ url }),
    });

  test('REST: the header lets web_fetch read the task URLs; with a session they stay seen', async () => {
    assert.equal(outcome((await call(page('rest'))).json as ToolResult), 'POLICY_DENIED');
    assert.equal(fetched('rest'), 0);
    const header = {
      'periscope-task-urls': `${page('other')}  ${page('rest')}`,
      'periscope-session': 'turn-1',
    };
    assert.equal(outcome((await call(page('rest'), header)).json as ToolResult), 'ok');
    assert.equal(
      outcome((await call(page('rest'), { 'periscope-session': 'turn-1' })).json as ToolResult),
      'ok',
    );
    assert.equal(
      outcome((await call(page('rest'), { 'periscope-session': 'turn-2' })).json as ToolResult),
      'POLICY_DENIED',
    );
  });

  test('REST: a header that is not a list of http(s) URLs is 400', async () => {
    for (const value of [
      'not-a-url',
      'ftp://example.com/x',
      Array.from({ length: 101 }, (_, i) => page(`${i}`)).join(' '),
    ]) {
      const response = await call(page('rest'), { 'periscope-task-urls': value });
      assert.equal(response.status, 400, value.slice(0, 40));
      assert.match(response.text, /Periscope-Task-Urls/);
    }
  });

  test('/mcp: the same header, on the MCP session', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { 'periscope-task-urls': page('over-mcp-http') } },
    });
    const client = new Client({ name: 'task-urls-test', version: '1' });
    await client.connect(transport);
    try {
      const allowed = await client.callTool({ name: 'web_fetch', arguments: { url: page('over-mcp-http') } });
      assert.equal(allowed.isError, false);
      const refused = await client.callTool({ name: 'web_fetch', arguments: { url: page('made-up') } });
      assert.equal(refused.isError, true);
      assert.match(JSON.stringify(refused.content), /only takes URLs that came from this task/);
    } finally {
      await client.close();
    }
  });
});

test('MCP: _meta["periscope/taskUrls"], which the client sets and the model cannot', async () => {
  const server = createMcpServer({ tools: periscope.tools, agentId: 'mcp' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'task-urls-test', version: '1' });
  await client.connect(clientSide);
  try {
    const url = page('over-mcp');
    const refused = await client.callTool({ name: 'web_fetch', arguments: { url } });
    assert.equal(refused.isError, true);
    // A model that writes the key into the arguments gets nothing from it.
    const smuggled = await client.callTool({
      name: 'web_fetch',
      arguments: { url, [TASK_URLS_META]: [url] },
    });
    assert.equal(smuggled.isError, true);
    assert.equal(fetched('over-mcp'), 0);
    const given = await client.callTool({
      name: 'web_fetch',
      arguments: { url },
      _meta: { [TASK_URLS_META]: [url] },
    });
    assert.equal(given.isError, false);
    assert.equal(fetched('over-mcp'), 1);
  } finally {
    await client.close();
  }
});

test('ask: the URLs of the question are the task; one the model makes up is refused', async () => {
  const transcript = await runAgent({
    endpoint: { baseUrl: `${origin.url}/v1`, model: 'test-model', timeoutMs: 5000 },
    http: createHttpClient({}),
    tools: periscope.tools,
    question: `When is high tide according to ${page('asked')}?`,
    stream: false,
  });
  assert.deepEqual(
    transcript.toolCalls.map((call) => call.code ?? 'ok'),
    ['ok', 'POLICY_DENIED'],
  );
  assert.equal(fetched('asked'), 1);
});

test('the gateway answers a call refused for a secret without it, and its metrics hold none of it', async () => {
  const standIn = await startProviderStandIn(() => jsonReply({}));
  const secret = fakeSecrets(31).find((each) => each.kind === 'github-token')?.text ?? '';
  const searcher = createPeriscope(
    {
      search: { chain: ['brave'] },
      providers: { brave: { apiKey: 'k', baseUrl: standIn.url, minIntervalMs: 0 } },
      gateway: { port: 0 },
    },
    { env: {}, store: createMemoryStore() },
  );
  const gateway = createGateway({ periscope: searcher, version: '0.0.0-test' });
  const { url } = await gateway.listen();
  try {
    const response = await httpCall(`${url}/v1/tools/web_search`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `deploy failed ${secret}` }),
    });
    assert.equal(response.status, 200);
    const result = response.json as ToolResult;
    assert.equal(outcome(result), 'POLICY_DENIED');
    assert.equal(errorOf(result).details?.reason, 'secret');
    assert.equal(result.display, 'web_search → POLICY_DENIED');
    const metrics = await httpCall(`${url}/metrics`);
    assert.match(metrics.text, /POLICY_DENIED/);
    for (const text of [response.text, metrics.text]) assert.ok(!text.includes(secret.slice(4, 14)), text);
    assert.equal(standIn.calls.length, 0);
  } finally {
    await gateway.close();
    await searcher.close();
    await standIn.close();
  }
});

test('CLI: the URL given to `periscope fetch` is the task’s own; a secret in `periscope search` is refused', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'periscope-egress-cli-'));
  try {
    const flags = ['--allow-private-network', '127.0.0.1', '--seen-urls-only'];
    const fetchedBefore = fetched('from-cli');
    const read = await runCliInProcess(['fetch', page('from-cli'), ...flags], { cwd });
    assert.equal(read.code, 0, read.stderr);
    assert.match(read.stdout, /High tide at Brest/);
    assert.equal(fetched('from-cli'), fetchedBefore + 1);
    const secret = fakeSecrets(41).find((each) => each.kind === 'slack-token')?.text ?? '';
    const searched = await runCliInProcess(['search', `why ${secret}`, '--json'], { cwd });
    assert.notEqual(searched.code, 0);
    assert.match(searched.stdout + searched.stderr, /POLICY_DENIED/);
    // The result (stdout) holds none of it; stderr's start line echoes the query its user typed, as always.
    assert.ok(!searched.stdout.includes(secret.slice(5, 15)), searched.stdout);
    assert.match(searched.stderr, /web_search → POLICY_DENIED/);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});
