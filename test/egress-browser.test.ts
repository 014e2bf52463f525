// The egress domain policy inside the browser back-end (real Chromium): every request a page makes goes through
// the guarded client under the call's egress check, so a page on an allowed domain does not load scripts from a
// blocked or unlisted one, except from an asset domain (`egress.domains.assets`), and cannot move itself to a
// refused domain. `.test` names are mapped to 127.0.0.1 by the injected resolver (Chromium itself resolves nothing).
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { browserSchema } from '../src/config/fetch-schema.ts';
import type { ToolErrorData } from '../src/errors.ts';
import { type BrowserFetchBackend, createBrowserFetchBackend } from '../src/fetch/backends/browser.ts';
import { createPeriscope, type Periscope } from '../src/index.ts';
import type { LookupFunction } from '../src/net/types.ts';
import { chromiumTestGate } from '../src/testing/chromium.ts';
import { withNavigationHold } from '../src/testing/navigation-hold.ts';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import type { WebFetchData } from '../src/tools/web-fetch.ts';

const PARAGRAPHS = Array.from(
  { length: 6 },
  (_, index) =>
    `<p>Paragraph ${index}: the lighthouse keeper counted forty-two ships before dawn and wrote each name down.</p>`,
).join('');

/** Asks for /hold while the page loads; once it has loaded, moves the main frame to `url`. */
const movesTo = (url: string) =>
  `<script>fetch('/hold').catch(() => {}); addEventListener('load', () => setTimeout(() => location.replace('${url}'), 50));</script>`;

const lookup: LookupFunction = async (hostname) => {
  if (hostname.endsWith('.test')) return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`${hostname} not found`), { code: 'ENOTFOUND' });
};

describe('egress domains in the browser (real Chromium)', chromiumTestGate(), () => {
  let site: TestServer;
  let periscope: Periscope;
  let browser: BrowserFetchBackend;
  const script = (response: ServerResponse, marker: string) =>
    response
      .writeHead(200, { 'content-type': 'text/javascript' })
      .end(
        `document.querySelector('article').insertAdjacentHTML('beforeend', '<p>${marker} ran here.</p>');`,
      );

  before(async () => {
    site = await startTestServer({
      '/page': (request, response) => {
        const port = site.port;
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
          `<!doctype html><title>Keeper</title><article><h1>Keeper</h1>${PARAGRAPHS}</article>
<script src="http://blocked.test:${port}/script.js?marker=BLOCKED"></script>
<script src="http://unlisted.test:${port}/script.js?marker=UNLISTED"></script>
<script src="http://cdn.test:${port}/script.js?marker=ASSET"></script>
<script src="http://${request.headers.host}/script.js?marker=SAMESITE"></script>`,
        );
      },
      '/script.js': (request, response) =>
        script(response, new URL(request.url ?? '/', 'http://x').searchParams.get('marker') ?? '?'),
      // Each page that moves on asks for /hold while it loads: the browser back-end's client holds it until the
      // navigation has been dealt with (withNavigationHold), so the page is not read before that.
      '/moves': (_request, response) =>
        response
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(
            `<!doctype html><title>Moving</title><article>${PARAGRAPHS}</article>${movesTo(`http://cdn.test:${site.port}/page`)}`,
          ),
      '/empty-moves': (_request, response) =>
        response
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(`<!doctype html><title>Moving</title>${movesTo(`http://cdn.test:${site.port}/page`)}`),
      '/hold': (_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('ok'),
    });
    const browserConfig = { waitMs: 4_000, networkIdleMs: 300, idleShutdownMs: 30_000 };
    browser = withNavigationHold(
      createBrowserFetchBackend({ config: browserSchema.parse(browserConfig), maxBytes: 10_000_000 }),
      browserConfig.waitMs,
    );
    periscope = createPeriscope(
      {
        network: { allowPrivateNetwork: ['127.0.0.1/32'] },
        fetch: { robots: 'ignore', chain: ['browser'], browser: browserConfig },
        egress: { domains: { allow: ['allowed.test'], block: ['blocked.test'], assets: ['cdn.test'] } },
      },
      { env: process.env, lookup, fetchBackends: [browser] },
    );
  });
  after(async () => {
    await periscope.close();
    await browser.close();
    await site.close();
  });

  const hostsReached = (from: number) =>
    site.calls.slice(from).map((call) => `${call.headers.host?.split(':')[0]} ${call.url.search}`);

  test('scripts from a blocked or unlisted domain are refused; the same site and an asset domain load', async () => {
    const from = site.calls.length;
    const result = await periscope.fetch({ url: `http://allowed.test:${site.port}/page` });
    assert.equal(result.isError, false, result.output);
    const data = result.data as WebFetchData;
    assert.equal(data.backend, 'browser');
    assert.match(data.text, /SAMESITE ran here/);
    assert.match(data.text, /ASSET ran here/);
    assert.doesNotMatch(data.text, /BLOCKED ran here|UNLISTED ran here/);
    const reached = hostsReached(from);
    assert.ok(!reached.some((entry) => entry.startsWith('blocked.test')), reached.join(', '));
    assert.ok(!reached.some((entry) => entry.startsWith('unlisted.test')), reached.join(', '));
    assert.ok(reached.includes('cdn.test ?marker=ASSET'), reached.join(', '));
    assert.match(
      (data.warnings ?? []).join('\n'),
      /2 sub-request\(s\) outside the egress policy refused: .*blocked\.test.*unlisted\.test|2 sub-request\(s\) outside the egress policy refused: .*unlisted\.test.*blocked\.test/,
    );
  });

  test('an asset domain serves sub-resources only: a page moving itself there is refused, and read as rendered', async () => {
    // Before: the whole fetch failed POLICY_DENIED, so a page could make its own content unreadable.
    const from = site.calls.length;
    const result = await periscope.fetch({ url: `http://allowed.test:${site.port}/moves` });
    assert.equal(result.isError, false, result.output);
    const data = result.data as WebFetchData;
    assert.equal(data.finalUrl, `http://allowed.test:${site.port}/moves`);
    assert.match(data.text, /Paragraph 5: the lighthouse keeper/);
    assert.ok(
      data.warnings?.some((line) =>
        /^the page tried to move on to another address and that was refused \(POLICY_DENIED: .*the page moved on to cdn\.test was refused: the deployment allows only allowed\.test/.test(
          line,
        ),
      ),
      JSON.stringify(data.warnings),
    );
    assert.ok(!hostsReached(from).some((entry) => entry.startsWith('cdn.test')));
  });

  test('a page with nothing readable that moves itself to a refused domain fails with the refusal', async () => {
    const from = site.calls.length;
    const result = await periscope.fetch({ url: `http://allowed.test:${site.port}/empty-moves` });
    const error = (result.data as { error?: ToolErrorData }).error;
    assert.equal(error?.code, 'POLICY_DENIED', result.output);
    assert.match(
      error?.message ?? '',
      /has nothing readable of its own, and the address it moved on to failed: .*the page moved on to cdn\.test was refused: the deployment allows only allowed\.test/,
    );
    assert.ok(!hostsReached(from).some((entry) => entry.startsWith('cdn.test')));
  });
});
