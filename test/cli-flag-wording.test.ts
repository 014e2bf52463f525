// The CLI speaks to a person in flags: the tools' messages for a model name input fields (`maxAgeSeconds`,
// `start`/`end`, `after`), which the CLI words as the flags that set them.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import { type CliRun, runCli } from './support/run-cli.ts';

const PAGE = `<!doctype html><html><head><title>Ferries</title></head><body><article><h1>Ferries</h1>
<p>The ferry leaves Roscoff at 08:15 on weekdays, and at 09:30 on Sundays and public holidays.</p></article></body></html>`;
const OPEN = ['--allow-private-network', '127.0.0.1'];

let origin: TestServer;
before(async () => {
  origin = await startTestServer({
    'GET /ferries': (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE),
  });
});
after(() => origin.close());

const folder = () => mkdtempSync(join(tmpdir(), 'periscope-flag-wording-'));

function assertUsageLine(result: CliRun, pattern: RegExp): void {
  assert.equal(result.code, 2, result.stderr);
  assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
  assert.match(result.stderr, pattern);
}

test('a page from the cache says which flag reads it live (--max-age 0), not the input field', async () => {
  const cwd = folder();
  const url = `${origin.url}/ferries`;
  const first = await runCli(['fetch', url, ...OPEN], { cwd });
  assert.equal(first.code, 0, first.stderr);
  const second = await runCli(['fetch', url, ...OPEN], { cwd });
  assert.equal(second.code, 0, second.stderr);
  assert.match(
    second.stdout,
    /^\[From cache, \d+ s old; run it again with --max-age 0 for a live answer\.\]\n/,
  );
  assert.doesNotMatch(second.stdout, /maxAgeSeconds/);
});

test('verify: rules between flags name the flags (--start and --end, --refetch and --cache-only)', async () => {
  const cwd = folder();
  const url = `${origin.url}/ferries`;
  const callsBefore = origin.calls.length;
  assertUsageLine(
    await runCli(['verify', url, '--quote', 'x', '--start', '3'], { cwd }),
    /^periscope: --start and --end go together: give both or neither\n$/,
  );
  assertUsageLine(
    await runCli(['verify', url, '--quote', 'x', '--start', '5', '--end', '2'], { cwd }),
    /^periscope: --end must be greater than --start, got '2'\n$/,
  );
  assertUsageLine(
    await runCli(['verify', url, '--quote', 'x', '--refetch', '--cache-only'], { cwd }),
    /^periscope: --cache-only cannot be combined with --refetch\n$/,
  );
  assert.equal(origin.calls.length, callsBefore, 'a usage mistake makes no call');
});

test('search: a date range that runs backwards names --before and --after', async () => {
  assertUsageLine(
    await runCli(['search', 'ferries', '--after', '2025-03-01', '--before', '2025-01-01'], { cwd: folder() }),
    /^periscope: --before must not be earlier than --after, got '2025-01-01'\n$/,
  );
});

test('verify --hash: a malformed hash says the form it takes, in one line', async () => {
  assertUsageLine(
    await runCli(['verify', `${origin.url}/ferries`, '--quote', 'x', '--hash', 'abc'], { cwd: folder() }),
    /^periscope: --hash must be sha256: followed by 64 hex digits, got 'abc'\n$/,
  );
});

test('ask without a model names the flag first (--model), then the config key and the variables', async () => {
  const result = await runCli(['ask', 'latest Node.js LTS?'], { cwd: folder() });
  assert.equal(result.code, 2, result.stderr);
  assert.match(
    result.stderr,
    /^periscope ask: no model configured: give --model NAME .*agent\.model.*PERISCOPE_MODEL/,
  );
});

test('keys revoke twice: the second says the key was already revoked, at the first time', async () => {
  const cwd = folder();
  const created = await runCli(['keys', 'create', '--agent', 'bot-7', '--json'], { cwd });
  assert.equal(created.code, 0, created.stderr);
  const { id } = JSON.parse(created.stdout) as { id: string };
  const first = await runCli(['keys', 'revoke', id], { cwd });
  assert.match(first.stdout, new RegExp(`^revoked key ${id} \\(agent bot-7\\) at (\\S+)\\n$`));
  const second = await runCli(['keys', 'revoke', id], { cwd });
  assert.equal(second.code, 0, second.stderr);
  const at = /at (\S+)\n$/.exec(first.stdout)?.[1];
  assert.equal(second.stdout, `already revoked key ${id} (agent bot-7) at ${at}\n`);
});

test('--dns-server takes an IP address with an optional port; a host name is one line naming the flag', async () => {
  assertUsageLine(
    await runCli(['fetch', `${origin.url}/ferries`, '--dns-server', 'dns.example:53'], { cwd: folder() }),
    /^periscope: --dns-server expects an IP address with an optional port \(.*\), got 'dns\.example:53': a host name cannot be used\n$/,
  );
  const help = await runCli(['fetch', '--help'], { cwd: folder() });
  assert.match(help.stdout, /--dns-server IP\[:PORT\]/);
  assert.doesNotMatch(help.stdout, /--dns-server HOST/);
});

test('a flag value the config would refuse is one line naming the flag, not the config key it sets', async () => {
  const url = `${origin.url}/ferries`;
  const callsBefore = origin.calls.length;
  assertUsageLine(
    await runCli(['search', 'ferries', '--allow-domain', 'a b'], { cwd: folder() }),
    /^periscope: --allow-domain expects a domain pattern \(.*\), not a URL, got 'a b'\n$/,
  );
  assertUsageLine(
    await runCli(['fetch', url, '--block-domain', 'http://x.example/'], { cwd: folder() }),
    /^periscope: --block-domain expects a domain pattern .*, got 'http:\/\/x\.example\/'\n$/,
  );
  assertUsageLine(
    await runCli(['fetch', url, '--allow-private-network', 'not an address'], { cwd: folder() }),
    /^periscope: --allow-private-network expects a CIDR \(10\.0\.0\.0\/8\), an address .* got 'not an address'\n$/,
  );
  assertUsageLine(
    await runCli(['fetch', url, '--proxy', 'ftp://127.0.0.1:21'], { cwd: folder() }),
    /^periscope: --proxy expects http:\/\/host:port, .* got 'ftp:\/\/127\.0\.0\.1:21'\n$/,
  );
  assert.equal(origin.calls.length, callsBefore, 'a usage mistake makes no call');
});
