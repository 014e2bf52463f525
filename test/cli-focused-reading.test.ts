// `periscope fetch --query` and `periscope search --read-top`, spawned as a user runs them: the passages with their
// offsets and headings, and the read-on sentences in the CLI's own terms (--start, without --query).
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import type { WebFetchData } from '../src/tools/web-fetch.ts';
import type { WebSearchResult } from '../src/tools/web-search.ts';
import { type CliRun, runCli } from './support/run-cli.ts';

const filler = (topic: string) =>
  Array.from(
    { length: 12 },
    (_, index) => `<p>${topic} ${index}: harbour ledgers list every ship that docked in the season.</p>`,
  ).join('');
const PAGE = `<!doctype html><html><head><title>Brest harbour</title></head><body><article><h1>Brest harbour</h1>
<h2>Ships</h2>${filler('Ships')}<h2>Tides</h2><p>High tide at Brest is at 06:12 with a coefficient of 95.</p>
<h2>Trade</h2>${filler('Trade')}</article></body></html>`;

// The answering sentence is 126 characters, the sentences around it share no word with the question.
const ANSWER =
  'The lighthouse at Cordouan was finished in 1611 by the engineer Louis de Foix after twenty-seven years of hard building works.';
const LIGHTHOUSE = `<!doctype html><html><head><title>Gironde estuary</title></head><body><article><h1>Gironde estuary</h1>
<p>Ships pass the estuary every day. ${ANSWER} Storms are frequent there in winter.</p>
<p>Oysters are farmed in the bay and sold at the market on Sundays.</p>
<p>Its lens follows a mathematical design by Augustin Fresnel.</p></article></body></html>`;
const LIGHTHOUSE_QUERY = 'When was the Cordouan lighthouse finished?';
const lighthouse = (_request: unknown, response: import('node:http').ServerResponse) =>
  response.writeHead(200, { 'content-type': 'text/html' }).end(LIGHTHOUSE);
const braveResults = (paths: readonly string[]) =>
  JSON.stringify({
    web: {
      results: paths.map((path, index) => ({
        title: `Gironde ${index}`,
        url: `${server.url}${path}`,
        description: 'Estuary',
      })),
    },
  });
const ESTUARY_PATHS = [1, 2, 3, 4, 5].map((index) => `/estuary/${index}`);

