// While a call runs, a person at a terminal sees it and its elapsed time on one line of stderr, redrawn in place;
// stdout carries only the tool's output, and a stderr that is not a terminal gets no redraws at all.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type ChatRequestBody, sendChatReply, toolMessages } from '../src/testing/chat-stand-in.ts';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import { BIN, runCliInProcess, runProgram } from './support/run-cli.ts';

const PAGE = `<!doctype html><html><head><title>Tide tables</title></head><body><main><h1>Tide tables</h1>
${'<p>High tide at Brest is at 06:12 and 18:40 today; the coefficient is 95, a spring tide.</p>'.repeat(8)}</main></body></html>`;

const SLOW_MS = 700;
const ESCAPE = '\x1b';

let server: TestServer;
before(async () => {
  const later = (response: ServerResponse, delayMs: number, send: () => void) => {
    const timer = setTimeout(send, delayMs);
    response.on('close', () => clearTimeout(timer));
  };
  server = await startTestServer({
    '/slow': (_request, response) =>
      later(response, SLOW_MS, () => response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE)),
    '/slower': (_request, response) =>
      later(response, 1500, () => response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE)),
    '/brave/res/v1/web/search': (_request, response) =>
      later(response, SLOW_MS, () =>
        response.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            web: { results: [{ title: 'Tides', url: 'https://tides.test/', description: 'Tide tables' }] },
          }),
        ),
      ),
    '/brave/res/v1/images/search': (_request, response) =>
      later(response, SLOW_MS, () =>
        response.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            results: [
              {
                title: 'A tide chart',
                url: 'https://tides.test/chart',
                source: 'tides.test',
                properties: { url: 'https://img.tides.test/chart.png' },
              },
            ],
          }),
        ),
      ),
    'POST /model/v1/chat/completions': (_request, response, raw) => {
      const body = JSON.parse(raw) as ChatRequestBody;
      if (toolMessages(body).length === 0)
        return sendChatReply(response, body, {
          toolCalls: [{ name: 'web_fetch', arguments: { url: `${server.url}/slow` } }],
        });
      return sendChatReply(response, body, { content: 'High tide is at 06:12.' });
    },
  });
});
after(() => server.close());

/** A folder with a config: a memory store, brave at the stand-in, the stand-in model. */
function folder(): { cwd: string; config: string } {
  const cwd = mkdtempSync(join(tmpdir(), 'periscope-progress-'));
  const config = join(cwd, 'periscope.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      store: { url: 'memory:' },
      network: { allowPrivateNetwork: ['127.0.0.1'] },
      search: { chain: ['brave'] },
      providers: { brave: { apiKey: 'test-key', baseUrl: `${server.url}/brave`, minIntervalMs: 0 } },
      agent: { baseUrl: `${server.url}/model/v1`, model: 'stand-in', timeoutMs: 5000 },
    }),
  );
  return { cwd, config };
}

/** `label · 0.4 s` frames: carriage return first, erase-to-end-of-line last. */
function frames(stderr: string, label: string): string[] {
  const pattern = new RegExp(
    `\\r${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} · (\\d+\\.\\d) s\\x1b\\[K`,
    'g',
  );
  return [...stderr.matchAll(pattern)].map((match) => match[1] as string);
}

function assertCleanStdout(stdout: string): void {
  assert.ok(!stdout.includes('\r'), 'no carriage return on stdout');
  assert.ok(!stdout.includes(ESCAPE), 'no escape sequence on stdout');
  assert.ok(!stdout.includes(' · '), 'no progress line on stdout');
}

