// Two `periscope serve` instances on one Redis, as behind a load balancer (README "Running several instances"):
// real child processes, a real redis-server and a local search provider and page on 127.0.0.1. Pacing, credits,
// key revocation and the document cache hold across both.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { httpCall } from '../src/testing/http-call.ts';
import { type RedisTestServer, redisTestGate, startRedisServer } from '../src/testing/redis-server.ts';
import {
  checkPacedSpacing,
  monotonicNs,
  type RequestArrival,
  type RequestLeave,
} from '../src/testing/request-leaves.ts';
import { BIN, runNode, type Served, startServe } from './support/run-cli.ts';

// Skipped with the reason when redis-server is missing; PERISCOPE_REQUIRE_SERVICES=1 (CI) makes that a failure.
const { skip } = redisTestGate();

const INTERVAL_MS = 50;
/** Preloaded into each `serve` process: it logs when each request it sends leaves (test/support/leave-log.ts). */
const LEAVE_LOG_HOOK = new URL('./support/leave-log.ts', import.meta.url).pathname;

/** The provider stand-in, a process of its own (test/support/provider-process.ts). */
interface ProviderProcess {
  url: string;
  /** Each search as the stand-in read it, `[query, readNs]` (provider-process.ts). */
  seen(): Promise<{ arrivals: RequestArrival[]; pageRequests: number }>;
  stop(): Promise<void>;
}

