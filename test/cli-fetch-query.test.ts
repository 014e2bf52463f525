// `periscope fetch --query`, spawned as a user runs it: the passages with their offsets and headings, and the
// read-on sentence in the CLI's own terms (--start, without --query).
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
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
