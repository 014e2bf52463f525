// The README's lines for trying Periscope on a local server, run as written against a page on a local test server:
// the MCP Inspector lines (`npm run -s inspector -- …`) over stdio (the Inspector starts `periscope mcp`) and over
// HTTP (a `periscope serve` started with the flags the README gives `npm start`), and the CLI's `fetch` line.
// Only the two addresses are replaced by this test's own servers.
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import { type CliRun, runCli, runProgram, startServe } from './support/run-cli.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const INSPECTOR = join(ROOT, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
const README_PAGE = 'http://127.0.0.1:8000/';
const README_SERVER = 'http://127.0.0.1:7800';

function npmOnPath(): boolean {
  try {
    execFileSync('npm', ['--version'], { stdio: 'ignore', timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

const skip = !existsSync(INSPECTOR)
  ? '@modelcontextprotocol/inspector is not installed'
  : !npmOnPath()
    ? 'npm is not on PATH'
    : false;

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The README's lines that start with `prefix`, each as its arguments (a trailing `# comment` removed). */
function readmeLines(prefix: string): string[][] {
  return README.split('\n')
    .filter((line) => line.startsWith(prefix))
    .map((line) => {
      const command = line.replace(/\s+#\s.*$/, '').trim();
      assert.doesNotMatch(command, /['"\\#]/, `a README line this test can split on spaces: ${line}`);
      return command.split(/\s+/);
    });
}

/** The flags the README's Inspector paragraph gives `npm start` for the server its HTTP line asks. */
function readmeServeFlags(): string[] {
  const flags = /The last line asks the server `npm start -- ([^`]+)` started/.exec(
    README.replace(/\n/g, ' '),
  )?.[1];
  assert.ok(flags, 'the README says how the server of the HTTP line was started');
  return flags.split(/\s+/);
}

const PAGE = `<!doctype html><html><head><title>Inspector tide page</title></head><body><main><h1>Tides</h1>
${'<p>High tide at Brest is at 06:12 and 18:40 today; the coefficient is 95, a spring tide.</p>'.repeat(4)}</main></body></html>`;

let page: TestServer;
let folder: string;
let serveFolder: string;
let serve: ChildProcess;
let exited: Promise<number | null>;
let base: string;
let serveStderr: () => string = () => '';

const env = (home = folder) => ({
  PATH: process.env.PATH ?? '',
  HOME: home,
  npm_config_update_notifier: 'false',
});

function runCommand(command: string, args: readonly string[]): Promise<CliRun> {
  return runProgram(command, args, { cwd: ROOT, env: env() });
}

before(async () => {
  if (skip) return;
  page = await startTestServer({ 'GET /': (_request, response) => response.end(PAGE) });
  folder = mkdtempSync(join(tmpdir(), 'periscope-readme-inspector-'));
  // The server has its own state (and so its own cache): the HTTP call reads the page again.
  serveFolder = mkdtempSync(join(tmpdir(), 'periscope-readme-inspector-serve-'));
  const served = await startServe(readmeServeFlags(), { cwd: serveFolder, env: env(serveFolder) });
  serve = served.child;
  exited = served.exited;
  base = served.url;
  serveStderr = served.stderr;
});

after(async () => {
  if (serve && serve.exitCode === null) {
    serve.kill('SIGTERM');
    assert.equal(await exited, 0, serveStderr());
  }
  await page?.close();
});

test("the README's Inspector lines list and call the tools, over stdio and over HTTP", { skip }, async () => {
  const lines = readmeLines('npm run -s inspector -- ');
  assert.equal(lines.length, 3, 'the README shows three Inspector lines');
  const [listStdio, callStdio, callHttp] = lines as [string[], string[], string[]];
  assert.ok(
    callHttp.some((arg) => arg.startsWith(`${README_SERVER}/mcp`)),
    'the HTTP line names the /mcp URL',
  );

  const run = (line: string[]) => {
    const args = line
      .slice(1)
      .map((arg) => arg.replace(README_PAGE, `${page.url}/`).replace(README_SERVER, base));
    return runCommand(line[0] as string, args);
  };

  const listed = await run(listStdio);
  assert.equal(listed.code, 0, listed.stderr);
  assert.doesNotMatch(
    listed.stderr,
    /deprecated/i,
    'the Inspector is a supported release: no deprecation banner',
  );
  const { tools } = JSON.parse(listed.stdout) as { tools: Array<{ name: string }> };
  assert.deepEqual(tools.map((tool) => tool.name).sort(), ['image_search', 'web_fetch', 'web_search']);

  for (const line of [callStdio, callHttp]) {
    const called = await run(line);
    assert.equal(called.code, 0, called.stderr);
    const result = JSON.parse(called.stdout) as { isError: boolean; content: Array<{ text: string }> };
    assert.equal(result.isError, false, called.stdout);
    assert.match(result.content[0]?.text ?? '', /Title: Inspector tide page/);
    assert.match(result.content[0]?.text ?? '', /High tide at Brest/);
  }
  assert.equal(page.calls.filter((call) => call.url.pathname === '/').length, 2, 'each call read the page');
});

test("the README's CLI line fetches a page on a local server, which the same line without the flag may not", {
  skip,
}, async () => {
  const lines = readmeLines(`npm run periscope -- fetch ${README_PAGE}`);
  assert.equal(lines.length, 1, 'the README shows the CLI fetching a local server');
  const args = (lines[0] as string[]).slice(4).map((arg) => arg.replace(README_PAGE, `${page.url}/`));
  assert.ok(args.includes('--allow-private-network'), args.join(' '));
  const fetched = await runCli(args, { cwd: mkdtempSync(join(tmpdir(), 'periscope-readme-fetch-')) });
  assert.equal(fetched.code, 0, fetched.stderr);
  assert.match(fetched.stdout, /Title: Inspector tide page/);

  const refused = await runCli(
    args.filter(
      (arg, index) => arg !== '--allow-private-network' && args[index - 1] !== '--allow-private-network',
    ),
    { cwd: mkdtempSync(join(tmpdir(), 'periscope-readme-fetch-')) },
  );
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /non-public address.*--allow-private-network/);
});
