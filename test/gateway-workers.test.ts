// `periscope serve --workers 2` as a user runs it: a primary and two worker processes on one port and one SQLite
// file, tools pointed at a local origin. Both workers answer; credits stay exact when calls race across them; a key
// revoked through one worker is refused by every worker on the next request; SIGTERM stops all of them.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ACCEPT_SOCKETS } from '../src/surfaces/gateway/listeners.ts';
import { httpCall } from '../src/testing/http-call.ts';
import { parsePrometheusText } from '../src/testing/prometheus-text.ts';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import { runNode, startServe } from './support/run-cli.ts';

const BIN = new URL('../bin/periscope.js', import.meta.url).pathname;
const PAGE = `<!doctype html><html><head><title>Shared page</title></head><body><article><h1>Shared page</h1>
<p>${'Two processes read it, one ledger pays for it. '.repeat(12)}</p></article></body></html>`;

let origin: TestServer;
let folder: string;
let config: string;

before(async () => {
  origin = await startTestServer({
    'GET /page': (_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE),
  });
  folder = mkdtempSync(join(tmpdir(), 'periscope-workers-'));
  config = join(folder, 'periscope.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      network: { allowPrivateNetwork: ['127.0.0.1/32'] },
      store: { url: `sqlite://${join(folder, 'state.db')}` },
      // The failed authentications of every test here (revoked keys, unknown sessions) are one count in the store.
      gateway: { authFailuresPerMinute: 1000 },
      // Every call a real fetch and a real charge: no page cache.
      cache: { enabled: false },
      limits: { credits: { enabled: true, cost: { web_fetch: 2 } } },
    }),
  );
});
after(async () => {
  await origin.close();
  rmSync(folder, { recursive: true, force: true });
});

const env = () => ({ PATH: process.env.PATH ?? '', HOME: folder, XDG_STATE_HOME: folder });

async function createKey(args: string[]): Promise<string> {
  const created = await runNode([BIN, 'keys', 'create', ...args, '--config', config], {
    cwd: folder,
    env: env(),
  });
  assert.equal(created.code, 0, created.stderr);
  return created.stdout.trim();
}

/** The web_fetch calls a scrape of /metrics counts, and the observations of their latency histogram. */
async function scrape(
  url: string,
  headers: Record<string, string>,
): Promise<{ calls: number; timed: number }> {
  const families = parsePrometheusText((await httpCall(`${url}/metrics`, { headers })).text);
  const total = (family: string, name?: string) =>
    (families.get(family)?.samples ?? [])
      .filter((sample) => sample.labels.tool === 'web_fetch' && (name === undefined || sample.name === name))
      .reduce((sum, sample) => sum + sample.value, 0);
  return {
    calls: total('periscope_tool_calls_total'),
    timed: total('periscope_tool_duration_seconds', 'periscope_tool_duration_seconds_count'),
  };
}

