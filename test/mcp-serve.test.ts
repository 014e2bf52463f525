// MCP over Streamable HTTP as users run it: a real `periscope serve` child process with an API key made by
// `periscope keys create` (SQLite store in a temp folder), driven by the official SDK client. The key is the
// agent; each MCP session is a Periscope session (the repeat-throttle scope).
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { httpCall } from '../src/testing/http-call.ts';
import { mcpToolSuite, type StandIn, startStandIn, writeConfig } from './mcp-conformance.ts';
import { type CliRun, runNode, startServe } from './support/run-cli.ts';

const BIN = fileURLToPath(new URL('../bin/periscope.js', import.meta.url));

let standIn: StandIn;
let folder: string;
let config: string;
let key: string;
let serve: ChildProcess;
let exited: Promise<number | null>;
let base: string;
let stderr: () => string = () => '';
let client: Client;
const opened: Client[] = [];

const env = () => ({ PATH: process.env.PATH ?? '', HOME: folder });

function run(args: string[]): Promise<CliRun> {
  return runNode([BIN, ...args, '--config', config], { cwd: folder, env: env() });
}

async function connect(path = '/mcp', bearer = key): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${base}${path}`), {
    requestInit: { headers: { authorization: `Bearer ${bearer}` } },
  });
  const connected = new Client({ name: 'periscope-serve-test', version: '1.0.0' });
  await connected.connect(transport);
  opened.push(connected);
  return connected;
}

before(async () => {
  standIn = await startStandIn();
  folder = mkdtempSync(join(tmpdir(), 'periscope-mcp-serve-'));
  config = writeConfig(folder, standIn, { store: { url: `sqlite://${join(folder, 'state.db')}` } });
  const created = await run(['keys', 'create', '--agent', 'mcp-bot']);
  assert.equal(created.code, 0, created.stderr);
  key = created.stdout.trim();
  const served = await startServe(['--config', config], { cwd: folder, env: env() });
  serve = served.child;
  exited = served.exited;
  base = served.url;
  stderr = served.stderr;
  client = await connect();
});

after(async () => {
  for (const connected of opened) await connected.close().catch(() => {});
  if (serve && serve.exitCode === null) {
    serve.kill('SIGTERM');
    assert.equal(await exited, 0, stderr());
  }
  await standIn?.close();
  rmSync(folder, { recursive: true, force: true });
});

mcpToolSuite('serve', () => ({ client, standIn }));

async function search(on: Client, query: string): Promise<CallToolResult> {
  return (await on.callTool({ name: 'web_search', arguments: { query } })) as CallToolResult;
}

test("serve: each MCP session is a Periscope session (repeat throttle), acting as the key's agent", async () => {
  const first = await connect();
  assert.equal((await search(first, 'spring tides')).isError, false);
  assert.equal((await search(first, 'spring tides')).isError, false);
  const third = await search(first, 'spring tides');
  assert.equal(third.isError, true, 'limits.repeatLookups (2) within one session');
  assert.match((third.content[0] as { text: string }).text, /already|repeat/i);

  const second = await connect();
  assert.equal((await search(second, 'spring tides')).isError, false, 'another session starts afresh');

  // Usage is counted in memory and written every usage.flushIntervalMs (1 s); serve runs a worker per core, and
  // the status may come from another worker than the session's: its counts show up within an interval.
  type Status = { agent: string; usage: { rows: Array<{ agent: string; tool: string; calls: number }> } };
  let rows: Status['usage']['rows'] = [];
  for (const deadline = Date.now() + 3_000; Date.now() < deadline; await sleep(100)) {
    const status = (await httpCall(`${base}/v1/status`, { headers: { authorization: `Bearer ${key}` } }))
      .json as Status;
    assert.equal(status.agent, 'mcp-bot');
    rows = status.usage.rows.filter((row) => row.tool === 'web_search');
    if (rows.reduce((sum, row) => sum + row.calls, 0) >= 4) break;
  }
  assert.ok(rows.length > 0 && rows.every((row) => row.agent === 'mcp-bot'), JSON.stringify(rows));
  assert.ok(rows.reduce((sum, row) => sum + row.calls, 0) >= 4, JSON.stringify(rows));
});

test('serve: /mcp needs the key; a wrong key or a foreign Host is refused before MCP', async () => {
  await assert.rejects(
    connect('/mcp', 'psk_000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'),
    /UNAUTHORIZED/,
  );
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
  });
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${key}`,
  };
  const { authorization: _key, ...withoutKey } = headers;
  assert.equal((await httpCall(`${base}/mcp`, { headers: withoutKey, body: initialize })).status, 401);
  const port = new URL(base).port;
  const rebound = await httpCall(`${base}/mcp`, {
    headers: { ...headers, host: `evil.example:${port}` },
    body: initialize,
  });
  assert.equal(rebound.status, 403);
  const foreign = await httpCall(`${base}/mcp`, {
    headers: { ...headers, origin: 'http://evil.example' },
    body: initialize,
  });
  assert.equal(foreign.status, 403);
});

test('serve: /mcp?tools= offers only the tools named', async () => {
  const narrowed = await connect('/mcp?tools=web_search,web_fetch');
  const { tools } = await narrowed.listTools();
  assert.deepEqual(tools.map((tool) => tool.name).sort(), ['web_fetch', 'web_search']);
});

const INSPECTOR = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js', import.meta.url),
);

test('serve: the official MCP Inspector (CLI mode, Streamable HTTP, with the key) calls a tool', {
  skip: existsSync(INSPECTOR) ? false : '@modelcontextprotocol/inspector is not installed',
}, async () => {
  const args = [
    INSPECTOR,
    '--cli',
    `${base}/mcp`,
    '--transport',
    'http',
    '--header',
    `Authorization: Bearer ${key}`,
    '--method',
    'tools/call',
    '--tool-name',
    'web_search',
    '--tool-arg',
    'query=inspector over http',
  ];
  const { code, stdout: out, stderr: err } = await runNode(args, { cwd: folder, env: env() });
  assert.equal(code, 0, err);
  const result = JSON.parse(out) as { isError: boolean; content: Array<{ text: string }> };
  assert.equal(result.isError, false);
  assert.match(result.content[0]?.text ?? '', /^Results for: inspector over http/);
});