async function startProviderProcess(): Promise<ProviderProcess> {
  const script = new URL('./support/provider-process.ts', import.meta.url).pathname;
  const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.on('close', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const found = /listening (\S+)/.exec(out)?.[1];
      if (found) resolve(found);
    });
    void exited.then(() => reject(new Error('the provider stand-in exited before listening')));
  });
  return {
    url,
    seen: async () =>
      (await httpCall(`${url}/__seen`)).json as { arrivals: RequestArrival[]; pageRequests: number },
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

let redis: RedisTestServer;
let standIn: ProviderProcess;
let folder: string;
let config: string;
let leaveLog: string;
const instances: Served[] = [];

const env = () => ({ PATH: process.env.PATH ?? '', HOME: folder, XDG_STATE_HOME: folder });

async function createKey(args: string[]): Promise<string> {
  const created = await runNode([BIN, 'keys', 'create', ...args, '--config', config], {
    cwd: folder,
    env: env(),
  });
  assert.equal(created.code, 0, created.stderr);
  return created.stdout.trim();
}

function call(instance: Served, key: string, path: string, body?: unknown) {
  return httpCall(`${instance.url}${path}`, {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** The tool result's error code, or `ok`. */
function outcome(response: { status: number; json: unknown; text: string }): string {
  assert.equal(response.status, 200, response.text);
  const result = response.json as { isError: boolean; data?: { error?: { code?: string } } };
  return result.isError ? (result.data?.error?.code ?? 'error') : 'ok';
}

/** Runs `count` jobs, at most `width` at a time. */
async function pooled<RESULT>(count: number, width: number, job: (index: number) => Promise<RESULT>) {
  const results: RESULT[] = new Array(count);
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const index = next++;
      results[index] = await job(index);
    }
  };
  await Promise.all(Array.from({ length: width }, lane));
  return results;
}

describe('two gateway instances on one Redis', { skip }, () => {
  let admin: string;
  let bot: string;
  let reader: string;

  before(async () => {
    redis = await startRedisServer();
    standIn = await startProviderProcess();
    folder = mkdtempSync(join(tmpdir(), 'periscope-instances-'));
    config = join(folder, 'periscope.config.json');
    writeFileSync(
      config,
      JSON.stringify({
        network: { allowPrivateNetwork: ['127.0.0.1/32'] },
        search: { chain: ['brave'], timeoutMs: 10_000 },
        providers: {
          brave: { baseUrl: `${standIn.url}/brave`, apiKey: 'stand-in-key', minIntervalMs: INTERVAL_MS },
        },
        store: { url: redis.url },
        limits: { repeatLookups: false, credits: { enabled: true } },
      }),
    );
    admin = await createKey(['--agent', 'ops', '--admin', '--credits', '10']);
    bot = await createKey(['--agent', 'bot', '--credits', '100']);
    reader = await createKey(['--agent', 'reader', '--credits', '10']);
    leaveLog = join(folder, 'leaves.jsonl');
    writeFileSync(leaveLog, '');
    const serveEnv = {
      ...env(),
      NODE_OPTIONS: `--import=${LEAVE_LOG_HOOK}`,
      PERISCOPE_TEST_LEAVE_LOG: leaveLog,
    };
    for (let index = 0; index < 2; index++)
      instances.push(await startServe(['--config', config], { cwd: folder, env: serveEnv }));
  });

  after(async () => {
    for (const instance of instances) instance.child.kill('SIGTERM');
    await Promise.all(instances.map((instance) => instance.exited));
    await standIn?.stop();
    await redis?.stop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  test('1 000 searches over both, balance 100, cost 2: exactly 50 answered, balance 0, the provider paced as one', async (t) => {
    const [one, two] = instances as [Served, Served];
    const startedNs = monotonicNs();
    const codes = await pooled(1000, 64, (index) =>
      call(index % 2 === 0 ? one : two, bot, '/v1/tools/web_search', { query: `tide ${index}` }).then(
        outcome,
      ),
    );
    const answered = codes.map((code, index) => ({ code, index })).filter(({ code }) => code === 'ok');
    assert.equal(answered.length, 50, `outcomes: ${JSON.stringify(count(codes))}`);
    assert.equal(count(codes).CREDITS_EXHAUSTED, 950);
    const byInstance = [0, 1].map((side) => answered.filter(({ index }) => index % 2 === side).length);
    assert.ok(
      byInstance.every((answers) => answers > 0),
      `answered per instance: ${byInstance}`,
    );
    for (const instance of instances) {
      const status = (await call(instance, bot, '/v1/status')).json as { credits: { balance: number } };
      assert.equal(status.credits.balance, 0);
    }

    // The provider saw 50 requests, spaced as one: the k-th came at least k intervals after the calls began (two
    // instances pacing apart would send 50 in about 25 intervals), and each left at least one interval after the
    // one before, whichever instance sent them (the README's promise). Each turn is granted one interval after the
    // previous request was reported written to its connection (by Redis's clock), so however slow a loaded instance
    // is between its turn and its send, the next request leaves at least one interval after it.
    //
    // How the test knows, on a machine as loaded as it may be: each `serve` process logs when each request left it,
    // bracketed between the request's end() and its 'finish' (test/support/leave-log.ts), and the stand-in notes when
    // it read each one, all on the machine's monotonic clock. The check (checkPacedSpacing) holds the later request's
    // end() against the earlier one's 'finish' (the narrowest the true gap can be), and holds the arrivals to the same
    // spacing less how late the stand-in read the earlier one (measured per request: a stand-in not scheduled for
    // tens of milliseconds reads two requests at once, so arrival readings alone cannot show the spacing).
    const { arrivals } = await standIn.seen();
    assert.equal(arrivals.length, 50);
    const byArrival = arrivals.map(([, readNs]) => readNs).sort((a, b) => a - b);
    byArrival.forEach((readNs, index) => {
      const afterMs = (readNs - startedNs) / 1e6;
      assert.ok(
        afterMs >= index * INTERVAL_MS - 1,
        `request ${index} arrived ${afterMs.toFixed(1)} ms after the calls began`,
      );
    });
    const leaves = readFileSync(leaveLog, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as RequestLeave)
      .filter(([query]) => query.startsWith('tide '));
    const seen = checkPacedSpacing(leaves, arrivals, INTERVAL_MS);
    t.diagnostic(
      `answered per instance ${byInstance.join('+')}; smallest certain gap between departures ${seen.minLeaveGapMs.toFixed(1)} ms, between arrivals as read ${seen.minArrivalGapMs.toFixed(1)} ms (a request read up to ${seen.maxReadDelayMs.toFixed(1)} ms after it had certainly left); ${(((byArrival.at(-1) as number) - startedNs) / 1e6).toFixed(0)} ms for 50`,
    );
  });

  test('a key revoked on one instance is refused by the other at once', async () => {
    const [one, two] = instances as [Served, Served];
    const doomed = await createKey(['--agent', 'doomed']);
    assert.equal((await call(two, doomed, '/v1/tools')).status, 200);
    const id = doomed.slice(4, 16);
    const revoked = await httpCall(`${one.url}/v1/admin/keys/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${admin}` },
    });
    assert.equal(revoked.status, 200, revoked.text);
    assert.equal((await call(two, doomed, '/v1/tools')).status, 401);
    assert.equal((await call(one, doomed, '/v1/tools')).status, 401);
  });

  test('the document cache answers on one instance what the other fetched: the page is requested once', async () => {
    const [one, two] = instances as [Served, Served];
    const url = `${standIn.url}/page`;
    const first = await call(one, reader, '/v1/tools/web_fetch', { url });
    assert.equal(outcome(first), 'ok');
    const second = await call(two, reader, '/v1/tools/web_fetch', { url });
    assert.equal(outcome(second), 'ok');
    assert.equal((second.json as { data: { title: string } }).data.title, 'Shared page');
    assert.equal((await standIn.seen()).pageRequests, 1);
  });
});

function count(codes: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const code of codes) counts[code] = (counts[code] ?? 0) + 1;
  return counts;
}
