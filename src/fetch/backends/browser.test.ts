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
import { browserSchema, type FetchBackendId } from '../../config/fetch-schema.ts';
import { type FetchAttempt, isPeriscopeError, type ToolErrorData } from '../../errors.ts';
import { createPeriscope } from '../../index.ts';
import { createHttpClient } from '../../net/http-client.ts';
import { chromiumTestGate } from '../../testing/chromium.ts';
import { createLoopbackConnectGuard } from '../../testing/connect-guard.ts';
import { startConnectProxyServer } from '../../testing/connect-proxy-server.ts';
import { type LoopbackServer, startCanaryServer } from '../../testing/loopback-server.ts';
import { holdForNavigation } from '../../testing/navigation-hold.ts';
import { startProviderStandIn } from '../../testing/provider-stand-in.ts';
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

/**
 * Timing assertions are bounds, not speeds: this file runs beside other Chromium tests on a 2-core CI machine
 * (--test-concurrency=2), where one fetch can take seconds. The slack is added to the configured limits.
 */
const SLACK_MS = 5_000;

/** A bot check: 403, a challenge title, and a script that lets a browser on to the page behind it. */
const CHALLENGE = `<!doctype html><html><head><title>Just a moment...</title></head><body>
<h1>Checking your browser before accessing the site</h1>
<script>location.replace('/challenge?answer=' + 6 * 7);</script></body></html>`;

/** A page built by a short script of its own: no `src=`, no bundle, nothing to read before it runs. */
const INLINE_BUILT = `<!doctype html><html><head><title>Field notes</title></head><body><div id=app></div>
<script>document.getElementById('app').innerHTML = '<article><h1>Field notes</h1>' +
  ${JSON.stringify(PARAGRAPHS)} + '</article>';</script></body></html>`;

/** The cloud metadata address: the URL policy refuses it before any connection is made. */
const METADATA_URL = 'http://169.254.169.254/latest/meta-data/';

/**
 * A script that asks for /hold while the page loads (so the request is in the router before the load event) and,
 * once the page has loaded and rendered, moves the main frame to `url`.
 */