test('two workers on one SQLite file: both answer, credits exact under parallel calls, revocation immediate everywhere, SIGTERM stops all', async () => {
  const key = await createKey(['--agent', 'racer', '--credits', '100']);
  const admin = await createKey(['--agent', 'operator', '--admin']);
  const victim = await createKey(['--agent', 'victim']);
  const served = await startServe(['--config', config, '--workers', '2'], { cwd: folder, env: env() });
  try {
    if (process.platform === 'linux') {
      const primary = served.child.pid as number;
      const workers = readFileSync(`/proc/${primary}/task/${primary}/children`, 'utf8').trim().split(/\s+/);
      assert.equal(workers.length, 2, 'the primary runs two workers');
    }
    // 80 calls at once, each on its own connection (the kernel deals connections out to the workers): balance 100,
    // cost 2 → exactly 50 are served and charged, 30 refused with CREDITS_EXHAUSTED, nothing lost or doubled.
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
    const body = JSON.stringify({ url: `${origin.url}/page` });
    const results = await Promise.all(
      Array.from({ length: 80 }, () => httpCall(`${served.url}/v1/tools/web_fetch`, { headers, body })),
    );
    const codes = results.map((result) => {
      assert.equal(result.status, 200, result.text);
      const answer = result.json as { isError: boolean; data: { error?: { code: string } } };
      return answer.isError ? answer.data.error?.code : 'ok';
    });
    assert.equal(codes.filter((code) => code === 'ok').length, 50, codes.join(' '));
    assert.equal(codes.filter((code) => code === 'CREDITS_EXHAUSTED').length, 30);
    const status = (await httpCall(`${served.url}/v1/status`, { headers })).json as {
      credits: { balance: number };
    };
    assert.equal(status.credits.balance, 0);

    // One scrape shows the whole gateway: whichever worker answers /metrics adds the other's counts to its own
    // (through the primary), so every scrape counts all 80 web_fetch calls, and the latency histogram 80 too.
    for (let attempt = 0; attempt < 6; attempt++) {
      const scraped = await scrape(served.url, headers);
      assert.equal(scraped.calls, 80, `scrape ${attempt} counts every worker's calls`);
      assert.equal(scraped.timed, 80, `scrape ${attempt}: the latency histogram holds every call`);
    }

    // The console is one for both: every worker's recent calls hold all 80 (each worker tells the others of its
    // calls through the primary), under the same ids, and a call opened by id is found whichever worker answers.
    const adminHeaders = { authorization: `Bearer ${admin}` };
    const idSets: string[] = [];
    for (let attempt = 0; attempt < 6; attempt++) {
      let ids: number[] = [];
      for (const deadline = Date.now() + 3000; Date.now() < deadline; ) {
        const listed = await httpCall(`${served.url}/v1/admin/console/calls`, { headers: adminHeaders });
        assert.equal(listed.status, 200, listed.text);
        ids = (listed.json as { calls: Array<{ id: number; tool: string }> }).calls
          .filter((call) => call.tool === 'web_fetch')
          .map((call) => call.id);
        if (ids.length >= 80) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(ids.length, 80, "a worker's console lists every worker's calls");
      idSets.push([...ids].sort((a, b) => a - b).join(','));
    }
    assert.equal(new Set(idSets).size, 1, "the same ids in every worker's console");
    // Another worker's calls cross in brief (their texts cut at 256 characters); opened, a call is whole whichever
    // worker answers: that worker asks the one that ran it.
    const listed = await httpCall(`${served.url}/v1/admin/console/calls`, { headers: adminHeaders });
    const served200 = (listed.json as { calls: Array<{ id: number; outcome: string }> }).calls.filter(
      (call) => call.outcome === 'ok',
    );
    const someId = served200[17]?.id;
    const outputs = new Set<string>();
    for (let attempt = 0; attempt < 6; attempt++) {
      const opened = await httpCall(`${served.url}/v1/admin/console/calls/${someId}`, {
        headers: adminHeaders,
      });
      assert.equal(opened.status, 200, opened.text);
      const call = opened.json as { elsewhere?: boolean; result: { output: string; truncated: boolean } };
      assert.equal(call.elsewhere, undefined, 'the call as the worker that ran it holds it');
      assert.equal(call.result.truncated, false);
      assert.match(call.result.output, /one ledger pays for it\.\s*\n<<<end_untrusted_web_content/);
      outputs.add(call.result.output);
    }
    assert.equal(outputs.size, 1, 'the same call whichever worker answered');
    assert.ok([...outputs][0]!.length > 400, 'whole, not the brief');

    // A key revoked through one worker is refused by whichever worker gets the next request.
    const victimHeaders = { authorization: `Bearer ${victim}` };
    assert.equal((await httpCall(`${served.url}/v1/tools`, { headers: victimHeaders })).status, 200);
    const revoke = await httpCall(`${served.url}/v1/admin/keys/${victim.slice(4, 16)}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${admin}` },
    });
    assert.equal(revoke.status, 200, revoke.text);
    for (let attempt = 0; attempt < 10; attempt++)
      assert.equal((await httpCall(`${served.url}/v1/tools`, { headers: victimHeaders })).status, 401);
  } finally {
    served.child.kill('SIGTERM');
  }
  assert.equal(await served.exited, 0);
  assert.match(served.stderr(), /periscope: SIGTERM: stopping\nperiscope: stopped\n$/);
  // Every worker closed its Periscope and its store: the usage they held in memory was written when they stopped
  // (80 calls). Whether the write-ahead log is gone is no proof either way: two workers closing at the same instant
  // each see the other's connection and leave the log for the next to open (it failed so under load).
  const usage = await runNode([BIN, 'status', '--json', '--config', config], { cwd: folder, env: env() });
  assert.equal(usage.code, 0, usage.stderr);
  assert.match(usage.stdout, /"calls": 80\b/);
});

