// `periscope fetch --query` and `periscope search --read-top`, spawned as a user runs them: the passages with their
// offsets and headings, and the read-on sentences in the CLI's own terms (--start, without --query).
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import type { WebFetchData } from '../src/tools/web-fetch.ts';
import { type CliRun, runCli } from './support/run-cli.ts';

const filler = (topic: string) =>
  Array.from(
    { length: 12 },
    (_, index) => `<p>${topic} ${index}: harbour ledgers list every ship that docked in the season.</p>`,
  ).join('');
const PAGE = `<!doctype html><html><head><title>Brest harbour</title></head><body><article><h1>Brest harbour</h1>
<h2>Ships</h2>${filler('Ships')}<h2>Tides</h2><p>High tide at Brest is at 06:12 with a coefficient of 95.</p>
<h2>Trade</h2>${filler('Trade')}</article></body></html>`;

let server: TestServer;
before(async () => {
  server = await startTestServer({
    '/harbour': (_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE),
    'GET /brave/res/v1/web/search': (_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          web: { results: [{ title: 'Brest harbour', url: `${server.url}/harbour`, description: 'Tides' }] },
        }),
      ),
  });
});
after(() => server.close());

const run = (args: string[]): Promise<CliRun> =>
  runCli(['fetch', `${server.url}/harbour`, '--allow-private-network', '127.0.0.1', ...args], {
    cwd: mkdtempSync(join(tmpdir(), 'periscope-cli-')),
    stdin: '',
  });

test('fetch --query prints the passages under their headings with offsets, and --start to read on', async () => {
  const query = ['--query', 'When is high tide at Brest?', '--max-chars', '300'];
  const result = await run(query);
  assert.equal(result.code, 0, result.stderr);
  const json = JSON.parse((await run([...query, '--json'])).stdout) as { data: WebFetchData };
  const passages = json.data.passages ?? [];
  const tide = passages.find((passage) => passage.heading === 'Tides');
  assert.ok(tide, JSON.stringify(passages));
  assert.ok(
    result.stdout.includes(`[chars ${tide.start}–${tide.end}] under "Tides"\n${tide.text}`),
    result.stdout,
  );
  assert.doesNotMatch(result.stdout, /web_fetch|startIndex/);
  assert.match(
    result.stdout,
    new RegExp(
      `<<<end_untrusted_web_content id="[0-9a-f]{12}">>>\\n.*\\n\\[${passages.length} passages? for the query: \\d+ of \\d+ characters; the rest of the page was left out\\. To read any part in full, run the same command without --query and with --start N, N the offset to begin at \\(--start ${tide.start} reads on from the best-matching passage\\)\\.\\]\\n$`,
    ),
  );
  assert.match(result.stderr, /→ 200 text\/html, \d+ passages? \(\d+ of \d+ chars\) in \d+ ms\n$/);
});

test('--start with --query is a usage mistake, one line naming both flags', async () => {
  const result = await run(['--query', 'tide', '--start', '40']);
  assert.equal(result.code, 2, result.stderr);
  assert.equal(result.stderr, 'periscope: --start cannot be combined with --query\n');
});

test('search --read-top prints the passages under the result, and how to read it with periscope fetch', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'periscope-cli-'));
  writeFileSync(
    join(cwd, 'periscope.config.json'),
    JSON.stringify({
      search: { chain: ['brave'] },
      providers: { brave: { baseUrl: `${server.url}/brave`, minIntervalMs: 0 } },
    }),
  );
  const args = ['search', 'When is high tide at Brest?', '--read-top', '1', '--read-max-chars', '500'];
  const options = { cwd, stdin: '', env: { BRAVE_API_KEY: 'k' } };
  const result = await runCli([...args, '--allow-private-network', '127.0.0.1'], options);
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stdout,
    /^Results for: When is high tide at Brest\?\n\n<<<untrusted_web_content id="[0-9a-f]{12}" source="brave">>>\n1\. Brest harbour\n {3}http:\/\/127\.0\.0\.1:\d+\/harbour\n {3}Tides\n {3}\[Read from http:\/\/127\.0\.0\.1:\d+\/harbour; the passages that answer the query:\]\n/,
  );
  assert.match(result.stdout, /\[chars \d+–\d+\] under "Tides"\nHigh tide at Brest is at 06:12/);
  assert.match(
    result.stdout,
    /\n\[The top 1 result was read for the passages that answer the query\. To read one in full, run periscope fetch <its url> \(with --start N to read on from a passage's offset\)\.\]\n$/,
  );
  assert.doesNotMatch(result.stdout, /web_fetch|startIndex/);
  assert.match(result.stderr, /brave → 1 result in \d+ ms · read 1 page\n$/);
  // Without the allow-list the page is a private address: the search succeeds, the read says why it failed.
  const blocked = await runCli(args, options);
  assert.equal(blocked.code, 0, blocked.stderr);
  assert.match(blocked.stdout, /\n {3}\[Not read: URL_BLOCKED: [^\n]+\]\n/);
  const tooMany = await runCli([...args.slice(0, 2), '--read-top', '9'], options);
  assert.equal(tooMany.code, 2);
  assert.equal(tooMany.stderr, 'periscope: --read-top must be 5 or less, got 9\n');
});
