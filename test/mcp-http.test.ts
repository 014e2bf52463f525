// MCP over Streamable HTTP: the handler `periscope serve` mounts at /mcp, on a real node:http server on 127.0.0.1,
// driven by the official SDK client.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createPeriscope, type Periscope } from '../src/index.ts';
import { createMcpHttpHandler, type McpHttpHandler } from '../src/surfaces/mcp/http.ts';
import type { McpCallEvent } from '../src/surfaces/mcp/server.ts';
import { configFor, mcpToolSuite, type StandIn, startStandIn } from './mcp-conformance.ts';

let standIn: StandIn;
let periscope: Periscope;
let handler: McpHttpHandler;
let server: Server;
let base: string;
let client: Client;
let clientTransport: StreamableHTTPClientTransport;
const events: McpCallEvent[] = [];

async function connect(path = '/mcp', agent = 'agent-a') {
  const transport = new StreamableHTTPClientTransport(new URL(`${base}${path}`), {
    requestInit: { headers: { 'x-agent': agent } },
  });
  const connected = new Client({ name: 'periscope-test', version: '1.0.0' });
  await connected.connect(transport);
  return { client: connected, transport };
}

before(async () => {
  standIn = await startStandIn();
  periscope = createPeriscope(configFor(standIn) as never);
  handler = createMcpHttpHandler(periscope, {
    sessionAgent: (request) => request.headers['x-agent'] as string | undefined,
    onResult: (event) => events.push(event),
  });
  server = createServer((request, response) => {
    if (new URL(request.url ?? '/', 'http://x').pathname === '/mcp') return void handler(request, response);
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ({ client, transport: clientTransport } = await connect());
});

after(async () => {
  await client?.close();
  await handler?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await standIn?.close();
  await periscope?.close();
});

mcpToolSuite('http', () => ({ client, standIn }));

test('http: each MCP session is a Periscope session; the agent comes from the caller', async () => {
  const second = await connect('/mcp', 'agent-b');
  assert.notEqual(second.transport.sessionId, clientTransport.sessionId);
  await client.callTool({ name: 'web_search', arguments: { query: 'session one' } });
  await second.client.callTool({ name: 'web_search', arguments: { query: 'session two' } });
  const one = events.findLast((event) => event.tool === 'web_search' && event.agentId === 'agent-a');
  const two = events.findLast((event) => event.agentId === 'agent-b');
  assert.equal(one?.sessionId, clientTransport.sessionId);
  assert.equal(two?.sessionId, second.transport.sessionId);
  assert.equal(handler.sessionCount, 2);
  await second.transport.terminateSession();
  await second.client.close();
  assert.equal(handler.sessionCount, 1, 'DELETE closes the session');
});

test('http: a session answers only the agent that opened it', async () => {
  const response = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': clientTransport.sessionId ?? '',
      'mcp-protocol-version': '2025-06-18',
      'x-agent': 'agent-intruder',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
  });
  assert.equal(response.status, 404);
  assert.match(await response.text(), /Session not found/);
});

test('http: ?tools= narrows the tools of the session it opens; unknown names are a 400', async () => {
  const narrowed = await connect('/mcp?tools=web_fetch');
  assert.deepEqual(
    (await narrowed.client.listTools()).tools.map((tool) => tool.name),
    ['web_fetch'],
  );
  await narrowed.transport.terminateSession();
  await narrowed.client.close();
  const response = await fetch(`${base}/mcp?tools=web_browse`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(initialize(1)),
  });
  assert.equal(response.status, 400);
  assert.match(await response.text(), /unknown tool 'web_browse'/);
});

test('http: a foreign Host (DNS rebinding) or Origin is refused with 403', async () => {
  const post = (headers: Record<string, string>) =>
    fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(initialize(2)),
    });
  const rebound = await rawRequest({ host: 'attacker.example:8080' });
  assert.equal(rebound, 403);
  const foreign = await post({ origin: 'https://attacker.example' });
  assert.equal(foreign.status, 403);
  assert.match(await foreign.text(), /Origin https:\/\/attacker\.example is not allowed/);
  const sameOrigin = await post({ origin: base });
  assert.equal(sameOrigin.status, 200);
  await sameOrigin.body?.cancel();
});

test('http: requests without a session id other than initialize are refused', async () => {
  const response = await fetch(`${base}/mcp`, { method: 'GET', headers: { accept: 'text/event-stream' } });
  assert.equal(response.status, 400);
  await response.body?.cancel();
});

test('http: close() ends every session', async () => {
  const own = createMcpHttpHandler(periscope);
  const ownServer = createServer((request, response) => void own(request, response));
  await new Promise<void>((resolve) => ownServer.listen(0, '127.0.0.1', resolve));
  const url = `http://localhost:${(ownServer.address() as AddressInfo).port}/mcp`;
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const own1 = new Client({ name: 'periscope-test', version: '1.0.0' });
  await own1.connect(transport);
  assert.equal(own.sessionCount, 1);
  await own.close();
  assert.equal(own.sessionCount, 0);
  await assert.rejects(own1.listTools());
  await own1.close();
  ownServer.closeAllConnections();
  await new Promise((resolve) => ownServer.close(resolve));
});

function initialize(id: number) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
}

/** fetch() will not send a Host header of our choosing: use node:http for that one. */
async function rawRequest(headers: Record<string, string>): Promise<number> {
  const { request } = await import('node:http');
  const body = JSON.stringify(initialize(3));
  return new Promise((resolve, reject) => {
    const outgoing = request(`${base}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'content-length': Buffer.byteLength(body),
        ...headers,
      },
    });
    outgoing.on('response', (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
