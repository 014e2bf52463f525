// `periscope verify`, spawned as a user runs it: a page fetched by `periscope fetch` is checked from the store's
// cache (another process), the verdict is one line (or JSON), and the exit code says whether the quote is there.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import { runCli } from './support/run-cli.ts';

const QUOTE = 'The ferry leaves Roscoff at 08:15 on weekdays.';
const PAGE = `<!doctype html><html><head><title>Ferries</title></head><body><article><h1>Ferries</h1>
<p>Crossings run all year.</p><p>${QUOTE}</p><p>Tickets are sold at the port.</p></article></body></html>`;

let origin: TestServer;
let folder: string;
before(async () => {
  origin = await startTestServer({
    'GET /ferries': (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE),
  });
  folder = mkdtempSync(join(tmpdir(), 'periscope-verify-'));
});
after(() => origin.close());

const OPEN = ['--allow-private-network', '127.0.0.1/32'];
const periscope = (args: string[]) => runCli(args, { cwd: folder });
const pageHits = () => origin.calls.filter((call) => call.url.pathname === '/ferries').length;

test('periscope verify: a quote from a fetched page is found in the cache (exit 0); an invented one is changed (exit 1)', async () => {
  const url = `${origin.url}/ferries`;
  const fetched = await periscope(['fetch', url, '--json', ...OPEN]);
  assert.equal(fetched.code, 0, fetched.stderr);
  const text = (JSON.parse(fetched.stdout) as { data: { text: string } }).data.text;
  const start = text.indexOf(QUOTE);
  const hitsAfterFetch = pageHits();

  const found = await periscope([
    'verify',
    url,
    '--quote',
    QUOTE,
    '--start',
    String(start),
    '--end',
    String(start + QUOTE.length),
    ...OPEN,
  ]);
  assert.equal(found.code, 0, found.stderr);
  assert.match(
    found.stdout,
    new RegExp(
      `^found: the quote is on \\S+ at characters ${start}–${start + QUOTE.length} \\(read from cache\\)\\.\\n$`,
    ),
  );
  assert.equal(pageHits(), hitsAfterFetch, 'the page came from the store, written by the fetch process');

  const moved = await periscope([
    'verify',
    url,
    '--quote',
    QUOTE,
    '--start',
    '0',
    '--end',
    '5',
    '--json',
    ...OPEN,
  ]);
  assert.equal(moved.code, 0, moved.stderr);
  const json = JSON.parse(moved.stdout) as { status: string; start: number; fromCache: boolean };
  assert.deepEqual([json.status, json.start, json.fromCache], ['moved', start, true]);

  const invented = await periscope(['verify', url, '--quote', 'The ferry never leaves.', ...OPEN]);
  assert.equal(invented.code, 1);
  assert.match(invented.stdout, /^changed: the quote is not on /);

  const refetched = await periscope(['verify', url, '--quote', QUOTE, '--refetch', ...OPEN]);
  assert.equal(refetched.code, 0, refetched.stderr);
  assert.match(refetched.stdout, /^found: .*\.\n$/);
  assert.doesNotMatch(refetched.stdout, /read from cache/);
  assert.equal(pageHits(), hitsAfterFetch + 1);
});

test('periscope verify: unreachable exits 1 with the code; usage mistakes exit 2 naming the flag', async () => {
  const blocked = await periscope(['verify', `${origin.url}/ferries`, '--quote', QUOTE]);
  assert.equal(blocked.code, 1);
  assert.match(blocked.stdout, /^unreachable: \S+ could not be read \(URL_BLOCKED\)/);
  assert.match(
    blocked.stdout,
    /\(if you trust that network, open it with --allow-private-network <cidr\|host>\)\n$/,
    'the hint fetch gives for the same page',
  );

  const noQuote = await periscope(['verify', `${origin.url}/ferries`]);
  assert.equal(noQuote.code, 2);
  assert.match(noQuote.stderr, /missing --quote/);
  const badStart = await periscope([
    'verify',
    `${origin.url}/ferries`,
    '--quote',
    'x',
    '--start',
    'abc',
    '--end',
    '4',
  ]);
  assert.equal(badStart.code, 2);
  assert.match(badStart.stderr, /--start expects a whole number, got 'abc'/);
  const badHash = await periscope(['verify', `${origin.url}/ferries`, '--quote', 'x', '--hash', 'md5:1']);
  assert.equal(badHash.code, 2);
  assert.match(badHash.stderr, /sha256/);
  const help = await periscope(['verify', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Exit codes: 0 found or moved/);
});
