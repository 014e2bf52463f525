// Real PDFs and images (src/content/__fixtures__) served by a local server and read through web_fetch:
// guarded client → sniffing → PDF.js or the image header reader → ToolResult.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { createPeriscope } from '../src/index.ts';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import type { ToolResult } from '../src/tools/tool-result.ts';
import type { WebFetchData } from '../src/tools/web-fetch.ts';

const FIXTURES = new URL('../src/content/__fixtures__/', import.meta.url);
const fixture = (path: string) => readFileSync(new URL(path, FIXTURES));

/** Path on the test server → fixture file and the Content-Type it is served with. */
const ROUTES: Record<string, [file: string | Buffer, contentType: string]> = {
  '/doc.pdf': ['pdf/multi-page.pdf', 'application/pdf'],
  '/report': ['pdf/titled.pdf', 'application/octet-stream'], // no useful type: sniffed from the bytes
  '/encrypted.pdf': ['pdf/encrypted.pdf', 'application/pdf'],
  '/scan.pdf': ['pdf/image-only.pdf', 'application/pdf'],
  '/truncated.pdf': ['pdf/truncated.pdf', 'application/pdf'],
  '/corrupt.pdf': ['pdf/corrupt.pdf', 'application/pdf'],
  '/labelled-as-html': ['pdf/titled.pdf', 'text/html; charset=utf-8'], // the bytes win
  '/login.pdf': [Buffer.from('<!doctype html><title>Sign in</title><form>…</form>'), 'application/pdf'],
  '/sample.png': ['image/sample.png', 'image/png'],
  '/photo.jpg': ['image/progressive.jpg', 'image/jpeg'],
  '/anim.gif': ['image/sample.gif', 'image/gif'],
  '/alpha.webp': ['image/alpha.webp', 'image/webp'],
  '/gif-labelled-png': ['image/sample.gif', 'image/png'],
  '/broken.png': ['image/truncated.png', 'image/png'],
  '/cut.png': ['image/truncated-body.png', 'image/png'],
  '/not-a.png': [Buffer.from('<!doctype html><title>Not Found</title><h1>Not Found</h1>'), 'image/png'],
  '/favicon.ico': ['image/sample.ico', 'image/x-icon'],
  '/scan.tiff': ['image/sample.tiff', 'image/tiff'],
};

let server: TestServer;
before(async () => {
  server = await startTestServer((request, response) => {
    const route = ROUTES[new URL(request.url ?? '/', 'http://x').pathname];
    if (!route) return void response.writeHead(404).end();
    const [file, contentType] = route;
    response
      .writeHead(200, { 'content-type': contentType })
      .end(typeof file === 'string' ? fixture(file) : file);
  });
});
after(() => server?.close());

// The store cache off: these tests count downloads at the origin (continuations still come from memory).
const periscope = createPeriscope({
  network: { allowPrivateNetwork: ['127.0.0.1/32'] },
  cache: { enabled: false },
});
const fetchPath = async (
  path: string,
  client = periscope,
  extra: { maxChars?: number; startIndex?: number } = {},
) => (await client.fetch({ url: `${server.url}${path}`, ...extra })) as ToolResult<WebFetchData>;

/** The data of a successful call (the assertion names the failure otherwise). */
function dataOf(result: ToolResult<WebFetchData>): WebFetchData {
  assert.equal(result.isError, false, result.output);
  return result.data as WebFetchData;
}

function assertError(result: ToolResult<WebFetchData>, code: string, pattern: RegExp): void {
  assert.equal(result.isError, true, result.output);
  const { error } = result.data as unknown as { error: { code: string; message: string } };
  assert.equal(error.code, code);
  assert.match(error.message, pattern);
}

test('a PDF is read as text, with its page count; the title comes from its metadata', async () => {
  const doc = await fetchPath('/doc.pdf');
  assert.equal(doc.isError, false, doc.output);
  const data = doc.data as WebFetchData;
  assert.equal(data.extractor, 'pdf');
  assert.equal(data.contentType, 'application/pdf');
  assert.equal(data.pageCount, 3);
  assert.equal(data.title, undefined);
  for (const sentence of ['The river delta holds seven hundred islands.', 'mentions a blue heron.']) {
    assert.ok(data.text.includes(sentence), sentence);
    assert.ok(doc.output.includes(sentence), 'inside the untrusted envelope');
  }
  assert.match(doc.output, /Pages: 3/);

  const report = await fetchPath('/report');
  assert.equal(dataOf(report).title, 'Annual Report of the Lighthouse Board');
  assert.equal(dataOf(report).extractor, 'pdf');
  assert.match(report.output, /Title: Annual Report of the Lighthouse Board/);

  const mislabelled = await fetchPath('/labelled-as-html');
  assert.equal(dataOf(mislabelled).extractor, 'pdf', 'a PDF labelled text/html is still read as a PDF');
});