test('MCP over HTTP with two workers: a session opened on one is served whichever worker a connection reaches', async () => {
  const key = await createKey(['--agent', 'mcp-client']);
  const served = await startServe(['--config', config, '--workers', '2'], { cwd: folder, env: env() });
  try {
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${key}`,
    };
    /** The JSON-RPC answer of a POST, from a JSON body or an event stream's data line. */
    const answerOf = (text: string) =>
      JSON.parse(text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? 'null')) as {
        result?: { tools?: Array<{ name: string }> };
        error?: { message: string };
      };
    const opened = await httpCall(`${served.url}/mcp`, {
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'test', version: '1' },
        },
      }),
    });
    assert.equal(opened.status, 200, opened.text);
    const session = opened.headers['mcp-session-id'];
    assert.ok(typeof session === 'string' && /^w\d+\./.test(session), String(session));
    const inSession = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    const initialized = await httpCall(`${served.url}/mcp`, {
      headers: inSession,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    assert.equal(initialized.status, 202, initialized.text);
    // Each request on a connection of its own: the connections are dealt out to both workers in turn.
    for (let id = 2; id < 10; id++) {
      const listed = await httpCall(`${served.url}/mcp`, {
        headers: inSession,
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }),
      });
      assert.equal(listed.status, 200, `request ${id}: ${listed.text}`);
      assert.ok(
        answerOf(listed.text).result?.tools?.some((tool) => tool.name === 'web_fetch'),
        listed.text,
      );
    }
    // An unknown session is still 404 (the client starts a new one), from either worker.
    for (const unknown of ['w99.nope', 'nope']) {
      const lost = await httpCall(`${served.url}/mcp`, {
        headers: { ...inSession, 'mcp-session-id': unknown },
        body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/list' }),
      });
      assert.equal(lost.status, 404, lost.text);
    }
  } finally {
    served.child.kill('SIGTERM');
  }
  assert.equal(await served.exited, 0);
});

test('kill -9 loses at most one usage.flushIntervalMs of counts: the calls made before the last flush are there', async () => {
  const killed = join(folder, 'killed.config.json');
  writeFileSync(
    killed,
    JSON.stringify({
      network: { allowPrivateNetwork: ['127.0.0.1/32'] },
      store: { url: `sqlite://${join(folder, 'killed.db')}` },
      usage: { flushIntervalMs: 200 },
    }),
  );
  const served = await startServe(['--config', killed, '--workers', '1'], { cwd: folder, env: env() });
  const headers = { 'content-type': 'application/json' };
  for (let index = 0; index < 10; index++) {
    const result = await httpCall(`${served.url}/v1/tools/web_fetch`, {
      headers,
      body: JSON.stringify({ url: `${origin.url}/page` }),
    });
    assert.equal(result.status, 200, result.text);
  }
  await new Promise((resolve) => setTimeout(resolve, 1_000)); // several intervals: the timer has written them
  served.child.kill('SIGKILL');
  await served.exited;
  const usage = await runNode([BIN, 'status', '--json', '--config', killed], { cwd: folder, env: env() });
  assert.equal(usage.code, 0, usage.stderr);
  assert.match(usage.stdout, /"calls": 10\b/);
});

/** The inodes of the sockets listening on 127.0.0.1:port (Linux: /proc/net/tcp, state 0A). */
function listeningSockets(port: number): Set<string> {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const rows = readFileSync('/proc/net/tcp', 'utf8').trim().split('\n').slice(1);
  return new Set(
    rows
      .map((row) => row.trim().split(/\s+/))
      .filter((fields) => fields[1] === local && fields[3] === '0A')
      .map((fields) => fields[9] as string),
  );
}

