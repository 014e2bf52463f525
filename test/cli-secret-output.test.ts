// A query or URL carrying a secret never reaches the terminal or a captured log: `periscope search`, `images`,
// `fetch`, `verify` and `ask` spawned as a user runs them (stdout and stderr are pipes, as in CI or `2> log`), and
// in-process with stderr taken for a terminal (progress lines). The stand-ins are on 127.0.0.1; a refused call never
// reaches them. What the scan finds is src/egress/secret-scanner.test.ts; what a refusal holds, secret-check.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type ChatRequestBody, sendChatReply, toolMessages } from '../src/testing/chat-stand-in.ts';
import { fakeSecrets } from '../src/testing/fake-secrets.ts';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import { type CliRun, runCli, runCliInProcess } from './support/run-cli.ts';

const secretOf = (kind: string, seed: number) =>
  fakeSecrets(seed).find((secret) => secret.kind === kind)?.text ?? '';
const AWS_KEY = secretOf('aws-access-key', 51);
const GITHUB_TOKEN = secretOf('github-token', 52);
const ENCODED_TOKEN = Buffer.from(`token=${secretOf('github-token', 53)}`).toString('base64url');

const ARTICLE = `<!doctype html><html><head><title>Tides</title></head><body><article><h1>Tides</h1><p>${'High tide at Brest is at 06:12 and 18:40. '.repeat(12)}</p></article></body></html>`;

let server: TestServer;
let folder: string;
let config: string;
/** What the scripted model calls in its first turn, per chat path. */
const firstCalls = new Map<string, Array<{ name: string; arguments: Record<string, unknown> }>>();

before(async () => {
  server = await startTestServer((request, response: ServerResponse, body) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    const chat = /^\/(\w+)\/v1\/chat\/completions$/.exec(path);
    if (chat) return answer(chat[1] as string, JSON.parse(body) as ChatRequestBody, response);
    if (path === '/brave/res/v1/web/search') {
      const results = [
        { title: 'Tide tables', url: `${server.url}/tides`, description: 'High tide at 06:12' },
      ];
      return response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ web: { results } }));
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE);
  });
  folder = mkdtempSync(join(tmpdir(), 'periscope-secret-output-'));
  config = join(folder, 'periscope.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      network: { allowPrivateNetwork: ['127.0.0.1/32'] },
      search: { chain: ['brave'] },
      providers: { brave: { apiKey: 'test-key', baseUrl: `${server.url}/brave`, minIntervalMs: 0 } },
      agent: { timeoutMs: 5000 },
    }),
  );
});
after(() => server.close());

function answer(name: string, body: ChatRequestBody, response: ServerResponse) {
  if (toolMessages(body).length === 0)
    return sendChatReply(response, body, { toolCalls: firstCalls.get(name) ?? [] });
  return sendChatReply(response, body, { content: `High tide is at 06:12 (${server.url}/tides).` });
}

function run(args: string[]): Promise<CliRun> {
  return runCli([...args, '--config', config], { cwd: folder, env: { XDG_STATE_HOME: folder } });
}

/** Neither stream holds the secret, nor a 10-character piece of it. */
function assertNowhere(result: CliRun, secret: string) {
  const printed = result.stdout + result.stderr;
  for (let start = 0; start + 10 <= secret.length; start += 5) {
    assert.ok(!printed.includes(secret.slice(start, start + 10)), printed);
  }
}

/** What the site and the provider heard (not the model, which wrote the calls) that holds `text`. */
const heard = (text: string) =>
  server.calls.filter(
    (call) =>
      !call.url.pathname.endsWith('/chat/completions') && `${call.url.href}${call.body}`.includes(text),
  );

test('search and images: a query with a secret is printed nowhere, not even as the start line', async () => {
  for (const secret of [AWS_KEY, GITHUB_TOKEN, ENCODED_TOKEN]) {
    for (const command of ['search', 'images']) {
      const result = await run([command, `deploy fails with ${secret}`]);
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, /looks like (an AWS access key id|a GitHub token)/);
      assertNowhere(result, secret);
    }
  }
  assert.equal(heard('deploy').length, 0, 'nothing reached the provider');
  // An ordinary query still gets its start line.
  const ordinary = await run(['search', 'tide tables brest']);
  assert.equal(ordinary.code, 0, ordinary.stderr);
  assert.match(ordinary.stderr, /^search "tide tables brest"$/m);
});

