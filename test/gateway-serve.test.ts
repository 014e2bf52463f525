// `periscope serve` and `periscope keys` as a user runs them: real child processes, a SQLite store in a temp folder,
// tools pointed at a local origin. Graceful shutdown: SIGTERM while a call is in flight.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { httpCall } from '../src/testing/http-call.ts';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import { type CliRun, runNode, type Served, startServe } from './support/run-cli.ts';

const BIN = new URL('../bin/periscope.js', import.meta.url).pathname;
const PAGE = `<!doctype html><html><head><title>Slow page</title></head><body><article><h1>Slow page</h1>
<p>${'It took its time to arrive, but it arrived whole. '.repeat(10)}</p></article></body></html>`;

let origin: TestServer;
let folder: string;
let config: string;
let slowArrived: () => void = () => {};

before(async () => {
  origin = await startTestServer({
    'GET /slow': async (_request, response) => {
      slowArrived();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    },
  });
  folder = mkdtempSync(join(tmpdir(), 'periscope-serve-'));
  config = join(folder, 'periscope.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      network: { allowPrivateNetwork: ['127.0.0.1/32'] },
      store: { url: `sqlite://${join(folder, 'state.db')}` },
    }),
  );
});
after(async () => {
  await origin.close();
  rmSync(folder, { recursive: true, force: true });
});

const env = () => ({ PATH: process.env.PATH ?? '', HOME: folder, XDG_STATE_HOME: folder });

function run(args: string[]): Promise<CliRun> {
  return runNode([BIN, ...args, '--config', config], { cwd: folder, env: env() });
}

/** `periscope serve --port 0`, resolved once it prints its URL. */
function serve(extra: string[] = [], configFile = config): Promise<Served> {
  return startServe(['--config', configFile, ...extra], { cwd: folder, env: env() });
}

test('no keys: serve binds 127.0.0.1 only and says so, prints MCP configurations that work as pasted; 0.0.0.0 is refused with exit 2', async () => {
  const refused = await run(['serve', '--host', '0.0.0.0', '--port', '0']);
  assert.equal(refused.code, 2);
  assert.equal(refused.stdout, '');
  // With workers (the default on a machine of several cores), the line saying they are starting comes first.
  assert.match(
    refused.stderr,
    /^(periscope: starting \d+ workers…\n)?periscope: refusing to bind 0\.0\.0\.0 without API keys: [^\n]+\n$/,
  );

  const served = await serve();
  try {
    assert.match(served.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.match(served.stderr(), /no API keys: serving 127\.0\.0\.1 only, without authentication/);
    assert.match(served.stdout(), /"url": "http:\/\/127\.0\.0\.1:\d+\/mcp"/, 'the HTTP MCP configuration');
    assert.match(
      served.stdout(),
      /"args": \[\s*"[^"]+periscope\.js",\s*"mcp"/,
      'the stdio MCP configuration',
    );
    assert.equal((await httpCall(`${served.url}/v1/tools`)).status, 200);
    // Both printed configurations work as pasted: an MCP client started from each lists the tools.
    const [http, stdio] = [...served.stdout().matchAll(/^\{\n[\s\S]*?\n\}$/gm)].map(
      (match) =>
        (JSON.parse(match[0]) as { mcpServers: { periscope: Record<string, unknown> } }).mcpServers.periscope,
    );
    const overHttp = new Client({ name: 'pasted-http', version: '1' });
    await overHttp.connect(new StreamableHTTPClientTransport(new URL(String(http?.url))));
    const overStdio = new Client({ name: 'pasted-stdio', version: '1' });
    await overStdio.connect(
      new StdioClientTransport({
        command: String(stdio?.command),
        args: stdio?.args as string[],
        env: env(),
        cwd: folder,
        stderr: 'ignore',
      }),
    );
    try {
      for (const client of [overHttp, overStdio]) {
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((tool) => tool.name).sort(), ['image_search', 'web_fetch', 'web_search']);
      }
    } finally {
      await overHttp.close();
      await overStdio.close();
    }
  } finally {
    served.child.kill('SIGTERM');
    assert.equal(await served.exited, 0);
  }
});

