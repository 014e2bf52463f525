// Real PDFs and images (src/content/__fixtures__) served by a local server and read through web_fetch:
// guarded client → sniffing → PDF.js or the image header reader → ToolResult.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import { crc32, deflateSync } from 'node:zlib';
import type { ToolErrorData } from '../src/errors.ts';
import { createPeriscope } from '../src/index.ts';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import type { ToolResult } from '../src/tool-call.ts';
import type { WebFetchData } from '../src/tools/web-fetch.ts';

const FIXTURES = new URL('../src/content/__fixtures__/', import.meta.url);
const fixture = (path: string) => readFileSync(new URL(path, FIXTURES));

/** Path on the test server → fixture file and the Content-Type it is served with. */
const ROUTES: Record<string, [file: string | Buffer, contentType: string]> = {
  '/doc.pdf': ['pdf/multi-page.pdf', 'application/pdf'],
  '/outline.pdf': ['pdf/outline.pdf', 'application/pdf'],
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

/**
 * A real PNG of random pixels (incompressible, so the file is as large as its pixels): signature, IHDR, one
 * stored-deflate IDAT, IEND, each chunk with its CRC.
 */
function randomPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const framed = Buffer.alloc(body.length + 8);
    framed.writeUInt32BE(data.length, 0);
    body.copy(framed, 4);
    framed.writeUInt32BE(crc32(body), body.length + 4);
    return framed;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per channel
  header[9] = 2; // RGB
  const rowBytes = 1 + width * 3;
  const pixels = randomBytes(rowBytes * height);
  for (let row = 0; row < height; row++) pixels[row * rowBytes] = 0; // filter: none
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels, { level: 0 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** About 20 MB: more than the default image cap (3 MB) and network cap (10 MB), more than socket buffers hold. */
const LARGE_PNG = randomPng(2600, 2600);

/** How much of each streamed body the server wrote before the connection closed, and whether it finished. */
const streamed = new Map<string, { writtenBytes: number; finished: boolean }>();

/** Writes `body` in 64 kB pieces as the client reads them, and records how far it got. */
async function stream(path: string, response: ServerResponse, body: Buffer, headers: Record<string, string>) {
  response.writeHead(200, headers);
  let writtenBytes = 0;
  response.once('close', () => streamed.set(path, { writtenBytes, finished: response.writableFinished }));
  for (let at = 0; at < body.length && !response.destroyed; at += 65_536) {
    const piece = body.subarray(at, at + 65_536);
    writtenBytes += piece.length;
    if (!response.write(piece)) {
      await new Promise((resolve) => {
        response.once('drain', resolve);
        response.once('close', resolve);
      });
    }
  }
  if (!response.destroyed) response.end();
}

/** What the server saw of a streamed body, once its connection closed (a little after the client gave up). */
async function streamedOf(path: string) {
  for (let waited = 0; !streamed.has(path) && waited < 5000; waited += 10) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return streamed.get(path);
}

const STREAMED: Record<string, [body: Buffer, contentType: string, declareLength: boolean]> = {
  '/large.png': [LARGE_PNG, 'image/png', true],
  '/large-chunked.png': [LARGE_PNG, 'image/png', false],
  '/sized.pdf': [fixture('pdf/multi-page.pdf'), 'application/pdf', true],
  // An HTML page that quotes the PDF marker near its top, larger than the PDF cap of the test below.
  '/quotes-pdf-marker.html': [
    Buffer.from(
      `<!doctype html><html><head><title>PDF headers</title></head><body><main><h1>PDF headers</h1><p>Every PDF starts with %PDF-1.7 or similar.</p>${'<p>A PDF file begins with a header line naming its version.</p>'.repeat(200)}</main></body></html>`,
    ),
    'text/html; charset=utf-8',
    true,
  ],
};

let server: TestServer;
before(async () => {
  server = await startTestServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    const large = STREAMED[path];
    if (large) {
      const [body, contentType, declareLength] = large;
      const headers = {
        'content-type': contentType,
        ...(declareLength ? { 'content-length': String(body.length) } : {}),
      };
      return stream(path, response, body, headers);
    }
    const route = ROUTES[path];
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
    'A 37×23 PNG image of more than 100 bytes — larger than the 100 bytes limit (fetch.imageMaxBytes), so it is described, not sent.',
  );
});

test('a 20 MB PNG is described from its header, and its download stops there', async () => {
  const roomy = createPeriscope({
    network: { allowPrivateNetwork: ['127.0.0.1/32'], maxBytes: 50_000_000 },
    cache: { enabled: false },
  });
  // Declared length over fetch.imageMaxBytes (3 MB): the download stops once the header is in.
  const result = await fetchPath('/large.png', roomy);
  const data = dataOf(result);
  assert.equal(data.image, undefined);
  assert.equal(data.status, 200);
  assert.equal(data.contentType, 'image/png');
  assert.equal(
    data.text,
    'A 2 600×2 600 PNG image of 20.3 MB — larger than the 3 MB limit (fetch.imageMaxBytes), so it is described, not sent.',
  );
  assert.match(result.output, new RegExp(`URL: ${server.url}/large.png`));
  const declared = await streamedOf('/large.png');
  assert.equal(declared?.finished, false, 'the client closed the connection before the end of the body');
  assert.ok(declared.writtenBytes < LARGE_PNG.length / 2, `${declared.writtenBytes} bytes written`);

  // No declared length: the download stops at the cap.
  const chunked = dataOf(await fetchPath('/large-chunked.png', roomy));
  assert.equal(
    chunked.text,
    'A 2 600×2 600 PNG image of more than 3 MB — larger than the 3 MB limit (fetch.imageMaxBytes), so it is described, not sent.',
  );
  assert.equal((await streamedOf('/large-chunked.png'))?.finished, false);
});

test('an image whose declared length is over network.maxBytes is described from its headers alone', async () => {
  const data = dataOf(await fetchPath('/large.png'));
  assert.equal(data.image, undefined);
  assert.equal(
    data.text,
    'The server declares a PNG image of 20.3 MB — larger than the 10 MB limit (network.maxBytes), so it was not downloaded; it is described, not sent.',
  );
});

test('a PDF over fetch.pdfMaxBytes is BODY_TOO_LARGE naming the option; network.maxBytes still bounds it', async () => {
  const capped = createPeriscope({
    network: { allowPrivateNetwork: ['127.0.0.1/32'] },
    fetch: { pdfMaxBytes: 5000 },
    cache: { enabled: false },
  });
  const declared = await fetchPath('/sized.pdf', capped);
  assertError(
    declared,
    'BODY_TOO_LARGE',
    /^the PDF is 13\.1 kB, over the 5 kB limit \(fetch\.pdfMaxBytes\), so it was not read; raise fetch\.pdfMaxBytes to read it$/,
  );
  assert.match(declared.output, /fetch\.pdfMaxBytes/);
  assertError(
    await fetchPath('/doc.pdf', capped),
    'BODY_TOO_LARGE',
    /^the PDF is more than 5 kB, over the 5 kB limit \(fetch\.pdfMaxBytes\)/,
  );
  const smallNetwork = createPeriscope({
    network: { allowPrivateNetwork: ['127.0.0.1/32'], maxBytes: 5000 },
    cache: { enabled: false },
  });
  assertError(
    await fetchPath('/doc.pdf', smallNetwork),
    'BODY_TOO_LARGE',
    /\(network\.maxBytes\).*raise network\.maxBytes/,
  );
  // An HTML page quoting "%PDF-" near its top is not taken for a PDF and capped.
  const page = dataOf(await fetchPath('/quotes-pdf-marker.html', capped));
  assert.equal(page.contentType, 'text/html');
  assert.match(page.text ?? '', /Every PDF starts with %PDF-1\.7/);
  // Under the cap it is read as usual.
  assert.equal(dataOf(await fetchPath('/sized.pdf')).pageCount, 3);
});

test('a PDF with bookmarks has an outline to jump by', async () => {
  const data = dataOf(await fetchPath('/outline.pdf', periscope, { maxChars: 100 }));
  assert.deepEqual(
    data.outline?.map((entry) => entry.title),
    ['Harbours', 'Rivers', 'Ferries', 'Mountains'],
  );
  const mountains = data.outline!.at(-1)!;
  const jump = dataOf(await fetchPath('/outline.pdf', periscope, { startIndex: mountains.offset }));
  assert.ok(jump.text.startsWith('3. Mountains'), jump.text.slice(0, 40));
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

test("unreadable PDFs and damaged images carry a reason from the table, not the reader's words", async () => {
  const reasonOf = (result: ToolResult<WebFetchData>) =>
    (result.data as unknown as { error: ToolErrorData }).error.details?.reason;
  assert.equal(reasonOf(await fetchPath('/encrypted.pdf')), 'pdf-encrypted');
  assert.equal(reasonOf(await fetchPath('/truncated.pdf')), 'pdf-damaged');
  assert.equal(reasonOf(await fetchPath('/corrupt.pdf')), 'pdf-damaged');
  assert.equal(reasonOf(await fetchPath('/broken.png')), 'image-damaged');
  assert.equal(reasonOf(await fetchPath('/cut.png')), 'image-damaged');
});
