/**
 * The browser back-end against real Chromium (Debian's `chromium`, installed by .ci/run), on pages served on
 * 127.0.0.1. Canaries listen on 127.0.0.2, which the allow-list (127.0.0.1/32 only) does not open: every attempt
 * to reach them must be refused, and they must record zero connections. One browser for the whole file.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { CallContext } from '../../call-context.ts';
import { browserSchema } from '../../config/fetch-schema.ts';
import { isPeriscopeError } from '../../errors.ts';
import { createPeriscope } from '../../index.ts';
import { createHttpClient } from '../../net/http-client.ts';
import { chromiumTestGate } from '../../testing/chromium.ts';
import { createLoopbackConnectGuard } from '../../testing/connect-guard.ts';
import { type LoopbackServer, startCanaryServer } from '../../testing/loopback-server.ts';
import { startTestServer, type TestServer } from '../../testing/test-server.ts';
import type { WebFetchData } from '../../tools/web-fetch.ts';
import { type BrowserFetchBackend, createBrowserFetchBackend } from './browser.ts';
import { createLocalFetchBackend } from './local.ts';

const spa = (name: string) => readFileSync(new URL(`../__fixtures__/spa/${name}`, import.meta.url), 'utf8');
const html = (response: ServerResponse, body: string, status = 200) =>
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(body);
const PARAGRAPHS = Array.from(
  { length: 6 },
  (_, index) =>
    `<p>Paragraph ${index}: the lighthouse keeper counted forty-two ships before dawn and wrote each name in a notebook.</p>`,
).join('');

const BROWSER_CONFIG = browserSchema.parse({
  waitMs: 3_000,
  networkIdleMs: 500,
  snapshotTimeoutMs: 1_500,
  navigationTimeoutMs: 5_000,
  idleShutdownMs: 30_000,
});

describe('browser back-end (real Chromium)', chromiumTestGate(), () => {
  let origin: TestServer;
  let canary: LoopbackServer;
  let backend: BrowserFetchBackend;
  const guard = createLoopbackConnectGuard();
  const httpFetch = createHttpClient({
    allowPrivateNetwork: ['127.0.0.1/32'],
    beforeConnect: guard.beforeConnect,
    connectTimeoutMs: 2_000,
    headersTimeoutMs: 5_000,
    bodyTimeoutMs: 5_000,
    totalTimeoutMs: 10_000,
  });
  const context = (): CallContext => ({ signal: new AbortController().signal, fetch: httpFetch });
  const fetchPage = (path: string) =>
    backend.fetchPage({ url: new URL(`${origin.url}${path}`), mode: 'markdown' }, context());

  before(async () => {
    canary = await startCanaryServer('127.0.0.2');
    const target = `http://127.0.0.2:${canary.port}`;
    origin = await startTestServer({
      '/app': (_request, response) => html(response, spa('index.html')),
      '/assets/index-4f2a9c.js': (_request, response) =>
        response.writeHead(200, { 'content-type': 'text/javascript' }).end(spa('app.js')),
      '/api/articles': (_request, response) =>
        response.writeHead(200, { 'content-type': 'application/json' }).end(spa('articles.json')),
      '/probe': (_request, response) =>
        html(
          response,
          `<!doctype html><title>Probe</title><article><h1>Probe</h1>${PARAGRAPHS}</article>
<img src="${target}/img.png"><iframe src="${target}/frame"></iframe>
<link rel="stylesheet" href="${target}/style.css"><link rel="prefetch" href="${target}/prefetch">
<script src="${target}/script.js"></script>
<script>
  fetch('${target}/fetch').catch(() => {});
  fetch('/hop').catch(() => {});
  fetch('http://localhost:${canary.port}/by-name').catch(() => {});
  const xhr = new XMLHttpRequest(); xhr.open('GET', '${target}/xhr'); xhr.send();
  try { new WebSocket('ws://127.0.0.2:${canary.port}/ws'); } catch {}
  try { new EventSource('${target}/events'); } catch {}
  navigator.sendBeacon('${target}/beacon', 'x');
  new Worker(URL.createObjectURL(new Blob(["fetch('${target}/worker').catch(() => {})"])));
  navigator.serviceWorker?.register('/sw.js').catch(() => {});
  const frame = document.createElement('iframe'); frame.src = '/frame-redirect'; document.body.append(frame);
</script>`,
        ),
      '/hop': (_request, response) => response.writeHead(302, { location: `${target}/after-hop` }).end(),
      '/frame-redirect': (_request, response) =>
        response.writeHead(302, { location: `${target}/frame2` }).end(),
      '/redirect-private': (_request, response) => response.writeHead(302, { location: `${target}/` }).end(),
      '/forever': (_request, response) =>
        html(
          response,
          `<!doctype html><title>Forever</title><article><h1>Forever</h1>${PARAGRAPHS}</article>
<script>setInterval(() => fetch('/poll?' + Math.random()).catch(() => {}), 100); fetch('/hang').catch(() => {});</script>`,
        ),
      '/poll': (_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('ok'),
      '/hang': () => {},
      '/busy': (_request, response) =>
        html(
          response,
          `<!doctype html><title>Busy</title><p>Before the loop</p><script>for (;;) {}</script>`,
        ),
      '/download-page': (_request, response) =>
        html(
          response,
          `<!doctype html><title>Downloads</title><article><h1>Downloads</h1>${PARAGRAPHS}</article>
<a id="file" href="/file.zip" download>archive</a>
<script>document.getElementById('file').click(); setTimeout(() => { location.href = '/file.zip?navigated'; }, 50);</script>`,
        ),
      '/file.zip': (_request, response) =>
        response
          .writeHead(200, {
            'content-type': 'application/zip',
            'content-disposition': 'attachment; filename="file.zip"',
          })
          .end(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0, 0, 0, 0, 0])),
      '/report.pdf': (_request, response) =>
        response
          .writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment' })
          .end(Buffer.from('\x00\x01\x02binary\x00'.repeat(50), 'latin1')),
    });
    backend = createBrowserFetchBackend({ config: BROWSER_CONFIG, maxBytes: 5_000_000 });
  });

  after(async () => {
    await backend?.close();
    await origin?.close();
    await canary?.close();
  });

  test('a client-rendered app: a shell to the local fetch, its articles in the rendered DOM', async () => {
    await assert.rejects(
      createLocalFetchBackend().fetchPage({ url: new URL(`${origin.url}/app`), mode: 'markdown' }, context()),
      (error) => isPeriscopeError(error) && error.details.reason === 'javascript-shell',
    );
    const page = await fetchPage('/app');
    assert.equal(page.status, 200);
    assert.equal(page.content.title, 'Field Notes');
    assert.match(page.content.text, /Pelicans at dawn/);
    assert.match(page.content.text, /easternmost town of the European Union/);
    assert.doesNotMatch(page.content.text, /Loading…/);
    assert.ok(origin.calls.some((call) => call.url.pathname === '/api/articles'));
  });

  test('scripts, images, iframes, sockets, workers and redirects aimed at a private address: zero canary hits', async () => {
    const page = await fetchPage('/probe');
    assert.match(page.content.text, /Paragraph 5: the lighthouse keeper/);
    assert.equal(canary.connections, 0, 'the canary on 127.0.0.2 was reached');
    assert.deepEqual(guard.violations, []);
    const warning = page.warnings?.find((line) => line.includes('non-public'));
    assert.ok(warning, `warnings: ${JSON.stringify(page.warnings)}`);
    assert.match(warning, /127\.0\.0\.2/);
    // The same-origin hop that redirects to the canary was asked for, and refused at its second hop.
    assert.ok(origin.calls.some((call) => call.url.pathname === '/hop'));
    assert.equal(origin.calls.filter((call) => call.url.pathname === '/sw.js').length, 0, 'service worker');
    // What Chromium tried outside route interception (its own update and favicon requests) met the sink and was
    // refused there; nothing of the page's went towards the canary that way either.
    const escaped = backend.stats().escaped;
    assert.ok(
      !escaped.some((line) => line.includes('127.0.0.2') || line.includes(`:${canary.port}`)),
      escaped.join('\n'),
    );
  });

  test('a document that redirects to a private address is URL_BLOCKED before the browser sees it', async () => {
    await assert.rejects(
      fetchPage('/redirect-private'),
      (error) => isPeriscopeError(error) && error.code === 'URL_BLOCKED',
    );
    assert.equal(canary.connections, 0);
  });

  test('a page that never stops loading is read when waitMs runs out', async () => {
    const started = performance.now();
    const page = await fetchPage('/forever');
    const elapsedMs = performance.now() - started;
    assert.match(page.content.text, /Paragraph 5/);
    assert.ok(elapsedMs < BROWSER_CONFIG.waitMs + 2_000, `took ${Math.round(elapsedMs)} ms`);
    assert.ok(page.warnings?.some((line) => line.includes('still loading')));
  });

  test('a script stuck in a loop is TIMEOUT within snapshotTimeoutMs, and the browser goes on working', async () => {
    const started = performance.now();
    await assert.rejects(fetchPage('/busy'), (error) => isPeriscopeError(error) && error.code === 'TIMEOUT');
    const bound = BROWSER_CONFIG.waitMs + BROWSER_CONFIG.snapshotTimeoutMs + 2_000;
    assert.ok(performance.now() - started < bound);
    const page = await fetchPage('/app');
    assert.match(page.content.text, /Pelicans at dawn/);
  });

  test('downloads are refused: a clicked attachment link, and a binary attachment as the document', async () => {
    const page = await fetchPage('/download-page');
    assert.match(page.content.text, /Paragraph 5/);
    // A navigation to an attachment is fetched by the guarded client (bounded, in memory) and then refused.
    assert.ok(
      page.warnings?.some(
        (line) => line.startsWith('download(s) refused') && line.includes('/file.zip?navigated'),
      ),
      JSON.stringify(page.warnings),
    );
    // The download manager's own request (the <a download> click) never reached the site: Chromium's network
    // goes to the sink proxy only.
    assert.equal(origin.calls.filter((call) => call.url.href.endsWith('/file.zip')).length, 0);
    await assert.rejects(
      fetchPage('/report.pdf'),
      (error) => isPeriscopeError(error) && error.code === 'UNSUPPORTED_CONTENT',
    );
  });

  test('one browser for every fetch: launched once, pages never reused', () => {
    const stats = backend.stats();
    assert.equal(stats.launches, 1);
    assert.ok(stats.pagesOpened >= 6);
    assert.equal(stats.running, true);
  });

  test('the chain escalates a JavaScript shell from local to the browser (createPeriscope)', async () => {
    const periscope = createPeriscope({
      network: { allowPrivateNetwork: ['127.0.0.1/32'] },
      fetch: { chain: ['local', 'browser'], browser: { waitMs: 2_500, networkIdleMs: 200, warmPages: 0 } },
    });
    try {
      const result = await periscope.fetch({ url: `${origin.url}/app` });
      assert.equal(result.isError, false, result.output);
      const data = result.data as WebFetchData;
      assert.equal(data.backend, 'browser');
      assert.deepEqual(
        data.attempts?.map((attempt) => [attempt.backend, attempt.outcome, attempt.code]),
        [
          ['local', 'failed', 'EMPTY_CONTENT'],
          ['browser', 'ok', undefined],
        ],
      );
      assert.match(data.text, /Pelicans at dawn/);
      assert.match(
        result.display ?? '',
        /→ local failed \(EMPTY_CONTENT\) → browser 200 text\/html, \d+ chars in \d+ ms$/,
      );
    } finally {
      await periscope.close();
    }
  });
});