let server: TestServer;
before(async () => {
  server = await startTestServer({
    '/harbour': (_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE),
    ...Object.fromEntries(ESTUARY_PATHS.map((path) => [path, lighthouse])),
    'GET /brave-estuary/res/v1/web/search': (_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end(braveResults(ESTUARY_PATHS)),
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

/** The answer's beginning, cut at a word boundary within `maxChars`: what a too-long best sentence becomes. */
const answerBeginning = (maxChars: number) => ANSWER.slice(0, ANSWER.lastIndexOf(' ', maxChars));

test('fetch --query --max-chars 120 with a 126-character answer: its beginning, not a neighbour without its words', async () => {
  const args = [
    'fetch',
    `${server.url}/estuary/1`,
    '--allow-private-network',
    '127.0.0.1',
    '--query',
    LIGHTHOUSE_QUERY,
  ];
  const options = { cwd: mkdtempSync(join(tmpdir(), 'periscope-cli-')), stdin: '' };
  const result = await runCli([...args, '--max-chars', '120', '--json'], options);
  assert.equal(result.code, 0, result.stderr);
  const data = (JSON.parse(result.stdout) as { data: WebFetchData }).data;
  assert.deepEqual(
    data.passages?.map((passage) => passage.text),
    [answerBeginning(120)],
  );
  assert.equal(data.queryMatched, true);
  const printed = await runCli([...args, '--max-chars', '120'], options);
  assert.match(printed.stdout, new RegExp(`\\n${answerBeginning(120)}\\n<<<end_untrusted`));
  assert.doesNotMatch(printed.stdout, /Ships pass|Storms are/);
});

test("search --read-top 5 --read-max-chars 600: each page gives the answer's beginning in its 120 characters", async () => {
  const cwd = braveEstuaryFolder();
  const args = ['search', LIGHTHOUSE_QUERY, '--read-top', '5', '--read-max-chars', '600', '--json'];
  const options = { cwd, stdin: '', env: { BRAVE_API_KEY: 'k' } };
  const result = await runCli([...args, '--allow-private-network', '127.0.0.1'], options);
  assert.equal(result.code, 0, result.stderr);
  const { results } = (JSON.parse(result.stdout) as { data: { results: WebSearchResult[] } }).data;
  assert.equal(results.length, 5);
  for (const read of results)
    assert.deepEqual(
      read.passages?.map((passage) => passage.text),
      [answerBeginning(120)],
      JSON.stringify(read),
    );
});

test('fetch --query that no word of the page matches: says so, prints the opening sentences with offsets to cite', async () => {
  const args = ['fetch', `${server.url}/estuary/2`, '--allow-private-network', '127.0.0.1'];
  const query = ['--query', 'xylophone quasar', '--max-chars', '100'];
  const options = { cwd: mkdtempSync(join(tmpdir(), 'periscope-cli-')), stdin: '' };
  const json = await runCli([...args, ...query, '--json'], options);
  assert.equal(json.code, 0, json.stderr);
  const data = (JSON.parse(json.stdout) as { data: WebFetchData }).data;
  assert.equal(data.queryMatched, false);
  const passages = data.passages ?? [];
  assert.deepEqual(
    passages.map((passage) => passage.text),
    ['Ships pass the estuary every day.'],
  );
  const [opening] = passages;
  assert.equal(opening!.citation.quote, opening!.text);
  const result = await runCli([...args, ...query], options);
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stdout,
    /(?:^|\n)\[No passage of this page matched the query; here are the page's opening sentences instead, with their offsets\.\]\n/,
  );
  assert.ok(
    result.stdout.includes(
      `[chars ${opening!.start}–${opening!.end}] under "Gironde estuary"\n${opening!.text}`,
    ),
    result.stdout,
  );
  assert.match(
    result.stdout,
    new RegExp(
      `\\n\\[1 opening passage, none matching the query: \\d+ of \\d+ characters\\. To read on, run the same command without --query and with --start ${opening!.end}\\.\\]\\n$`,
    ),
  );
  assert.doesNotMatch(result.stdout, /web_fetch|startIndex|best-matching/);
  assert.match(
    result.stderr,
    /→ (?:200 text\/html|from cache \(\d+ s old\)), no match, the opening: 1 passage \(\d+ of \d+ chars\) in \d+ ms\n$/,
  );
});

test('search --read-top with a query no word of the page matches: each read says so over its opening sentences', async () => {
  const cwd = braveEstuaryFolder();
  const args = ['search', 'xylophone quasar', '--read-top', '1', '--allow-private-network', '127.0.0.1'];
  const options = { cwd, stdin: '', env: { BRAVE_API_KEY: 'k' } };
  const result = await runCli(args, options);
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stdout,
    /\n {3}\[Read from http:\/\/127\.0\.0\.1:\d+\/estuary\/1; no passage matched the query; its opening sentences:\]\n\[chars \d+–\d+\] under "Gironde estuary"\nShips pass the estuary every day\./,
  );
  const json = await runCli([...args, '--json'], options);
  const { results } = (JSON.parse(json.stdout) as { data: { results: WebSearchResult[] } }).data;
  assert.equal(results[0]?.queryMatched, false);
  assert.ok((results[0]?.passages ?? []).length > 0);
});

test('fetch --query with a misspelt long word finds the page word one edit away', async () => {
  const args = ['fetch', `${server.url}/estuary/3`, '--allow-private-network', '127.0.0.1'];
  const options = { cwd: mkdtempSync(join(tmpdir(), 'periscope-cli-')), stdin: '' };
  const result = await runCli([...args, '--query', 'Who drew the mathmatical plans?', '--json'], options);
  assert.equal(result.code, 0, result.stderr);
  const data = (JSON.parse(result.stdout) as { data: WebFetchData }).data;
  assert.equal(data.queryMatched, true);
  const lens = data.passages?.find((passage) => passage.text.includes('mathematical design'));
  assert.ok(lens, JSON.stringify(data.passages));
  assert.equal(lens.score, Math.max(...(data.passages ?? []).map((passage) => passage.score)));
});

/** A working folder whose config searches with brave only, answered by the stand-in's estuary results. */
function braveEstuaryFolder(): string {
  const cwd = mkdtempSync(join(tmpdir(), 'periscope-cli-'));
  writeFileSync(
    join(cwd, 'periscope.config.json'),
    JSON.stringify({
      search: { chain: ['brave'] },
      providers: { brave: { baseUrl: `${server.url}/brave-estuary`, minIntervalMs: 0 } },
    }),
  );
  return cwd;
}