test('SIGTERM with a call in flight: the call completes, the store is closed, then the process exits 0', async () => {
  const served = await serve();
  const arrived = new Promise<void>((resolve) => {
    slowArrived = resolve;
  });
  const call = httpCall(`${served.url}/v1/tools/web_fetch`, {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${origin.url}/slow` }),
  });
  await arrived;
  served.child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 200));
  const late = await httpCall(`${served.url}/healthz`).then(
    (response) => response.status,
    (error: NodeJS.ErrnoException) => error.code,
  );
  assert.equal(late, 'ECONNREFUSED', 'no new connections while draining');
  const response = await call;
  assert.equal(response.status, 200);
  const result = response.json as { isError: boolean; data: { title: string } };
  assert.equal(result.isError, false, response.text);
  assert.equal(result.data.title, 'Slow page');
  assert.equal(await served.exited, 0);
  assert.match(served.stderr(), /SIGTERM: finishing 1 call in flight\nperiscope: stopped\n$/);
  // The store was closed, not abandoned: SQLite's last connection checkpoints and removes the write-ahead log.
  assert.ok(existsSync(join(folder, 'state.db')));
  assert.equal(existsSync(join(folder, 'state.db-wal')), false, 'the SQLite store was closed');
});

test('keys create / list / revoke: the key is printed once, required by serve, and revocation is immediate', async () => {
  const created = await run(['keys', 'create', '--agent', 'bot', '--rate', '60/min', '--credits', '10']);
  assert.equal(created.code, 0, created.stderr);
  const key = created.stdout.trim();
  assert.match(key, /^psk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
  assert.match(
    created.stderr,
    /^created key [0-9a-f]{12} for agent bot \(rate 60\/min, agent balance 10 credits\)/,
  );
  assert.match(
    created.stderr,
    /limits\.credits\.enabled is false in this config/,
    'a granted balance nobody spends',
  );
  const id = key.slice(4, 16);

  const listed = await run(['keys', 'list']);
  assert.equal(listed.code, 0);
  assert.match(listed.stdout, new RegExp(`${id}\\s+bot\\s+60/min\\s+\\S+ \\S+\\s+active`));
  assert.ok(!listed.stdout.includes(key.slice(17)), 'the secret is not listed');

  const served = await serve();
  try {
    assert.doesNotMatch(served.stderr(), /no API keys/);
    assert.match(served.stdout(), /"Authorization": "Bearer <key from periscope keys create>"/);
    assert.equal((await httpCall(`${served.url}/v1/tools`)).status, 401);
    const headers = { authorization: `Bearer ${key}` };
    assert.equal((await httpCall(`${served.url}/v1/tools`, { headers })).status, 200);
    const status = (await httpCall(`${served.url}/v1/status`, { headers })).json as {
      agent: string;
      credits: { balance: number };
    };
    assert.equal(status.agent, 'bot');
    assert.equal(status.credits.balance, 10);

    const revoked = await run(['keys', 'revoke', id]);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stdout, new RegExp(`^revoked key ${id} \\(agent bot\\)`));
    assert.equal((await httpCall(`${served.url}/v1/tools`, { headers })).status, 401);
  } finally {
    served.child.kill('SIGTERM');
    assert.equal(await served.exited, 0);
  }

  const unknown = await run(['keys', 'revoke', 'abcdef']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /^periscope: no API key matches 'abcdef'/);
  const noAgent = await run(['keys', 'create']);
  assert.equal(noAgent.code, 2);
  assert.match(noAgent.stderr, /needs --agent/);
});

// A body over gateway.maxBodyBytes from clients still uploading when the 413 is written: the gateway must not
// close under them (a reset loses the answer: the client sees EPIPE instead of the 413).
const MAX_BODY_BYTES = 1024;
const OVERSIZED = JSON.stringify({ url: 'http://127.0.0.1/', padding: 'x'.repeat(256 * 1024) });

/** What one client saw: the status and error code it read, or what kept it from reading one. */
type Outcome = { status: number; code?: string } | { failure: string };

async function fetchOversized(url: string, streamed: boolean): Promise<Outcome> {
  const bytes = new TextEncoder().encode(OVERSIZED);
  const body = streamed
    ? new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 16 * 1024)
            controller.enqueue(bytes.subarray(at, at + 16 * 1024));
          controller.close();
        },
      })
    : OVERSIZED;
  try {
    const response = await fetch(`${url}/v1/tools/web_fetch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    const answer = (await response.json()) as { error?: { code?: string } };
    return { status: response.status, ...(answer.error?.code ? { code: answer.error.code } : {}) };
  } catch (error) {
    const cause = (error as { cause?: NodeJS.ErrnoException }).cause;
    return { failure: `${(error as Error).message} (${cause?.code ?? cause?.message ?? 'no cause'})` };
  }
}

/** A raw socket that sends the head, then the body in 32 KiB pieces 2 ms apart, reading all the while. */
function slowSocketOversized(url: string, chunked: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    const { port } = new URL(url);
    const socket = connect(Number(port), '127.0.0.1');
    const received: Buffer[] = [];
    let failure: string | undefined;
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      failure = error.code ?? error.message;
    });
    const body = Buffer.from(OVERSIZED);
    const framing = chunked ? 'transfer-encoding: chunked' : `content-length: ${body.length}`;
    socket.write(
      `POST /v1/tools/web_fetch HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\n${framing}\r\n\r\n`,
    );
    let sent = 0;
    const timer = setInterval(() => {
      if (socket.destroyed) return clearInterval(timer);
      const piece = body.subarray(sent, sent + 32 * 1024);
      sent += piece.length;
      socket.write(
        chunked
          ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
          : piece,
      );
      if (sent < body.length) return;
      clearInterval(timer);
      if (chunked) socket.write('0\r\n\r\n');
    }, 2);
    socket.on('close', () => {
      clearInterval(timer);
      const text = Buffer.concat(received).toString('utf8');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      const code = /"code":"([A-Z_]+)"/.exec(text)?.[1];
      if (failure !== undefined) resolve({ failure: `${failure}, having read ${status ?? 'nothing'}` });
      else if (status === undefined) resolve({ failure: 'closed before any answer' });
      else resolve({ status: Number(status), ...(code ? { code } : {}) });
    });
  });
}

