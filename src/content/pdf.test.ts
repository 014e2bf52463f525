// Real PDFs made by groff, qpdf and img2pdf (see __fixtures__/README.md), read through PDF.js (unpdf).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { isPeriscopeError } from '../errors.ts';
import { layOut, renderPdf } from './pdf.ts';
import { renderContent } from './render-content.ts';

const FIXTURES = new URL('__fixtures__/pdf/', import.meta.url);
const fixture = (name: string) => new Uint8Array(readFileSync(new URL(name, FIXTURES)));
const flat = (text: string) => text.replace(/\s+/g, ' ');

const unsupported = (pattern: RegExp) => (error: unknown) => {
  assert.ok(isPeriscopeError(error), String(error));
  assert.equal(error.code, 'UNSUPPORTED_CONTENT');
  assert.match(error.message, pattern);
  return true;
};

test('a three-page PDF: every page, in order, paragraphs apart, pages apart', async () => {
  const pdf = await renderPdf(fixture('multi-page.pdf'), { maxPages: 200 });
  assert.equal(pdf.pageCount, 3);
  assert.equal(pdf.title, undefined);
  const sentences = [
    'Periscope reads PDF files page by page and hands the text to the model.',
    'The lighthouse keeper counted forty-two ships before dawn, wrote their names in a small blue notebook,',
    'The river delta holds seven hundred islands.',
    'Apples are picked in September.',
    'Snow stays on the northern slopes until the end of June.',
    'The last sentence of the third page mentions a blue heron.',
  ];
  const positions = sentences.map((sentence) => flat(pdf.text).indexOf(sentence));
  assert.ok(
    positions.every((position) => position >= 0),
    `missing: ${sentences.filter((_, i) => positions[i]! < 0)}`,
  );
  assert.deepEqual(
    positions,
    [...positions].sort((a, b) => a - b),
    'in reading order',
  );
  // A paragraph break is a blank line; the lines of a paragraph are not.
  assert.match(pdf.text, /morning tide\.\n\nA second paragraph follows the first one\./);
  assert.match(pdf.text, /lighthouse keeper\ncounted forty-two ships/);
  assert.match(pdf.text, /\n\n2\. Rivers\n\n/);
  assert.ok(!/\n{3,}/.test(pdf.text), 'never more than one blank line');
  assert.ok(!pdf.text.includes('not read'));
});

test('pages past maxPages are left out, and the text says which', async () => {
  const two = await renderPdf(fixture('multi-page.pdf'), { maxPages: 2 });
  assert.equal(two.pageCount, 3);
  assert.ok(two.text.includes('seven hundred islands'));
  assert.ok(!two.text.includes('blue heron'));
  assert.ok(two.text.endsWith('\n\n[Page 3 not read: page limit 2]'));

  const one = await renderPdf(fixture('multi-page.pdf'), { maxPages: 1 });
  assert.ok(!one.text.includes('seven hundred islands'));
  assert.ok(one.text.endsWith('\n\n[Pages 2–3 not read: page limit 1]'));
});

test('the document title comes from the PDF metadata', async () => {
  const pdf = await renderPdf(fixture('titled.pdf'), { maxPages: 200 });
  assert.equal(pdf.title, 'Annual Report of the Lighthouse Board');
  assert.equal(pdf.pageCount, 1);
  assert.equal(pdf.text, 'This report covers the lighthouses of the northern coast.');
});

test('an XMP dc:title is preferred to the Info Title, as PDF readers do', async () => {
  const pdf = await renderPdf(fixture('xmp-title.pdf'), { maxPages: 200 });
  assert.equal(pdf.title, 'The Lighthouse Board in 2026');
});

test('scanned pages among text pages are named, not silently dropped', async () => {
  const pdf = await renderPdf(fixture('mixed.pdf'), { maxPages: 200 });
  assert.equal(pdf.pageCount, 3);
  assert.equal(
    pdf.text,
    'This report covers the lighthouses of the northern coast.\n\n' +
      '[Page 2: no text layer (a scanned image?)]\n\n[Page 3: no text layer (a scanned image?)]',
  );
  await assert.rejects(
    renderPdf(fixture('image-only.pdf'), { maxPages: 1 }),
    unsupported(/^the first page of the PDF has no text layer/),
  );
});

