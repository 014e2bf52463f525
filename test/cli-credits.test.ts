// `periscope credits`, `search --agent`, `fetch` and `status` spawned as a user runs them, sharing state through
// the SQLite store in the user's state directory (HOME is a temporary folder).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { LONG_TEXT } from '../src/testing/policy-harness.ts';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import { type CliRun, runCli, runCliInProcess } from './support/run-cli.ts';

type Run = CliRun;

function run(args: string[]): Promise<Run> {
  return runCli(args, { cwd: folder });
}

/** `main` in this process, for argument errors that never open the store. */
function runInProcess(args: string[]): Promise<Run> {
  return runCliInProcess(args, { cwd: folder });
}

function json(response: ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

let server: TestServer;
let folder: string;
before(async () => {
  server = await startTestServer({
    'GET /brave/res/v1/web/search': (request, response) => {
      const query = new URL(request.url ?? '/', 'http://x').searchParams.get('q');
      json(response, 200, {
        web: {
          results: [
            { title: `About ${query}`, url: 'https://tides.example/brest', description: 'High tide' },
          ],
        },
      });
    },
    'GET /long.txt': (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(LONG_TEXT),
  });
  folder = mkdtempSync(join(tmpdir(), 'periscope-cli-credits-'));
  writeFileSync(
    join(folder, 'periscope.config.json'),
    JSON.stringify({
      search: { chain: ['brave'] },
      providers: { brave: { apiKey: 'test-key', baseUrl: `${server.url}/brave`, minIntervalMs: 0 } },
      network: { allowPrivateNetwork: ['127.0.0.1/32'] },
      limits: { credits: { enabled: true, cost: { web_fetch: 0 } } },
    }),
  );
});
after(async () => {
  await server.close();
  rmSync(folder, { recursive: true, force: true });
});

const oneLine = (text: string) => text.trim().split('\n').length === 1;

test('credits grant / show / ledger, and the mistakes a user makes: one line each, exit 2 or 1', async () => {
  assert.equal(existsSync(join(folder, '.local/state/periscope/state.db')), false);
  const granted = await run(['credits', 'grant', 'cli', '5']);
  assert.equal(granted.code, 0, granted.stderr);
  assert.equal(granted.stdout, 'granted 5 credits to cli: balance 5 credits\n');
  assert.equal(existsSync(join(folder, '.local/state/periscope/state.db')), true, 'the default store');

  const negative = await run(['credits', 'grant', 'cli', '-5']);
  assert.equal(negative.code, 2);
  assert.equal(negative.stderr, "periscope: the amount must be a whole number of credits ≥ 1, got '-5'\n");
  const unknown = await run(['credits', 'show', 'nobody']);
  assert.equal(unknown.code, 1);
  assert.ok(oneLine(unknown.stderr));
  assert.match(
    unknown.stderr,
    /agent 'nobody' has no credit account \(give it one with: periscope credits grant nobody N\)/,
  );
  // The same checks in this process (they never reach the store), to keep the spawns few.
  for (const amount of ['ten', '0', '1.5', '1e3']) {
    const refused = await runInProcess(['credits', 'grant', 'cli', amount]);
    assert.equal(refused.code, 2, `${amount}: ${refused.stderr}`);
    assert.equal(
      refused.stderr,
      `periscope: the amount must be a whole number of credits ≥ 1, got '${amount}'\n`,
    );
  }
  const missing = await runInProcess(['credits', 'grant', 'cli']);
  assert.equal(missing.code, 2);
  assert.match(
    missing.stderr,
    /^periscope: wrong arguments for 'credits grant'; usage: periscope credits grant <agent> <amount>\n$/,
  );
  assert.equal((await runInProcess(['credits', 'take', 'cli'])).code, 2);
  assert.equal((await runInProcess(['credits'])).code, 2);
});

test('search --agent is charged, refused when short with balance and cost, and a repeat is a cache hit', async () => {
  const first = await run(['search', 'tide', 'tables']);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stderr, /brave → 1 result in \d+ ms · 2 credits/);
  const again = await run(['search', 'tide', 'tables', '--json']);
  const result = JSON.parse(again.stdout) as { data: { cached: boolean } };
  assert.equal(result.data.cached, true);
  assert.equal(server.calls.filter((call) => call.url.pathname.includes('/search')).length, 1);

  const short = await run(['search', 'rip', 'currents']);
  assert.equal(short.code, 1);
  assert.match(short.stderr, /periscope: agent "cli" has 1 credit left and web_search costs 2/);
  const stranger = await run(['search', 'tide', '--agent', 'bob']);
  assert.equal(stranger.code, 1);
  assert.match(stranger.stderr, /agent "bob" has 0 credits left/);
  assert.equal((await runInProcess(['search', 'tide', '--agent', ''])).code, 2);

  const shown = await run(['credits', 'show', 'cli']);
  assert.equal(shown.stdout, 'cli: 1 credit\n');
  const listed = await run(['credits', 'show', '--json']);
  assert.deepEqual(JSON.parse(listed.stdout), [{ agent: 'cli', balance: 1 }]);
  const ledger = await run(['credits', 'ledger', 'cli', '--json']);
  const entries = JSON.parse(ledger.stdout) as Array<{ reason: string; delta: number; balanceAfter: number }>;
  assert.deepEqual(
    entries.map((entry) => [entry.reason, entry.delta, entry.balanceAfter]),
    [
      ['grant', 5, 5],
      ['charge', -2, 3],
      ['charge', -2, 1],
    ],
  );
  const table = await run(['credits', 'ledger', 'cli']);
  assert.match(
    table.stdout,
    /^at +change +balance +reason +tool\n.+\+5 +5 +grant\n.+-2 +3 +charge +web_search\n/,
  );
});

test('fetch --start in a new process reads on from the store without downloading again', async () => {
  const url = `${server.url}/long.txt`;
  const first = await run(['fetch', url, '--max-chars', '1000', '--json']);
  assert.equal(first.code, 0, first.stderr);
  const next = (JSON.parse(first.stdout) as { data: { nextStartIndex: number } }).data.nextStartIndex;
  const onward = await run(['fetch', url, '--max-chars', '1000', '--start', String(next)]);
  assert.equal(onward.code, 0, onward.stderr);
  assert.match(onward.stderr, /from cache/);
  assert.equal(server.calls.filter((call) => call.url.pathname === '/long.txt').length, 1);
});

test("status shows the day's usage per agent, tool and provider (text and --json)", async () => {
  const text = await run(['status']);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /\nusage on \d{4}-\d{2}-\d{2} \(UTC; store sqlite .+state\.db\):\n/);
  assert.match(text.stdout, /\nagent +tool +provider +calls +cached +credits +errors\n/);
  assert.match(text.stdout, /\ncli +web_search +brave +2 +1 +4 +–\n/);
  assert.match(text.stdout, /\ncli +web_search +- +1 +0 +0 +CREDITS_EXHAUSTED 1\n/);
  const shown = JSON.parse((await run(['status', '--json', '--agent', 'bob'])).stdout) as {
    usage: { rows: Array<{ agent: string; errors: Record<string, number> }> };
  };
  assert.deepEqual(shown.usage.rows, [
    {
      agent: 'bob',
      tool: 'web_search',
      provider: '-',
      calls: 1,
      cacheHits: 0,
      credits: 0,
      errors: { CREDITS_EXHAUSTED: 1 },
    },
  ]);
  assert.equal((await runInProcess(['status', '--day', 'monday'])).code, 2);
});

test('status --day takes the calendar dates search --after takes: 2025-02-30 is refused by both, in one line', async () => {
  const day = await runInProcess(['status', '--day', '2025-02-30']);
  assert.equal(day.code, 2);
  assert.match(day.stderr, /--day expects a calendar date as YYYY-MM-DD, got '2025-02-30'/);
  const after = await runInProcess(['search', 'tides', '--after', '2025-02-30']);
  assert.equal(after.code, 2);
  assert.match(after.stderr, /--after/);
  assert.equal((await runInProcess(['status', '--day', '2024-02-29'])).code, 0);
});
