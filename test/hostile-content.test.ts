// Hostile and awkward responses read through web_fetch (guarded client → content pipeline → tool result),
// served by a local server on 127.0.0.1.
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import iconv from 'iconv-lite';
import { createPeriscope } from '../src/index.ts';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import type { WebFetchData } from '../src/tools/web-fetch.ts';

const CHINESE =
  '中华人民共和国是世界上人口最多的国家之一，拥有悠久的历史和灿烂的文化。长城是中国古代最伟大的建筑工程之一，吸引了来自世界各地的游客。北京是中国的首都，也是政治和文化中心。';
const JAPANESE =
  '日本は東アジアに位置する島国であり、豊かな自然と長い歴史を持っています。東京は日本の首都であり、世界有数の大都市です。桜の季節には多くの人々が花見を楽しみます。';
const RUSSIAN =
  'Москва является столицей Российской Федерации и крупнейшим городом страны. Город расположен на реке Москве и известен своими историческими памятниками, музеями и театрами.';

const MB = 1_000_000;
const SENTENCE =
  'The lighthouse keeper counted forty-two ships before dawn and wrote their names in a notebook. ';
const PARAGRAPH = `<p>${SENTENCE.repeat(100)}</p>\n`;
/** About 20 MB of article: 2 000 long paragraphs. */
const BIG_PAGE = Buffer.from(
  `<!doctype html><html><head><title>Ship log</title></head><body><article><h1>Ship log</h1>${PARAGRAPH.repeat(
    Math.ceil((20 * MB) / PARAGRAPH.length),
  )}</article></body></html>`,
);
const DEEP_PAGE = `<!doctype html><html><head><title>Deep</title></head><body>${'<div>'.repeat(100_000)}<p>Text at the bottom of the pit.</p>${'</div>'.repeat(100_000)}</body></html>`;
const PDF_BYTES = Buffer.concat([
  Buffer.from('%PDF-1.7\n%'),
  Buffer.from([0xe2, 0xe3, 0xcf, 0xd3, 0x0a, 0x00, 0x01, 0x02, 0xff, 0xfe]),
  Buffer.from('\n1 0 obj <</Length 9>> stream\n'),
  Buffer.from(Array.from({ length: 2000 }, (_, index) => (index * 37) % 256)),
]);

const charsetPage = (charset: string, meta: string, text: string) =>
  iconv.encode(
    `<!doctype html><html><head>${meta}<title>${charset} page</title></head><body><article><p>${text}</p></article></body></html>`,
    charset,
  );

/** Bytes written by streaming routes before the client hung up, by path. */
const sent = new Map<string, number>();

/** Write `body` in 64 KiB chunks, honouring back-pressure, until done or the client goes away. */
async function stream(path: string, response: ServerResponse, body: Buffer): Promise<void> {
  let closed = false;
  response.on('close', () => {
    closed = true;
  });
  let offset = 0;
  while (offset < body.length && !closed) {
    const chunk = body.subarray(offset, offset + 65_536);
    offset += chunk.length;
    if (!response.write(chunk)) {
      await new Promise((resolve) => {
        response.once('drain', resolve);
        response.once('close', resolve);
      });
    }
  }
  sent.set(path, offset);
  if (!closed) response.end();
}

let server: TestServer;
before(async () => {
  server = await startTestServer({
    '/pdf-as-html': (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PDF_BYTES),
    '/zip-as-text': (_request, response) =>
      response
        .writeHead(200, { 'content-type': 'text/plain' })
        .end(Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]), Buffer.alloc(3000, 7)])),
    '/big-chunked': (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return stream('/big-chunked', response, BIG_PAGE);
    },
    '/big-declared': (_request, response) => {
      response.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-length': BIG_PAGE.length,
      });
      return stream('/big-declared', response, BIG_PAGE);
    },
    '/deep': (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(DEEP_PAGE),
    '/gbk': (_request, response) =>
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end(charsetPage('gbk', '<meta charset="gbk">', CHINESE)),
    '/shift_jis': (_request, response) =>
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          charsetPage(
            'shift_jis',
            '<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">',
            JAPANESE,
          ),
        ),
    '/windows-1251': (_request, response) =>
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end(charsetPage('windows-1251', '<meta charset="windows-1251">', RUSSIAN)),
    '/koi8-r': (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html' }).end(charsetPage('koi8-r', '', RUSSIAN)),
  });
});
after(() => server.close());

function openPeriscope(network: Record<string, unknown> = {}, fetch: Record<string, unknown> = {}) {
  return createPeriscope({ network: { allowPrivateNetwork: ['127.0.0.1/32'], ...network }, fetch });
}

const errorCode = (data: unknown) => (data as { error: { code: string } }).error.code;

