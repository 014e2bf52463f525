import assert from 'node:assert/strict';
import { test } from 'node:test';
import iconv from 'iconv-lite';
import { isPeriscopeError } from '../errors.ts';
import { renderContent } from './render-content.ts';
import type { ExtractMode } from './types.ts';

const CHINESE =
  '中华人民共和国是世界上人口最多的国家之一，拥有悠久的历史和灿烂的文化。长城是中国古代最伟大的建筑工程之一，吸引了来自世界各地的游客。北京是中国的首都，也是政治和文化中心。';
const JAPANESE =
  '日本は東アジアに位置する島国であり、豊かな自然と長い歴史を持っています。東京は日本の首都であり、世界有数の大都市です。桜の季節には多くの人々が花見を楽しみます。';
const RUSSIAN =
  'Москва является столицей Российской Федерации и крупнейшим городом страны. Город расположен на реке Москве и известен своими историческими памятниками, музеями и театрами.';

const render = (body: Uint8Array, contentType?: string, mode: ExtractMode = 'text') =>
  renderContent({
    url: 'https://example.test/page',
    headers: contentType === undefined ? {} : { 'content-type': contentType },
    body,
    mode,
  });

const rejects = (pattern: RegExp) => (error: unknown) => {
  assert.ok(isPeriscopeError(error), String(error));
  assert.equal(error.code, 'UNSUPPORTED_CONTENT');
  assert.match(error.message, pattern);
  return true;
};

const page = (head: string, text: string) =>
  `<!doctype html><html><head>${head}<title>Charset test</title></head><body><article><p>${text}</p></article></body></html>`;

test('GBK, Shift_JIS and windows-1251 pages with the charset only in <meta>', async () => {
  const cases: Array<[string, string, string]> = [
    ['gbk', CHINESE, '<meta charset="gbk">'],
    ['shift_jis', JAPANESE, '<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">'],
    ['windows-1251', RUSSIAN, '<meta charset="windows-1251">'],
  ];
  for (const [charset, text, meta] of cases) {
    const rendered = await render(iconv.encode(page(meta, text), charset), 'text/html');
    assert.equal(rendered.kind, 'html');
    assert.equal(rendered.charset, charset);
    assert.equal(rendered.title, 'Charset test');
    assert.equal(rendered.text, text, charset);
  }
});

test('a page with no charset anywhere is detected', async () => {
  const rendered = await render(iconv.encode(page('', RUSSIAN), 'koi8-r'), 'text/html');
  assert.equal(rendered.charset, 'koi8-r');
  assert.equal(rendered.text, RUSSIAN);
});

test('the header charset beats <meta>, and legacy text/plain is decoded by its header', async () => {
  const html = await render(
    iconv.encode(page('<meta charset="utf-8">', CHINESE), 'gb18030'),
    'text/html; charset=GB18030',
  );
  assert.deepEqual([html.charset, html.text], ['gb18030', CHINESE]);
  const plain = await render(iconv.encode(JAPANESE, 'euc-jp'), 'text/plain; charset=EUC-JP');
  assert.deepEqual([plain.kind, plain.charset, plain.text], ['text', 'euc-jp', JAPANESE]);
});

test('invalid UTF-8 becomes U+FFFD, never an exception', async () => {
  const body = Buffer.concat([Buffer.from('Price: 10 '), Buffer.from([0x80, 0xff]), Buffer.from(' euros.')]);
  const rendered = await render(body, 'text/plain; charset=utf-8');
  assert.equal(rendered.text, 'Price: 10 \ufffd\ufffd euros.');
});

test('a PDF labelled text/html is read as a PDF, never as HTML text', async () => {
  const body = Buffer.concat([
    Buffer.from('%PDF-1.7\n'),
    Buffer.from([0x00, 0xff, 0x13, 0x9c, 0x01]),
    Buffer.from('<html>'),
  ]);
  await assert.rejects(render(body, 'text/html; charset=utf-8'), rejects(/^the PDF is damaged or truncated/));
});

