// `periscope mcp` spawned as an MCP client spawns it: the official SDK client over stdio, then the official
// Inspector's command-line mode.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mcpToolSuite, type StandIn, startStandIn, writeConfig } from './mcp-conformance.ts';
import { runNode } from './support/run-cli.ts';

const BIN = fileURLToPath(new URL('../bin/periscope.js', import.meta.url));

let standIn: StandIn;
let folder: string;
let client: Client;
let stderrOf: () => string = () => '';
const notProtocol: Error[] = [];

function env(): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: folder };
}

async function connect(args: string[]): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: env(),
    cwd: folder,
    stderr: 'pipe',
  });
  let log = '';
  transport.stderr?.on('data', (chunk) => {
    log += chunk;
  });
  const connected = new Client({ name: 'periscope-test', version: '1.0.0' });
  await connected.connect(transport);
  // Anything on stdout that is not a JSON-RPC message reaches the client as an error.
  const reportError = transport.onerror;
  transport.onerror = (error) => {
    notProtocol.push(error);
    reportError?.(error);
  };
  return { client: connected, stderr: () => log };
}

before(async () => {
  standIn = await startStandIn();
  folder = mkdtempSync(join(tmpdir(), 'periscope-mcp-stdio-'));
  const connection = await connect(['--config', writeConfig(folder, standIn)]);
  client = connection.client;
  stderrOf = connection.stderr;
});

after(async () => {
  await client?.close();
  await standIn?.close();
});

mcpToolSuite('stdio', () => ({ client, standIn }));

test('stdio: logs go to stderr (the serving line and one line per call), stdout carries only the protocol', () => {
  const stderr = stderrOf();
  assert.match(stderr, /^periscope mcp: serving web_fetch, web_search, image_search on stdio as agent mcp$/m);
  assert.match(stderr, /^brave → 1 result in \d+ ms$/m);
  assert.deepEqual(notProtocol, [], 'stdout carried something that is not a JSON-RPC message');
});

test('stdio: --tools offers only the tools named; config mcp.tools does the same (and mcp.agentId names the agent)', async () => {
  const config = writeConfig(folder, standIn);
  const flagged = await connect(['--config', config, '--tools', 'web_search,web_fetch']);
  const { tools } = await flagged.client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name).sort(), ['web_fetch', 'web_search']);
  const refused = (await flagged.client.callTool({ name: 'image_search', arguments: { query: 'x' } })) as {
    isError: boolean;
  };
  assert.equal(refused.isError, true);
  await flagged.client.close();

  const configured = await connect([
    '--config',
    writeConfig(folder, standIn, { mcp: { tools: ['web_fetch'], agentId: 'desk-bot' } }),
  ]);
  assert.deepEqual(
    (await configured.client.listTools()).tools.map((tool) => tool.name),
    ['web_fetch'],
  );
  for (let waited = 0; !/as agent/.test(configured.stderr()) && waited < 5000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50)); // stderr is another pipe than the protocol's
  }
  assert.match(
    configured.stderr(),
    /on stdio as agent desk-bot$/m,
    'the agent id comes from config mcp.agentId',
  );
  await configured.client.close();
});

test('stdio: an unknown tool name is a usage error (exit 2), before any protocol', async () => {
  const child = spawn(process.execPath, [BIN, 'mcp', '--tools', 'web_search,web_browse'], {
    cwd: folder,
    env: env(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr.on('data', (chunk) => {
    err += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 2);
  assert.equal(out, '');
  assert.match(
    err,
    /unknown tool 'web_browse' in --tools; the tools are web_search, web_fetch, image_search/,
  );
});

test('stdio: the process ends with exit 0 when the client closes stdin', async () => {
  const child = spawn(process.execPath, [BIN, 'mcp', '--config', writeConfig(folder, standIn)], {
    cwd: folder,
    env: env(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  child.stdin.end();
  assert.equal(await closed, 0);
});

const INSPECTOR = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js', import.meta.url),
);

test('stdio: the official MCP Inspector (CLI mode) lists and calls the tools', {
  skip: existsSync(INSPECTOR) ? false : '@modelcontextprotocol/inspector is not installed',
}, async () => {
  const config = writeConfig(folder, standIn);
  const inspect = (args: string[]) =>
    // After `--`, every argument is the server's: the Inspector has a --config of its own.
    runNode([INSPECTOR, '--cli', ...args, '--', process.execPath, BIN, 'mcp', '--config', config], {
      cwd: folder,
      env: env(),
    });
  const listed = await inspect(['--method', 'tools/list']);
  assert.equal(listed.code, 0, listed.stderr);
  const { tools } = JSON.parse(listed.stdout) as { tools: Array<{ name: string }> };
  assert.deepEqual(tools.map((tool) => tool.name).sort(), ['image_search', 'web_fetch', 'web_search']);

  const called = await inspect([
    '--method',
    'tools/call',
    '--tool-name',
    'web_search',
    '--tool-arg',
    'query=inspector tides',
  ]);
  assert.equal(called.code, 0, called.stderr);
  const result = JSON.parse(called.stdout) as { isError: boolean; content: Array<{ text: string }> };
  assert.equal(result.isError, false);
  assert.match(result.content[0]?.text ?? '', /^Results for: inspector tides/);
});
