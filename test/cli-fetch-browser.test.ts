// `periscope fetch` and the browser back-end, spawned as a user runs it, against a page on 127.0.0.1: a JavaScript
// shell without the browser says how to turn it on (the config key, and the flag), and `--browser` turns it on.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chainWithBrowser } from '../src/surfaces/cli/commands/fetch.ts';
import { chromiumTestGate } from '../src/testing/chromium.ts';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import { runCli } from './support/run-cli.ts';

/** A page built by a short script of its own: nothing to read until a browser runs it. */
const SHELL = `<!doctype html><html><head><title>Field notes</title></head><body><div id=app></div>
<script>document.getElementById('app').innerHTML = '<article><h1>Field notes</h1>' +
  '<p>Pelicans at dawn over the delta, counted one by one from the old lighthouse by the keeper.</p>'.repeat(4) +
  '</article>';</script></body></html>`;

const OPEN = ['--allow-private-network', '127.0.0.1'];

let server: TestServer;
before(async () => {
  server = await startTestServer({
    '/app': (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(SHELL),
  });
});
after(() => server.close());

/** A folder of its own with a config file (robots.txt is not served here), as the working directory. */
function folderWith(config: string): string {
  const cwd = mkdtempSync(join(tmpdir(), 'periscope-cli-browser-'));
  writeFileSync(join(cwd, 'periscope.config.yaml'), config);
  return cwd;
}

test('a JavaScript shell without the browser names the config key and the --browser flag', async () => {
  // Before: "…it needs a browser back-end to render", with no word of how to turn one on.
  const result = await runCli(['fetch', `${server.url}/app`, ...OPEN], {
    cwd: folderWith('fetch: { robots: ignore }\n'),
    stdin: '',
  });
  assert.equal(result.code, 1, result.stderr);
  const message = result.stderr.trimEnd().split('\n').at(-1) ?? '';
  assert.match(message, /^periscope: .* is a JavaScript application shell \(/);
  assert.ok(
    message.endsWith(
      "; to render it, add browser to fetch.chain, e.g. fetch.chain: [local, browser] (it drives the system's Chromium) (or pass --browser)",
    ),
    message,
  );
  const help = await runCli(['fetch', '--help'], { cwd: folderWith(''), stdin: '' });
  assert.match(
    help.stdout,
    /\n {2}--browser {15}render pages in the system's Chromium too: adds browser to fetch\.chain/,
  );
});

test('--browser puts browser after local, or last, and leaves a chain that has it alone', () => {
  assert.deepEqual(chainWithBrowser(['local']), ['local', 'browser']);
  assert.deepEqual(chainWithBrowser(['jina-reader', 'local', 'exa']), [
    'jina-reader',
    'local',
    'browser',
    'exa',
  ]);
  assert.deepEqual(chainWithBrowser(['jina-reader']), ['jina-reader', 'browser']);
  assert.deepEqual(chainWithBrowser(['browser', 'local']), ['browser', 'local']);
});

describe('--browser with real Chromium', chromiumTestGate(), () => {
  test('periscope fetch --browser renders the page the script builds', async () => {
    const result = await runCli(['fetch', `${server.url}/app`, '--browser', ...OPEN], {
      cwd: folderWith('fetch: { robots: ignore, browser: { waitMs: 8000, networkIdleMs: 300 } }\n'),
      stdin: '',
      env: process.env.PERISCOPE_CHROMIUM_PATH
        ? { PERISCOPE_CHROMIUM_PATH: process.env.PERISCOPE_CHROMIUM_PATH }
        : {},
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Pelicans at dawn over the delta/);
    assert.match(result.stderr, /→ local failed \(EMPTY_CONTENT\) → browser 200 /);
  });
});
