// The CLI spawned as a user runs it: real process, real exit codes, real stdout/stderr.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import { type CliRun, runCli } from './support/run-cli.ts';

const PAGE = `<!doctype html><html><head><title>Tide tables</title></head><body><main><h1>Tide tables</h1>
${'<p>High tide at Brest is at 06:12 and 18:40 today; the coefficient is 95, a spring tide.</p>'.repeat(8)}</main></body></html>`;

type Run = CliRun;

function run(
  args: string[],
  options: { stdin?: string; env?: Record<string, string>; cwd?: string } = {},
): Promise<Run> {
  return runCli(args, {
    ...options,
    cwd: options.cwd ?? mkdtempSync(join(tmpdir(), 'periscope-cli-')),
    stdin: options.stdin ?? '',
  });
}

function assertOneLineError(result: Run, code: number, pattern: RegExp): void {
  assert.equal(result.code, code, result.stderr);
  assert.match(result.stderr, pattern);
  assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
  assert.equal(result.stderr.trim().split('\n').length, 1, `one line, got: ${result.stderr}`);
}

let server: TestServer;
before(async () => {
  server = await startTestServer({
    '/tides': (_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE),
  });
});
after(() => server.close());

test('--version and --help', async () => {
  const version = await run(['--version']);
  assert.equal(version.code, 0);
  assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
  const help = await run(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /fetch <url>/);
  for (const command of ['fetch', 'extract', 'config']) {
    const commandHelp = await run([command, '--help']);
    assert.equal(commandHelp.code, 0, command);
    assert.match(commandHelp.stdout, new RegExp(`Usage: periscope ${command}`));
  }
  assert.equal((await run([])).code, 2);
});

test('fetch prints the page to stdout and the summary to stderr', async () => {
  const result = await run(['fetch', `${server.url}/tides`, '--allow-private-network', '127.0.0.1']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^<<<untrusted_web_content id="[0-9a-f]{12}"/);
  assert.match(result.stdout, /High tide at Brest is at 06:12/);
  assert.match(result.stderr, /^fetch 127\.0\.0\.1:\d+\/tides → 200 text\/html, \d+ chars in \d+ ms\n$/);
});

test('fetch --json prints the whole ToolResult', async () => {
  const result = await run([
    'fetch',
    `${server.url}/tides`,
    '--allow-private-network',
    '127.0.0.1',
    '--json',
    '--mode',
    'text',
  ]);
  assert.equal(result.code, 0, result.stderr);
  const parsed = JSON.parse(result.stdout) as { isError: boolean; data: { title: string; status: number } };
  assert.equal(parsed.isError, false);
  assert.equal(parsed.data.title, 'Tide tables');
  assert.equal(parsed.data.status, 200);
});

test('--max-chars and --start read a long page in windows', async () => {
  const first = await run([
    'fetch',
    `${server.url}/tides`,
    '--allow-private-network',
    '127.0.0.1',
    '--max-chars',
    '200',
    '--json',
  ]);
  const data = (JSON.parse(first.stdout) as { data: { truncated: boolean; nextStartIndex: number } }).data;
  assert.equal(data.truncated, true);
  const second = await run([
    'fetch',
    `${server.url}/tides`,
    '--allow-private-network',
    '127.0.0.1',
    '--max-chars',
    '200',
    '--start',
    String(data.nextStartIndex),
    '--json',
  ]);
  assert.equal(
    (JSON.parse(second.stdout) as { data: { startIndex: number } }).data.startIndex,
    data.nextStartIndex,
  );
});

test('a private address is exit 1 with one line naming the fix, and the server is never asked', async () => {
  const before = server.calls.length;
  const result = await run(['fetch', `${server.url}/tides`]);
  assertOneLineError(result, 1, /^periscope: .*--allow-private-network/);
  assert.equal(server.calls.length, before);
});

test('user mistakes are exit 2 with one line, never a stack trace', async () => {
  assertOneLineError(await run(['fetch']), 2, /missing URL/);
  assertOneLineError(await run(['fetch', 'http://exa mple.com']), 2, /not a valid URL/);
  assertOneLineError(
    await run(['fetch', 'https://example.com', '--bogus']),
    2,
    /Unknown option '--bogus'.*periscope fetch --help/,
  );
  assertOneLineError(
    await run(['fetch', 'https://example.com', '--max-chars', 'lots']),
    2,
    /--max-chars expects a whole number/,
  );
  assertOneLineError(
    await run(['fetch', 'https://example.com', '--mode', 'html']),
    2,
    /--mode must be markdown or text/,
  );
  assertOneLineError(await run(['frobnicate']), 2, /unknown command 'frobnicate'/);
  assertOneLineError(await run(['extract', 'no-such-file.html']), 2, /file not found: no-such-file\.html/);
  assertOneLineError(await run(['extract', '-'], { stdin: '' }), 2, /stdin was empty/);
  assertOneLineError(
    await run(['fetch', 'https://example.com', '--config', 'missing.yaml']),
    2,
    /does not exist/,
  );
});

test('an invalid config is exit 2 with every problem on its own line', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'periscope-cli-'));
  writeFileSync(
    join(cwd, 'periscope.config.yaml'),
    'network:\n  maxBytes: -5\n  maxRedirects: lots\nfetch:\n  extractMode: html\n',
  );
  const result = await run(['fetch', 'https://example.com'], { cwd });
  assert.equal(result.code, 2);
  const lines = result.stderr.trim().split('\n');
  assert.match(lines[0] as string, /^periscope: config .*periscope\.config\.yaml is invalid/);
  assert.equal(lines.length, 4, result.stderr);
  assert.doesNotMatch(result.stderr, /\n\s+at /);
});

test('config show prints the effective config with secrets redacted', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'periscope-cli-'));
  writeFileSync(join(cwd, 'periscope.config.yaml'), 'network:\n  proxy: ${MY_PROXY}\n');
  const result = await run(['config', 'show', '--json'], {
    cwd,
    env: { MY_PROXY: 'http://me:hunter2@127.0.0.1:3128' },
  });
  assert.equal(result.code, 0, result.stderr);
  const shown = JSON.parse(result.stdout) as { network: { proxy: string; maxRedirects: number } };
  assert.equal(shown.network.proxy, 'http://me:[redacted]@127.0.0.1:3128');
  assert.equal(shown.network.maxRedirects, 5);
  assert.doesNotMatch(result.stdout, /hunter2/);
  assert.match(result.stderr, /# from .*periscope\.config\.yaml/);
});

test('extract reads a file or stdin, offline', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'periscope-cli-'));
  writeFileSync(join(cwd, 'page.html'), PAGE.replace('<h1>', '<p><a href="/almanac">Almanac</a></p><h1>'));
  const fromFile = await run(['extract', 'page.html', '--url', 'https://tides.example/today'], { cwd });
  assert.equal(fromFile.code, 0, fromFile.stderr);
  assert.match(fromFile.stdout, /High tide at Brest/);
  const fromStdin = await run(['extract', '--mode', 'text', '--json'], { stdin: PAGE });
  assert.equal(fromStdin.code, 0, fromStdin.stderr);
  assert.equal((JSON.parse(fromStdin.stdout) as { title: string }).title, 'Tide tables');
});