test('PDF bytes labelled text/html: an error result, no binary in the output', async () => {
  const result = await openPeriscope().fetch({ url: `${server.url}/pdf-as-html` });
  assert.equal(result.isError, true);
  assert.equal(errorCode(result.data), 'UNSUPPORTED_CONTENT');
  assert.match(result.output, /PDF is damaged or truncated/);
  assert.doesNotMatch(result.output, /[\u0000-\u0008\ufffd]|%PDF|stream/);
});

test('a ZIP labelled text/plain: UNSUPPORTED_CONTENT naming what it is', async () => {
  const result = await openPeriscope().fetch({ url: `${server.url}/zip-as-text` });
  assert.equal(result.isError, true);
  assert.equal(errorCode(result.data), 'UNSUPPORTED_CONTENT');
  assert.match(result.output, /a ZIP archive/);
  assert.doesNotMatch(result.output, /[\u0000-\u0008\ufffd]/);
});

test('20 MB over a 2 MB maxBytes: BODY_TOO_LARGE at once, without reading the rest', async () => {
  const periscope = openPeriscope({ maxBytes: 2 * MB });
  const messages: Array<[string, RegExp]> = [
    ['/big-chunked', /the body is larger than 2000000 bytes \(maxBytes\)/],
    [
      '/big-declared',
      new RegExp(`the server declared a ${BIG_PAGE.length}-byte body, more than 2000000 bytes`),
    ],
  ];
  for (const [path, message] of messages) {
    const started = performance.now();
    const result = await periscope.fetch({ url: `${server.url}${path}` });
    const elapsedMs = performance.now() - started;
    assert.equal(result.isError, true, path);
    assert.equal(errorCode(result.data), 'BODY_TOO_LARGE', path);
    assert.match(result.output, message, path);
    assert.ok(elapsedMs < 3000, `${path} took ${Math.round(elapsedMs)} ms`);
    // The connection is dropped: the server never gets to write the whole 20 MB.
    await waitFor(() => sent.has(path));
    assert.ok((sent.get(path) ?? 0) < 10 * MB, `${path}: ${sent.get(path)} bytes sent`);
  }
});

test('20 MB under a 25 MB maxBytes: read in seconds, the output a bounded window', async () => {
  const periscope = openPeriscope({ maxBytes: 25 * MB });
  const started = performance.now();
  const result = await periscope.fetch({ url: `${server.url}/big-chunked`, maxChars: 20_000 });
  const elapsedMs = performance.now() - started;
  assert.equal(result.isError, false, result.output.slice(0, 500));
  assert.ok(elapsedMs < 15_000, `took ${Math.round(elapsedMs)} ms`);
  const data = result.data as WebFetchData;
  assert.equal(data.title, 'Ship log');
  assert.equal(data.truncated, true);
  assert.ok(data.length <= 20_000, `length ${data.length}`);
  assert.ok(data.totalLength > 19 * MB, `totalLength ${data.totalLength}`);
  assert.ok(data.text.startsWith(`# Ship log\n\n${SENTENCE.trim()}`), data.text.slice(0, 200));
  assert.ok(result.output.length < 21_000, `output ${result.output.length} chars`);
  assert.match(result.output, /startIndex=\d+\.\]$/);
});

test('100 000 nested <div>s: the text at the bottom comes back, well under 10 s', async () => {
  const started = performance.now();
  const result = await openPeriscope().fetch({ url: `${server.url}/deep` });
  const elapsedMs = performance.now() - started;
  assert.equal(result.isError, false, result.output);
  assert.ok(elapsedMs < 10_000, `took ${Math.round(elapsedMs)} ms`);
  const data = result.data as WebFetchData;
  assert.equal(data.title, 'Deep');
  assert.equal(data.text, 'Text at the bottom of the pit.');
});

test('legacy charsets named only in <meta>, or nowhere, over HTTP', async () => {
  const periscope = openPeriscope();
  const cases: Array<[string, string, string]> = [
    ['/gbk', 'gbk', CHINESE],
    ['/shift_jis', 'shift_jis', JAPANESE],
    ['/windows-1251', 'windows-1251', RUSSIAN],
    ['/koi8-r', 'koi8-r', RUSSIAN],
  ];
  for (const [path, charset, text] of cases) {
    const result = await periscope.fetch({ url: `${server.url}${path}`, extractMode: 'text' });
    assert.equal(result.isError, false, `${path}: ${result.output}`);
    const data = result.data as WebFetchData;
    assert.equal(data.charset, charset, path);
    assert.equal(data.title, `${charset} page`, path);
    assert.equal(data.text, text, path);
    assert.ok(result.output.includes(text), path);
  }
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