test('a PDF with only an owner password (restrictions) opens like any other', async () => {
  const pdf = await renderPdf(fixture('owner-password-only.pdf'), { maxPages: 200 });
  assert.equal(pdf.title, 'Annual Report of the Lighthouse Board');
  assert.equal(pdf.text, 'This report covers the lighthouses of the northern coast.');
});

test('a PDF that needs a password is UNSUPPORTED_CONTENT: encrypted', async () => {
  await assert.rejects(
    renderPdf(fixture('encrypted.pdf'), { maxPages: 200 }),
    unsupported(/^the PDF is encrypted with a password/),
  );
});

test('a PDF of scanned pages is UNSUPPORTED_CONTENT: no text layer, no OCR', async () => {
  await assert.rejects(
    renderPdf(fixture('image-only.pdf'), { maxPages: 200 }),
    unsupported(/^the PDF has no text layer \(scanned pages\?\); OCR is not available$/),
  );
});

test('truncated and corrupt PDFs end in a clear error, quickly', async () => {
  const started = performance.now();
  for (const bytes of [
    fixture('truncated.pdf'),
    fixture('corrupt.pdf'),
    new TextEncoder().encode('%PDF-1.7\n'),
  ]) {
    await assert.rejects(
      renderPdf(bytes, { maxPages: 200 }),
      unsupported(/^the PDF is damaged or truncated/),
    );
  }
  // A guard against a parse that hangs (it would wait forever), not a speed measure: generous for a loaded machine.
  assert.ok(performance.now() - started < 30_000);
});