/** The inodes of the sockets a process holds open. */
function socketsOf(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) inodes.add(inode);
    } catch {} // closed meanwhile
  }
  return inodes;
}

test('each worker accepts on sockets of its own on the one port, the primary on none; a second serve on that port is refused', {
  skip:
    process.platform !== 'linux' && 'the kernel deals connections among sockets of one port on Linux only',
}, async () => {
  const served = await startServe(['--config', config, '--workers', '2'], { cwd: folder, env: env() });
  try {
    const port = Number(new URL(served.url).port);
    const primary = served.child.pid as number;
    const workers = readFileSync(`/proc/${primary}/task/${primary}/children`, 'utf8').trim().split(/\s+/);
    const listening = listeningSockets(port);
    // node:cluster's default would show one socket, the primary's, which hands every connection to a worker.
    assert.equal(listening.size, 2 * ACCEPT_SOCKETS, 'each worker listens on sockets of its own');
    const held = (pid: number) => [...socketsOf(pid)].filter((inode) => listening.has(inode)).length;
    assert.deepEqual(
      workers.map((pid) => held(Number(pid))),
      [ACCEPT_SOCKETS, ACCEPT_SOCKETS],
      'each worker holds its share of them',
    );
    assert.equal(held(primary), 0, 'the primary holds none');
    // Sockets with SO_REUSEPORT share a port with any other such socket of the same user: a second gateway on
    // it must fail, not take half the first one's connections.
    for (const workerCount of ['2', '1']) {
      const second = await runNode(
        [BIN, 'serve', '--port', String(port), '--workers', workerCount, '--config', config],
        { cwd: folder, env: env(), timeoutMs: 15_000 },
      );
      assert.equal(second.code, 2, `refused at once, not serving: ${second.stderr}`);
      assert.match(
        second.stderr,
        new RegExp(`^periscope: port ${port} is in use; pick another with --port N`),
      );
    }
    assert.equal(listeningSockets(port).size, 2 * ACCEPT_SOCKETS, "still the first gateway's only");
  } finally {
    served.child.kill('SIGTERM');
  }
  assert.equal(await served.exited, 0);
});

test('a host that is not an address of this machine is a one-line usage error, with one worker or two', async () => {
  await createKey(['--agent', 'elsewhere']); // a key, so that a non-loopback host is allowed at all
  // 192.0.2.0/24 is TEST-NET-1, never this machine's: bind fails at once (EADDRNOTAVAIL) and nothing is sent.
  for (const workers of ['1', '2']) {
    const refused = await runNode(
      [BIN, 'serve', '--host', '192.0.2.7', '--port', '0', '--workers', workers, '--config', config],
      { cwd: folder, env: env(), timeoutMs: 15_000 },
    );
    assert.equal(refused.code, 2, refused.stderr);
    assert.equal(
      refused.stderr,
      'periscope: 192.0.2.7 is not an address of this machine; pick one it has with --host H (127.0.0.1, or 0.0.0.0 for all)\n',
    );
  }
});

test('--workers with a memory store is refused with the fix; --workers 0 is a usage error', async () => {
  const memory = join(folder, 'memory.config.json');
  writeFileSync(memory, JSON.stringify({ store: { url: 'memory:' } }));
  const refused = await runNode([BIN, 'serve', '--port', '0', '--workers', '2', '--config', memory], {
    cwd: folder,
    env: env(),
  });
  assert.equal(refused.code, 2);
  assert.match(
    refused.stderr,
    /^periscope: --workers 2 needs a store the workers share .*use --workers 1\n$/,
  );
  const zero = await runNode([BIN, 'serve', '--port', '0', '--workers', '0', '--config', config], {
    cwd: folder,
    env: env(),
  });
  assert.equal(zero.code, 2);
  assert.match(zero.stderr, /--workers expects a whole number ≥ 1/);
});