test('fetch and verify: a URL with a secret is printed nowhere', async () => {
  for (const secret of [AWS_KEY, GITHUB_TOKEN, ENCODED_TOKEN]) {
    const url = `${server.url}/report?key=${secret}`;
    for (const args of [
      ['fetch', url],
      ['verify', url, '--quote', 'High tide', '--refetch'],
    ]) {
      const result = await run(args);
      assert.equal(result.code, 1, result.stderr);
      // fetch says it on stderr; verify's verdict is its output.
      assert.match(result.stdout + result.stderr, /looks like (an AWS access key id|a GitHub token)/);
      assertNowhere(result, secret);
    }
  }
  assert.equal(heard('/report').length, 0, 'nothing reached the site');
});

test('with stderr a terminal: no progress line shows the query or URL of a refused call', async () => {
  const url = `${server.url}/report?key=${GITHUB_TOKEN}`;
  for (const args of [
    ['search', `deploy fails with ${GITHUB_TOKEN}`],
    ['fetch', url],
  ]) {
    const result = await runCliInProcess([...args, '--config', config], {
      cwd: folder,
      env: { XDG_STATE_HOME: folder, TERM: 'xterm' },
      stderrIsTerminal: true,
    });
    assert.equal(result.code, 1, result.stderr);
    assertNowhere(result, GITHUB_TOKEN);
  }
});

test('ask: a tool call with a secret shows neither its query nor its URL; the others are shown', async () => {
  firstCalls.set('leaky', [
    { name: 'web_search', arguments: { query: `deploy fails with ${AWS_KEY}` } },
    { name: 'web_fetch', arguments: { url: `${server.url}/report?token=${GITHUB_TOKEN}` } },
    { name: 'web_fetch', arguments: { url: `${server.url}/report?d=${ENCODED_TOKEN}` } },
    { name: 'web_search', arguments: { query: 'tide tables brest' } },
  ]);
  const result = await run([
    'ask',
    '--model',
    'm',
    '--base-url',
    `${server.url}/leaky/v1`,
    'When is high tide?',
  ]);
  assert.equal(result.code, 0, result.stderr);
  for (const secret of [AWS_KEY, GITHUB_TOKEN, ENCODED_TOKEN]) assertNowhere(result, secret);
  const lines = result.stderr.trim().split('\n');
  assert.match(lines[0] as string, /^search \[query withheld\] → POLICY_DENIED in \d+ ms$/);
  assert.match(lines[1] as string, /^fetch \[URL withheld\] → POLICY_DENIED in \d+ ms$/);
  assert.match(lines[2] as string, /^fetch \[URL withheld\] → POLICY_DENIED in \d+ ms$/);
  assert.match(
    lines[3] as string,
    /^search "tide tables brest" → ok, 1 result from brave( \(cached\))? in \d+ ms$/,
  );
  assert.equal(heard('/report').length, 0, 'nothing reached the site');
  assert.match(result.stdout, /High tide is at 06:12/);

  // The transcript is printed after the scan too: a refused call's arguments are withheld there as well.
  const json = await run([
    'ask',
    '--json',
    '--model',
    'm',
    '--base-url',
    `${server.url}/leaky/v1`,
    'When is high tide?',
  ]);
  assert.equal(json.code, 0, json.stderr);
  for (const secret of [AWS_KEY, GITHUB_TOKEN, ENCODED_TOKEN]) assertNowhere(json, secret);
  const transcript = JSON.parse(json.stdout) as { toolCalls: { input: unknown }[] };
  assert.deepEqual(transcript.toolCalls[3]?.input, { query: 'tide tables brest' });
  assert.deepEqual(transcript.toolCalls[0]?.input, { withheld: 'it held a secret' });
});