test('fetch on a terminal: the call and its elapsed time, redrawn on stderr, then erased before the summary', async () => {
  const { cwd, config } = folder();
  const result = await runCliInProcess(['fetch', `${server.url}/slow`, '--config', config], {
    cwd,
    stderrIsTerminal: true,
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /High tide at Brest/);
  assertCleanStdout(result.stdout);
  const shown = frames(result.stderr, `fetch 127.0.0.1:${server.port}/slow`);
  assert.ok(shown.length >= 2, `at least two frames in ${SLOW_MS} ms, got ${JSON.stringify(result.stderr)}`);
  assert.ok(Number(shown.at(-1)) > Number(shown[0]), 'the elapsed time grows');
  // The line is erased, then the summary is written as it is without a terminal.
  assert.match(
    result.stderr,
    /\r\x1b\[Kfetch 127\.0\.0\.1:\d+\/slow → 200 text\/html, \d+ chars in \d+ ms\n$/,
  );
});

test('fetch with stderr not a terminal, or TERM=dumb: no redraws, no escape sequences, the summary only', async () => {
  const { cwd, config } = folder();
  const piped = await runCliInProcess(['fetch', `${server.url}/slow`, '--config', config], { cwd });
  const dumb = await runCliInProcess(['fetch', `${server.url}/slow`, '--config', config], {
    cwd,
    stderrIsTerminal: true,
    env: { TERM: 'dumb' },
  });
  for (const result of [piped, dumb]) {
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /^fetch 127\.0\.0\.1:\d+\/slow → 200 text\/html, \d+ chars in \d+ ms\n$/);
  }
});

test('search and images on a terminal: the start line counts its seconds, then stays as it is without one', async () => {
  const { cwd, config } = folder();
  for (const command of ['search', 'images']) {
    const result = await runCliInProcess([command, 'tide tables', '--config', config], {
      cwd,
      stderrIsTerminal: true,
    });
    assert.equal(result.code, 0, result.stderr);
    assertCleanStdout(result.stdout);
    assert.ok(frames(result.stderr, `${command} "tide tables"`).length >= 2, JSON.stringify(result.stderr));
    assert.match(
      result.stderr,
      new RegExp(`\\r\\x1b\\[K${command} "tide tables"\\nbrave → 1 (result|image) in`),
    );
    const piped = await runCliInProcess([command, 'tide tables', '--config', config], { cwd });
    assert.ok(!piped.stderr.includes('\r') && !piped.stderr.includes(ESCAPE), JSON.stringify(piped.stderr));
    assert.match(
      piped.stderr,
      new RegExp(`^${command} "tide tables"\\nbrave → 1 (result|image) in \\d+ ms\\n$`),
    );
  }
});

test('ask on a terminal: each running tool call and its seconds, replaced by its outcome line', async () => {
  const { cwd, config } = folder();
  const result = await runCliInProcess(['ask', '--config', config, 'When is high tide?'], {
    cwd,
    stderrIsTerminal: true,
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, `High tide is at 06:12.\n\nSources:\n1. ${server.url}/slow\n`);
  assert.ok(frames(result.stderr, `fetch 127.0.0.1:${server.port}/slow`).length >= 2, result.stderr);
  assert.match(result.stderr, /\r\x1b\[Kfetch 127\.0\.0\.1:\d+\/slow → ok, \d+ chars in \d+ ms\n/);
  assert.match(result.stderr, /\n1 tool call \(0 failed\) · credits off · \d+\.\d s\n$/);
});

// A real pseudo-terminal: util-linux's `script` runs the CLI with stderr on a terminal and stdout in a file.
const scriptMissing = spawnSync('script', ['--version']).status !== 0;

test('under a real pseudo-terminal, fetch redraws its progress on the terminal and stdout stays the page', {
  skip: scriptMissing && 'util-linux `script` is not installed, so no pseudo-terminal can be opened',
}, async () => {
  const { cwd, config } = folder();
  const out = join(cwd, 'stdout.txt');
  const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
  const command = [process.execPath, BIN, 'fetch', `${server.url}/slower`, '--config', config]
    .map(quote)
    .join(' ');
  const run = await runProgram('script', ['-qfec', `${command} > ${quote(out)}`, '/dev/null'], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: cwd, TERM: 'xterm' },
  });
  const terminal = { code: run.code, output: run.stdout + run.stderr };
  assert.equal(terminal.code, 0, terminal.output);
  const shown = frames(terminal.output, `fetch 127.0.0.1:${server.port}/slower`);
  assert.ok(shown.length >= 3, `progress frames on the terminal, got ${JSON.stringify(terminal.output)}`);
  assert.match(terminal.output, /fetch 127\.0\.0\.1:\d+\/slower → 200 text\/html, \d+ chars in \d+ ms/);
  const stdout = readFileSync(out, 'utf8');
  assert.match(stdout, /^<<<untrusted_web_content id="[0-9a-f]{12}"/);
  assert.match(stdout, /High tide at Brest/);
  assertCleanStdout(stdout);
});