test('fetch.pdfMaxPages caps the pages read and the text says so', async () => {
  const capped = createPeriscope({
    network: { allowPrivateNetwork: ['127.0.0.1/32'] },
    fetch: { pdfMaxPages: 2 },
  });
  const data = dataOf(await fetchPath('/doc.pdf', capped));
  assert.equal(data.pageCount, 3);
  assert.ok(data.text.endsWith('[Page 3 not read: page limit 2]'));
  assert.ok(!data.text.includes('blue heron'));
});

test('a long PDF is read in windows; the origin is asked once', async () => {
  const before = server.calls.length;
  const pieces: string[] = [];
  let startIndex = 0;
  for (let guard = 0; guard < 50; guard++) {
    const data = dataOf(await fetchPath('/doc.pdf', periscope, { maxChars: 200, startIndex }));
    pieces.push(data.text);
    if (data.nextStartIndex === undefined) break;
    startIndex = data.nextStartIndex;
  }
  assert.ok(pieces.length > 3);
  const whole = dataOf(await fetchPath('/doc.pdf')).text;
  assert.equal(pieces.join(''), whole);
  assert.equal(server.calls.length - before, 2, 'one download for the windows, one for the whole read');
});

test('encrypted, scanned, truncated and corrupt PDFs are UNSUPPORTED_CONTENT with a clear reason', async () => {
  assertError(await fetchPath('/encrypted.pdf'), 'UNSUPPORTED_CONTENT', /encrypted/);
  assertError(await fetchPath('/scan.pdf'), 'UNSUPPORTED_CONTENT', /no text layer.*OCR is not available/);
  assertError(await fetchPath('/truncated.pdf'), 'UNSUPPORTED_CONTENT', /damaged or truncated/);
  assertError(await fetchPath('/corrupt.pdf'), 'UNSUPPORTED_CONTENT', /damaged or truncated/);
  assertError(await fetchPath('/login.pdf'), 'UNSUPPORTED_CONTENT', /labelled as a PDF but is not one/);
});

test('PNG, JPEG, GIF and WebP come back as an image block with their size', async () => {
  const cases = [
    ['/sample.png', 'image/png', 37, 23, 'image/sample.png'],
    ['/photo.jpg', 'image/jpeg', 64, 48, 'image/progressive.jpg'],
    ['/anim.gif', 'image/gif', 40, 30, 'image/sample.gif'],
    ['/alpha.webp', 'image/webp', 50, 20, 'image/alpha.webp'],
    ['/gif-labelled-png', 'image/gif', 40, 30, 'image/sample.gif'], // the bytes win over the label
  ] as const;
  for (const [path, mimeType, width, height, file] of cases) {
    const result = await fetchPath(path);
    assert.equal(result.isError, false, result.output);
    const data = result.data as WebFetchData;
    assert.equal(data.extractor, 'image');
    assert.deepEqual(data.image, { mimeType, base64: fixture(file).toString('base64'), width, height });
    assert.match(data.text, new RegExp(`^A ${width}×${height} \\w+ image of \\d+ bytes\\.$`));
    assert.ok(!result.output.includes(data.image!.base64), 'the base64 never reaches the text output');
  }
});

test('an image over fetch.imageMaxBytes is described, not sent', async () => {
  const small = createPeriscope({
    network: { allowPrivateNetwork: ['127.0.0.1/32'] },
    fetch: { imageMaxBytes: 100 },
  });
  const data = dataOf(await fetchPath('/sample.png', small));
  assert.equal(data.image, undefined);
  assert.equal(
    data.text,
    'A 37×23 PNG image of 321 bytes — larger than the 100 bytes limit, so it is described, not sent.',
  );
});

test('damaged, mislabelled and unsupported images are UNSUPPORTED_CONTENT', async () => {
  assertError(await fetchPath('/broken.png'), 'UNSUPPORTED_CONTENT', /PNG image is damaged/);
  assertError(await fetchPath('/cut.png'), 'UNSUPPORTED_CONTENT', /PNG image is damaged.*truncated/);
  assertError(
    await fetchPath('/not-a.png'),
    'UNSUPPORTED_CONTENT',
    /declared as image\/png, but its bytes are not a PNG/,
  );
  assertError(await fetchPath('/favicon.ico'), 'UNSUPPORTED_CONTENT', /an ICO image/);
  assertError(await fetchPath('/scan.tiff'), 'UNSUPPORTED_CONTENT', /a TIFF image/);
});