/** `count` clients, `atOnce` at a time; every one must have read 413 PAYLOAD_TOO_LARGE. */
async function assertEveryClientReads413(count: number, atOnce: number, client: () => Promise<Outcome>) {
  const outcomes: Outcome[] = [];
  for (let started = 0; started < count; started += atOnce) {
    outcomes.push(...(await Promise.all(Array.from({ length: Math.min(atOnce, count - started) }, client))));
  }
  const others = outcomes.filter((outcome) => !('status' in outcome) || outcome.code !== 'PAYLOAD_TOO_LARGE');
  assert.deepEqual(others, [], `${others.length} of ${count} clients did not read 413 PAYLOAD_TOO_LARGE`);
  assert.ok(outcomes.every((outcome) => 'status' in outcome && outcome.status === 413));
}

test('a body over gateway.maxBodyBytes: every client still uploading reads its 413 (fetch, streamed fetch, slow raw sockets), none is reset', async () => {
  const limited = join(folder, 'body-limit.config.json');
  writeFileSync(
    limited,
    JSON.stringify({
      store: { url: `sqlite://${join(folder, 'body-limit.db')}` },
      gateway: { maxBodyBytes: MAX_BODY_BYTES },
    }),
  );
  const served = await serve([], limited);
  try {
    await assertEveryClientReads413(120, 8, () => fetchOversized(served.url, false));
    await assertEveryClientReads413(120, 8, () => fetchOversized(served.url, true));
    await assertEveryClientReads413(48, 8, () => slowSocketOversized(served.url, false));
    await assertEveryClientReads413(48, 8, () => slowSocketOversized(served.url, true));
    assert.equal((await httpCall(`${served.url}/healthz`)).status, 200, 'the gateway still answers');
  } finally {
    served.child.kill('SIGTERM');
    assert.equal(await served.exited, 0);
  }
});