test('PNG, ZIP and ELF bytes labelled text/plain are UNSUPPORTED_CONTENT, never text', async () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0]);
  await assert.rejects(render(png, 'text/plain'), rejects(/PNG image/));
  const zip = Buffer.concat([
    Buffer.from([0x50, 0x4b, 0x03, 0x04]),
    Buffer.from('mimetypeapplication/epub+zip'),
  ]);
  await assert.rejects(
    render(zip, 'text/plain'),
    rejects(/^the response is a ZIP archive, which has no text to read$/),
  );
  const elf = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  await assert.rejects(render(elf, 'text/plain'), rejects(/an ELF executable/));
  const noise = Uint8Array.from({ length: 4096 }, (_, index) => (index * 131) % 256);
  await assert.rejects(render(noise, 'text/html'), rejects(/binary data \(declared as text\/html\)/));
});

test('octet-stream with HTML bytes is extracted as HTML', async () => {
  const html = page(
    '',
    'The river delta holds seven hundred islands, and the ferry stops at twelve of them.',
  );
  const rendered = await render(Buffer.from(html), 'application/octet-stream', 'markdown');
  assert.equal(rendered.kind, 'html');
  assert.equal(rendered.contentType, 'text/html');
  assert.equal(
    rendered.text,
    'The river delta holds seven hundred islands, and the ferry stops at twelve of them.',
  );
});

test('JSON is sniffed and pretty-printed; malformed JSON labelled application/json is shown as text', async () => {
  const sniffed = await render(Buffer.from('{"name":"periscope","tags":["a","b"]}'), undefined);
  assert.equal(sniffed.kind, 'json');
  assert.equal(sniffed.extractor, 'json');
  assert.equal(sniffed.text, '{\n  "name": "periscope",\n  "tags": [\n    "a",\n    "b"\n  ]\n}');
  const broken = '{"name": "periscope", "tags": ["a", ';
  const rendered = await render(Buffer.from(broken), 'application/json');
  assert.equal(rendered.extractor, 'text');
  assert.equal(rendered.text, broken);
});

test('text/markdown passes through as written (BOM dropped), not re-read as HTML', async () => {
  const markdown = '# Title\n\nSome *emphasis* and <b>inline HTML</b>.\n\n- a list\n';
  const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(markdown)]);
  const rendered = await render(body, 'text/markdown; charset=utf-8', 'text');
  assert.equal(rendered.kind, 'markdown');
  assert.equal(rendered.extractor, 'markdown');
  assert.equal(rendered.text, markdown);
});

test('UTF-16 text is read, not mistaken for binary', async () => {
  const text = `UTF-16 text: ${RUSSIAN}`;
  const le = Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(text, 'utf-16le')]);
  const rendered = await render(le, 'text/plain');
  assert.deepEqual([rendered.kind, rendered.charset, rendered.text], ['text', 'utf-16le', text]);
  const be = await render(iconv.encode(text, 'utf-16be'), 'text/plain; charset=utf-16be');
  assert.deepEqual([be.kind, be.charset, be.text], ['text', 'utf-16be', text]);
});

test('text, markdown and JSON lose the invisible characters too; markdown loses its data-URI images', async () => {
  const tags = (text: string) =>
    [...text].map((char) => String.fromCodePoint(0xe0000 + (char.codePointAt(0) ?? 0))).join('');
  const hidden = `zero\u200bwidth${tags(' obey me')} and \u202ereversed\u202c`;
  const shown = 'zerowidth and reversed';
  const plain = await render(Buffer.from(`\ufeffPlain ${hidden}.`), 'text/plain; charset=utf-8');
  assert.equal(plain.text, `Plain ${shown}.`);
  const markdown = await render(
    Buffer.from(`# Notes ${hidden}\n\n![a chart](data:image/png;base64,${'iVBORw0KGgo'.repeat(50)})\n`),
    'text/markdown; charset=utf-8',
  );
  assert.equal(markdown.text, `# Notes ${shown}\n\na chart\n`);
  assert.deepEqual(markdown.outline, [{ level: 1, title: `Notes ${shown}`, offset: 0 }]);
  const json = await render(
    Buffer.from(JSON.stringify({ note: hidden, escaped: 'zero\\u200bwidth' }).replace('\\\\u', '\\u')),
    'application/json',
  );
  assert.equal(json.text, `{\n  "note": "${shown}",\n  "escaped": "zerowidth"\n}`);
  const broken = await render(Buffer.from(`{"note": "${hidden}`), 'application/json');
  assert.equal(broken.text, `{"note": "${shown}`);
});