const movesLater = (url: string) =>
  `<script>fetch('/hold').catch(() => {}); addEventListener('load', () => setTimeout(() => { location.href = '${url}'; }, 50));</script>`;

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
  /** `http://127.0.0.1:<port>/` with nothing listening: a connection there is refused. */
  let deadUrl: string;
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
    const closed = await startTestServer(() => {});
    deadUrl = `${closed.url}/gone`;
    await closed.close();
    const article = (title: string, extra: string) =>
      `<!doctype html><title>${title}</title>${extra}<article><h1>${title}</h1>${PARAGRAPHS}</article>`;
    origin = await startTestServer({
      // Each page below asks for /hold while it loads; the test's client holds that answer until the navigation
      // has been refused or has failed (see holdForNavigation), so the read comes after it on a loaded machine too.
      '/script-to-dead': (_request, response) => html(response, article('Moving on', movesLater(deadUrl))),
      '/refresh-to-dead': (_request, response) =>
        html(
          response,
          article(
            'Refreshing',
            `<meta http-equiv="refresh" content="0;url=${deadUrl}"><script>fetch('/hold').catch(() => {});</script>`,
          ),
        ),
      '/script-to-private': (_request, response) =>
        html(response, article('Moving inside', movesLater(`${target}/admin`))),
      '/script-to-metadata': (_request, response) =>
        html(response, article('Moving to the metadata service', movesLater(METADATA_URL))),
      '/empty-to-metadata': (_request, response) =>
        html(response, `<!doctype html><title>Nothing here</title>${movesLater(METADATA_URL)}`),
      '/empty-to-dead': (_request, response) =>
        html(response, `<!doctype html><title>Nothing here</title>${movesLater(deadUrl)}`),
      '/hold': (_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('ok'),
      '/script-to-live': (_request, response) =>
        html(response, article('Moving along', `<script>location.href = '/landed';</script>`)),
      '/landed': (_request, response) => html(response, article('Landed', '')),
      '/many-refused': (_request, response) =>
        html(
          response,
          article(
            'Many refused',
            `<script>for (let index = 0; index < 120; index++) fetch('${target}/n' + index).catch(() => {});</script>`,
          ),
        ),
      '/app': (_request, response) => html(response, spa('index.html')),
      '/inline-built': (_request, response) => html(response, INLINE_BUILT),
      '/assets/index-4f2a9c.js': (_request, response) =>
        response.writeHead(200, { 'content-type': 'text/javascript' }).end(spa('app.js')),
      '/api/articles': (_request, response) =>
        response.writeHead(200, { 'content-type': 'application/json' }).end(spa('articles.json')),
      '/probe': (_request, response) =>
        html(
          response,
          `<!doctype html><title>Probe</title><article><h1>Probe</h1>${PARAGRAPHS}</article>
<img src="${target}/img.png"><img src="/pixel.png"><iframe src="${target}/frame"></iframe>
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
      '/pixel.png': (_request, response) => response.writeHead(204).end(),
      '/captcha': (_request, response) =>
        html(
          response,
          '<!doctype html><title>Just a moment...</title><h1>Verify you are human</h1><div class="cf-turnstile"></div>',
          403,
        ),
      '/challenge': (request, response) =>
        request.url?.endsWith('?answer=42')
          ? html(
              response,
              `<!doctype html><title>Behind the check</title><article><h1>Behind the check</h1>${PARAGRAPHS}</article>`,
            )
          : html(response, CHALLENGE, 403),
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
    // <title> is 'Field Notes', the app's <h1> 'Field Notes from the Danube Delta'; which one is the extractor's call.
    assert.match(page.content.title ?? '', /^Field Notes/);
    assert.match(page.content.text, /Pelicans at dawn/);
    assert.match(page.content.text, /easternmost town of the European Union/);
    assert.doesNotMatch(page.content.text, /Loading…/);
    assert.ok(origin.calls.some((call) => call.url.pathname === '/api/articles'));
  });

  test('a page built by a short inline script goes from local to the browser, which reads the text it wrote', async () => {
    // Before: local read it as a page with no readable text (no javascript-shell verdict), so the chain stopped there.
    // The suite's browser serves the chain (its close is the suite's, not this Periscope's).
    const periscope = createPeriscope(
      {
        network: { allowPrivateNetwork: ['127.0.0.1/32'] },
        fetch: { chain: ['local', 'browser'], robots: 'ignore' },
      },
      { env: {}, fetchBackends: [{ ...backend, close: async () => {} }] },
    );
    try {
      const result = await periscope.fetch({ url: `${origin.url}/inline-built` });
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
      assert.match(data.text, /Paragraph 5: the lighthouse keeper counted forty-two ships/);
    } finally {
      await periscope.close();
    }
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
    // Images are skipped by default (skipResourceTypes): not even the same-origin one was asked for.
    assert.equal(origin.calls.filter((call) => call.url.pathname === '/pixel.png').length, 0);
  });

  test('with images on, the <img> aimed at a private address is refused too; an idle browser shuts down', async () => {
    const withImages = createBrowserFetchBackend({
      config: { ...BROWSER_CONFIG, skipResourceTypes: [], idleShutdownMs: 300 },
      maxBytes: 5_000_000,
    });
    try {
      const page = await withImages.fetchPage(
        { url: new URL(`${origin.url}/probe`), mode: 'markdown' },
        context(),
      );
      assert.match(page.content.text, /Paragraph 5/);
      assert.ok(
        origin.calls.some((call) => call.url.pathname === '/pixel.png'),
        'the public image was fetched',
      );
      const warning = page.warnings?.find((line) => line.includes('non-public')) ?? '';
      assert.match(warning, /127\.0\.0\.2/);
      assert.equal(canary.connections, 0, 'the canary on 127.0.0.2 was reached');
      assert.deepEqual(guard.violations, []);
      // idleShutdownMs (300 ms) after its last page was released, the browser is gone.
      assert.equal(withImages.stats().launches, 1);
      const waitUntil = performance.now() + 300 + SLACK_MS;
      while (withImages.stats().running && performance.now() < waitUntil) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(withImages.stats().running, false, 'still running after idleShutdownMs');
    } finally {
      await withImages.close();
    }
  });

  test('a document that redirects to a private address is URL_BLOCKED before the browser sees it', async () => {
    await assert.rejects(
      fetchPage('/redirect-private'),
      (error) => isPeriscopeError(error) && error.code === 'URL_BLOCKED',
    );
    assert.equal(canary.connections, 0);
  });

  const fetchHeld = (path: string) =>
    backend.fetchPage(
      { url: new URL(`${origin.url}${path}`), mode: 'markdown' },
      { signal: new AbortController().signal, fetch: holdForNavigation(httpFetch, BROWSER_CONFIG.waitMs) },
    );

  test('a rendered page moving its main frame to a refused address is read as rendered, with a warning', async () => {
    // Before: the whole fetch failed URL_BLOCKED, so a page could make its own content unreadable.
    const connectsBefore = guard.attempts.length;
    const page = await fetchHeld('/script-to-metadata');
    assert.equal(page.status, 200);
    assert.equal(page.content.title, 'Moving to the metadata service');
    assert.match(page.content.text, /Paragraph 5: the lighthouse keeper/);
    const warnings = page.warnings ?? [];
    assert.ok(
      warnings.some((line) =>
        /^the page tried to move on to another address and that was refused \(URL_BLOCKED: .*169\.254\.169\.254.*\); read as it was rendered before$/.test(
          line,
        ),
      ),
      JSON.stringify(warnings),
    );
    // The router's refusal record, and the client's connect record: refused before any connection was made.
    assert.ok(
      warnings.includes(`1 sub-request(s) to non-public addresses refused: ${METADATA_URL}`),
      JSON.stringify(warnings),
    );
    const connects = guard.attempts.slice(connectsBefore);
    assert.ok(connects.length > 0, 'the page and /hold were fetched through the guarded client');
    assert.deepEqual(
      connects.filter((attempt) => attempt.host !== '127.0.0.1'),
      [],
      'a connection left for somewhere other than the test server',
    );
    assert.deepEqual(guard.violations, []);

    // The same to a private address (the canary on 127.0.0.2, outside the allow-list): never reached.
    const inside = await fetchHeld('/script-to-private');
    assert.match(inside.content.text, /Paragraph 5/);
    assert.ok(
      inside.warnings?.some((line) => /refused \(URL_BLOCKED: .*127\.0\.0\.2/.test(line)),
      JSON.stringify(inside.warnings),
    );
    assert.equal(canary.connections, 0);
  });

  test('a rendered page moving its main frame to a dead address (script or meta refresh) is read as rendered', async () => {
    // Before: NETWORK, the page's content lost to a port nobody listens on.
    for (const [path, title] of [
      ['/script-to-dead', 'Moving on'],
      ['/refresh-to-dead', 'Refreshing'],
    ] as const) {
      const page = await fetchHeld(path);
      assert.equal(page.content.title, title, path);
      assert.match(page.content.text, /Paragraph 5/, path);
      assert.ok(
        page.warnings?.some(
          (line) =>
            line.startsWith('the page tried to move on to another address and that failed (NETWORK: ') &&
            line.includes(deadUrl),
        ),
        `${path}: ${JSON.stringify(page.warnings)}`,
      );
      assert.doesNotMatch(page.content.text, /can.t be reached|ERR_/, path);
    }
  });

  test("a page with nothing readable that moves on to a refused or dead address fails with the navigation's error", async () => {
    await assert.rejects(
      fetchHeld('/empty-to-metadata'),
      (error) =>
        isPeriscopeError(error) &&
        error.code === 'URL_BLOCKED' &&
        error.details.reason === 'cloud-metadata' &&
        error.details.provider === 'browser' &&
        /has nothing readable of its own, and the address it moved on to failed: .*169\.254\.169\.254/.test(
          error.message,
        ),
    );
    await assert.rejects(
      fetchHeld('/empty-to-dead'),
      (error) =>
        isPeriscopeError(error) &&
        error.code === 'NETWORK' &&
        error.retryable &&
        error.message.includes(deadUrl) &&
        error.details.provider === 'browser',
    );
    assert.deepEqual(guard.violations, []);
    // The first navigation itself failing: the document is unreachable, and no page is made of it.
    await assert.rejects(
      backend.fetchPage({ url: new URL(deadUrl), mode: 'markdown' }, context()),
      (error) => isPeriscopeError(error) && error.code === 'NETWORK',
    );
  });

  test('a navigation that succeeds is read as the page it led to', async () => {
    // A script's navigation reaches the router a CDP round trip after the script ran; a longer quiet keeps this
    // about what is read, not about how long the wait is on a loaded machine.
    const patient = createBrowserFetchBackend({
      config: { ...BROWSER_CONFIG, networkIdleMs: 2_000, waitMs: 8_000 },
      maxBytes: 5_000_000,
    });
    try {
      const landed = await patient.fetchPage(
        { url: new URL(`${origin.url}/script-to-live`), mode: 'markdown' },
        context(),
      );
      assert.equal(landed.status, 200);
      assert.equal(landed.content.title, 'Landed');
    } finally {
      await patient.close();
    }
  });

  test('the refused sub-request warning counts every refusal, with a short sample', async () => {
    // Before: "50 sub-request(s) to non-public addresses refused" — the record's cap printed as the count.
    const page = await fetchPage('/many-refused');
    const warning = page.warnings?.find((line) => line.includes('non-public')) ?? '';
    assert.match(warning, /^120 sub-request\(s\) to non-public addresses refused: /, warning);
    assert.equal(warning.match(/127\.0\.0\.2/g)?.length, 3, 'three examples');
    assert.equal(canary.connections, 0);
  });

  test('a page that never stops loading is read when waitMs runs out', async () => {
    const started = performance.now();
    const page = await fetchPage('/forever');
    const elapsedMs = performance.now() - started;
    assert.match(page.content.text, /Paragraph 5/);
    // Bounded: the page polls forever and one request never ends; waitMs (3 s) is what stopped the wait, and
    // the warning says so. The bound has slack for a loaded machine; an unbounded wait would never return.
    assert.ok(
      page.warnings?.some((line) => line.includes('still loading')),
      JSON.stringify(page.warnings),
    );
    const bound = BROWSER_CONFIG.waitMs + BROWSER_CONFIG.snapshotTimeoutMs + SLACK_MS;
    assert.ok(elapsedMs < bound, `took ${Math.round(elapsedMs)} ms (bound ${bound} ms)`);
  });

  test('a script stuck in a loop is TIMEOUT within snapshotTimeoutMs, and the browser goes on working', async () => {
    const started = performance.now();
    await assert.rejects(fetchPage('/busy'), (error) => isPeriscopeError(error) && error.code === 'TIMEOUT');
    const elapsedMs = performance.now() - started;
    const bound = BROWSER_CONFIG.waitMs + BROWSER_CONFIG.snapshotTimeoutMs + SLACK_MS;
    assert.ok(elapsedMs < bound, `took ${Math.round(elapsedMs)} ms (bound ${bound} ms)`);
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

  test('the chain escalates a JavaScript shell and a bot challenge from local to the browser, past tavily (createPeriscope)', async () => {
    // tavily sits between local and the browser: it runs no JavaScript, so escalation passes it by; exa comes
    // after the browser. One stand-in serves both (tavily POST /extract, exa POST /contents), always failing.
    // Readers are never sent an internal URL, so the site is reached by a public name: the injected resolver answers
    // `site.example` with a public address, and a CONNECT proxy on 127.0.0.1 tunnels it to the origin (the proxy
    // never dials out; loopback endpoints bypass it). A probe with a loopback answer shows the name goes through it.
    const readers = await startProviderStandIn(() => ({ status: 500, body: { error: 'upstream failed' } }));
    const proxy = await startConnectProxyServer({
      publicTargetsTo: { host: '127.0.0.1', port: origin.port },
    });
    const asked = (path: string) => readers.calls.filter((call) => call.url.pathname === path).length;
    const open = (chain: FetchBackendId[], address: string) =>
      createPeriscope(
        {
          network: { allowPrivateNetwork: ['127.0.0.1/32'], proxy: proxy.url, noProxy: '127.0.0.0/8' },
          fetch: {
            chain,
            robots: 'ignore',
            browser: { waitMs: 3_000, networkIdleMs: 300, warmPages: 0 },
            backends: {
              tavily: { baseUrl: readers.url, apiKey: 'tvly-test' },
              exa: { baseUrl: readers.url, apiKey: 'exa-test' },
            },
          },
        },
        {
          env: {},
          lookup: async (hostname) => {
            if (hostname !== 'site.example')
              throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
            return [{ address, family: 4 }];
          },
        },
      );
    const probe = await open(['local'], '127.0.0.1').fetch({ url: 'http://site.example/app' });
    assert.deepEqual(proxy.connects, ['127.0.0.1:80'], probe.output);
    proxy.connects.length = 0;
    const periscope = open(['local', 'tavily', 'browser', 'exa'], '93.184.215.14');
    try {
      const shell = await periscope.fetch({ url: 'http://site.example/app' });
      assert.equal(shell.isError, false, shell.output);
      const data = shell.data as WebFetchData;
      assert.equal(data.backend, 'browser');
      assert.deepEqual(
        data.attempts?.map((attempt) => [attempt.backend, attempt.outcome, attempt.code]),
        [
          ['local', 'failed', 'EMPTY_CONTENT'],
          ['tavily', 'skipped', 'EMPTY_CONTENT'],
          ['browser', 'ok', undefined],
        ],
      );
      assert.match(data.text, /Pelicans at dawn/);
      assert.match(
        shell.display ?? '',
        /→ local failed \(EMPTY_CONTENT\) → tavily skipped \(escalating\) → browser 200 text\/html, \d+ chars in \d+ ms$/,
      );

      const challenged = await periscope.fetch({ url: 'http://site.example/challenge' });
      assert.equal(challenged.isError, false, challenged.output);
      const behind = challenged.data as WebFetchData;
      assert.equal(behind.backend, 'browser');
      assert.deepEqual(
        behind.attempts?.map((attempt) => [attempt.backend, attempt.outcome, attempt.code]),
        [
          ['local', 'failed', 'BLOCKED_BY_SITE'],
          ['tavily', 'skipped', 'BLOCKED_BY_SITE'],
          ['browser', 'ok', undefined],
        ],
      );
      assert.match(behind.attempts?.[1]?.message ?? '', /local met a bot challenge; escalating/);
      // The browser ran the check's script and read the page it led to, not the check.
      assert.equal(behind.title, 'Behind the check');
      assert.equal(behind.status, 200);
      assert.match(behind.text, /Paragraph 5/);
      assert.equal(readers.calls.length, 0, 'no reader was asked');

      // A check the browser cannot pass either: after the browser's turn, the rest of the chain is asked as usual.
      const captcha = await periscope.fetch({ url: 'http://site.example/captcha' });
      assert.equal(captcha.isError, true);
      assert.deepEqual(
        (((captcha.data as { error: ToolErrorData }).error.details?.attempts ?? []) as FetchAttempt[]).map(
          (attempt) => [attempt.backend, attempt.outcome, attempt.code],
        ),
        [
          ['local', 'failed', 'BLOCKED_BY_SITE'],
          ['tavily', 'skipped', 'BLOCKED_BY_SITE'],
          ['browser', 'failed', 'BLOCKED_BY_SITE'],
          ['exa', 'failed', 'HTTP_STATUS'],
        ],
      );
      assert.equal(asked('/extract'), 0, 'tavily was never asked');
      assert.equal(asked('/contents'), 1, 'exa was asked once');
      assert.deepEqual(proxy.refused, []);
      assert.ok(
        proxy.connects.every((target) => target === '93.184.215.14:80'),
        `proxied connections: ${proxy.connects.join(', ')}`,
      );
    } finally {
      await periscope.close();
      await readers.close();
      await proxy.close();
    }
  });
});