test('bytes labelled as a PDF that are not one say so', async () => {
  for (const bytes of [
    new TextEncoder().encode('<!doctype html><title>Sign in</title>'),
    new Uint8Array(0),
  ]) {
    await assert.rejects(
      renderPdf(bytes, { maxPages: 200 }),
      unsupported(/^the response is labelled as a PDF but is not one \(no %PDF- header/),
    );
  }
});

test('text too small to see (1 pt) is left out: a hiding place for instructions', async () => {
  const pdf = await renderPdf(fixture('hidden-text.pdf'), { maxPages: 200 });
  assert.equal(pdf.text, 'This page has one visible sentence. The visible text goes on after it.');
});

test('a cancelled call stops with ABORTED', async () => {
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(
    renderPdf(fixture('multi-page.pdf'), { maxPages: 200, signal: controller.signal }),
    (error: unknown) => isPeriscopeError(error) && error.code === 'ABORTED',
  );
});

test('PDFs read in parallel do not disturb one another', async () => {
  const names = ['multi-page.pdf', 'titled.pdf', 'encrypted.pdf', 'multi-page.pdf', 'titled.pdf'];
  const results = await Promise.allSettled(names.map((name) => renderPdf(fixture(name), { maxPages: 200 })));
  assert.deepEqual(
    results.map((result) => (result.status === 'fulfilled' ? result.value.pageCount : 'rejected')),
    [3, 1, 'rejected', 3, 1],
  );
});

test('layOut: runs on one baseline make a line; a wide gap is a space; a wide line spacing a paragraph', () => {
  const run = (text: string, x: number, y: number, width = text.length * 5) => ({
    text,
    x,
    y,
    width,
    height: 10,
  });
  const text = layOut([
    run('Hello', 72, 100),
    run('world', 102, 100), // 5 units after "Hello" ends: a space
    run('again', 72, 112),
    run('!', 97, 112.5), // touching, a hair lower: same line, no space
    run('New paragraph', 72, 130),
    run('Column two', 300, 40), // back up the page
  ]);
  assert.equal(text, 'Hello world\nagain!\n\nNew paragraph\n\nColumn two');
});

test('renderContent: a PDF response becomes its text, with the page count, title and page cap', async () => {
  const rendered = await renderContent({
    url: 'http://example.test/report',
    headers: { 'content-type': 'application/octet-stream' },
    body: fixture('titled.pdf'),
    mode: 'markdown',
  });
  assert.deepEqual(
    { ...rendered },
    {
      kind: 'pdf',
      contentType: 'application/pdf',
      charset: 'binary',
      extractor: 'pdf',
      title: 'Annual Report of the Lighthouse Board',
      pageCount: 1,
      text: 'This report covers the lighthouses of the northern coast.',
    },
  );
  const capped = await renderContent({
    url: 'http://example.test/doc.pdf',
    headers: { 'content-type': 'application/pdf' },
    body: fixture('multi-page.pdf'),
    mode: 'text',
    limits: { pdfMaxPages: 1 },
  });
  assert.equal(capped.pageCount, 3);
  assert.ok(capped.text.endsWith('[Pages 2–3 not read: page limit 1]'));
});

test('importing Periscope does not load the PDF engine; the first PDF does', () => {
  // A fresh process records every module it resolves (module.registerHooks), imports the library entry,
  // then reads one PDF through renderContent.
  const script = `
    import { registerHooks } from 'node:module';
    import { readFileSync } from 'node:fs';
    const resolved = [];
    registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); resolved.push(result.url); return result; } });
    const engine = () => resolved.filter((url) => /unpdf|pdfjs|pdf\\.worker/i.test(url));
    const periscope = await import(${JSON.stringify(new URL('../index.ts', import.meta.url).href)});
    periscope.createPeriscope();
    const afterImport = engine();
    const { renderContent } = await import(${JSON.stringify(new URL('./render-content.ts', import.meta.url).href)});
    await renderContent({ url: 'http://x.test/', headers: {}, body: readFileSync(${JSON.stringify(new URL('titled.pdf', FIXTURES).pathname)}), mode: 'text' });
    console.log(JSON.stringify({ modules: resolved.length, afterImport, afterPdf: engine() }));
  `;
  const output = execFileSync(process.execPath, ['--input-type=module', '--eval', script], {
    encoding: 'utf8',
  });
  const { modules, afterImport, afterPdf } = JSON.parse(output) as {
    modules: number;
    afterImport: string[];
    afterPdf: string[];
  };
  assert.ok(modules > 10, 'the hook saw the imports');
  assert.deepEqual(afterImport, []);
  assert.ok(
    afterPdf.some((url) => url.includes('unpdf')),
    `the engine was loaded: ${afterPdf}`,
  );
});

test('the PDF outline (bookmarks) gives each entry the offset of its heading, nested ones a level deeper', async () => {
  const pdf = await renderPdf(fixture('outline.pdf'), { maxPages: 200 });
  assert.deepEqual(
    pdf.outline?.map(({ level, title }) => [level, title]),
    [
      [1, 'Harbours'],
      [1, 'Rivers'],
      [2, 'Ferries'],
      [1, 'Mountains'],
    ],
  );
  for (const entry of pdf.outline ?? []) {
    const line = pdf.text.slice(entry.offset).split('\n')[0]!;
    assert.match(line, new RegExp(`^[\\d.]+ ${entry.title}$`), `${entry.title} at ${entry.offset}`);
  }
  // Bookmarks into pages not read are left out; a PDF without bookmarks has no outline.
  const first = await renderPdf(fixture('outline.pdf'), { maxPages: 1 });
  assert.deepEqual(
    first.outline?.map((entry) => entry.title),
    ['Harbours'],
  );
  assert.equal((await renderPdf(fixture('multi-page.pdf'), { maxPages: 200 })).outline, undefined);
});

test('a PDF over maxBytes is BODY_TOO_LARGE naming fetch.pdfMaxBytes, before the engine reads it', async () => {
  const bytes = fixture('multi-page.pdf');
  await assert.rejects(renderPdf(bytes, { maxPages: 200, maxBytes: 5000 }), (error: unknown) => {
    assert.ok(isPeriscopeError(error), String(error));
    assert.equal(error.code, 'BODY_TOO_LARGE');
    assert.equal(
      error.message,
      'the PDF is 13.1 kB, over the 5 kB limit (fetch.pdfMaxBytes), so it was not read; raise fetch.pdfMaxBytes to read it',
    );
    assert.equal(error.details.limit, 'fetch.pdfMaxBytes');
    assert.equal(error.details.limitValue, 5000);
    return true;
  });
  assert.equal((await renderPdf(bytes, { maxPages: 200, maxBytes: bytes.length })).pageCount, 3);
});
