import assert from 'node:assert/strict';
import { test } from 'node:test';
import iconv from 'iconv-lite';
import { parseContentType } from './content-type.ts';
import { sniffContent } from './sniff.ts';

const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(
    parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part))),
  );
const sniff = (body: Uint8Array, contentType?: string) => sniffContent(body, parseContentType(contentType));

const PDF = bytes('%PDF-1.7\n%', [0xe2, 0xe3, 0xcf, 0xd3], '\n1 0 obj\n<< /Type /Catalog >>\nendobj\n');
const PNG = bytes(
  [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13],
  'IHDR',
  [0, 0, 0, 1, 0, 0, 0, 1],
);
const ZIP = bytes([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0, 8, 0], 'word/document.xml');
const ELF = bytes([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0x3e, 0]);
const GZIP = bytes([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 3]);

test('the bytes win over a header that claims text: PDF labelled text/html is a PDF', () => {
  for (const contentType of ['text/html; charset=utf-8', 'text/plain', 'application/json', undefined]) {
    assert.deepEqual(
      sniff(PDF, contentType),
      { kind: 'pdf', mimeType: 'application/pdf', label: 'a PDF document' },
      contentType,
    );
  }
  // Some servers send whitespace or a BOM before the header.
  assert.equal(sniff(bytes('\r\n  ', [0xef, 0xbb, 0xbf], '%PDF-1.4\n'), 'text/html').kind, 'pdf');
});

test('PNG, ZIP, ELF and gzip labelled text/plain are an image or binary, never text', () => {
  assert.deepEqual(sniff(PNG, 'text/plain'), { kind: 'image', mimeType: 'image/png', label: 'a PNG image' });
  assert.deepEqual(sniff(ZIP, 'text/plain'), {
    kind: 'binary',
    mimeType: 'application/zip',
    label: 'a ZIP archive',
  });
  assert.deepEqual(sniff(ELF, 'text/plain'), {
    kind: 'binary',
    mimeType: 'application/x-executable',
    label: 'an ELF executable',
  });
  assert.deepEqual(sniff(GZIP, 'text/html'), {
    kind: 'binary',
    mimeType: 'application/gzip',
    label: 'gzip-compressed data',
  });
});

test('binary without a known signature is binary, naming what it was declared as', () => {
  const noise = Uint8Array.from({ length: 2000 }, (_, index) => (index * 7919) % 256);
  assert.deepEqual(sniff(noise, 'text/html'), {
    kind: 'binary',
    mimeType: 'application/octet-stream',
    label: 'binary data (declared as text/html)',
  });
  assert.deepEqual(sniff(noise), {
    kind: 'binary',
    mimeType: 'application/octet-stream',
    label: 'binary data',
  });
});

test('a few stray control characters in a text page do not make it binary', () => {
  const text = `${'An ordinary line of text in a log file.\n'.repeat(50)}\u0007bell\u0000nul`;
  assert.equal(sniff(Buffer.from(text), 'text/plain').kind, 'text');
  assert.equal(sniff(Buffer.from('\u001b[31mred\u001b[0m terminal colours'), 'text/plain').kind, 'text');
});

test('declared binary types need no sniffing', () => {
  assert.deepEqual(sniff(bytes('hello'), 'audio/mpeg'), {
    kind: 'binary',
    mimeType: 'audio/mpeg',
    label: 'binary data (audio/mpeg)',
  });
  assert.deepEqual(sniff(bytes('hello'), 'image/webp'), {
    kind: 'image',
    mimeType: 'image/webp',
    label: 'an image (image/webp)',
  });
  assert.equal(sniff(bytes('<svg xmlns="http://www.w3.org/2000/svg"></svg>'), 'image/svg+xml').kind, 'text');
});

test('octet-stream (or no type) with HTML bytes is HTML', () => {
  for (const html of [
    '<!DOCTYPE html><html><body>hi</body></html>',
    '\n\n   <html lang="en"><p>hi',
    '<!-- generated --><div>hi</div>',
    '<p>hi</p>',
    '<TITLE>Old page</TITLE>',
  ]) {
    for (const contentType of ['application/octet-stream', undefined, 'binary/octet-stream']) {
      assert.deepEqual(
        sniff(Buffer.from(html), contentType),
        { kind: 'html', mimeType: 'text/html', label: 'text/html' },
        `${contentType}: ${html}`,
      );
    }
  }
  // A UTF-8 BOM in front of the markup (read as `ï»¿` in windows-1252) hides nothing.
  assert.equal(sniff(bytes([0xef, 0xbb, 0xbf], '<html><body>x'), 'application/octet-stream').kind, 'html');
  const rss = bytes([0xef, 0xbb, 0xbf], '<?xml version="1.0"?>\n<rss version="2.0"><channel>');
  assert.equal(sniff(rss, 'application/octet-stream').kind, 'feed');
  assert.equal(sniff(rss, 'text/xml').kind, 'feed');
  // Not a tag the sniffer knows: text.
  assert.equal(sniff(Buffer.from('<custom-element>hi</custom-element>')).kind, 'text');
  assert.equal(sniff(Buffer.from('<a')).kind, 'html');
});

test('octet-stream with JSON bytes is JSON; plain text is text/plain', () => {
  assert.deepEqual(sniff(Buffer.from(' {"name": "periscope"}'), 'application/octet-stream'), {
    kind: 'json',
    mimeType: 'application/json',
    label: 'application/json',
  });
  assert.equal(sniff(Buffer.from('[1, 2, 3]')).kind, 'json');
  assert.deepEqual(sniff(Buffer.from('Just some words.'), 'application/octet-stream'), {
    kind: 'text',
    mimeType: 'text/plain',
    label: 'text/plain',
  });
  assert.equal(sniff(new Uint8Array(0)).kind, 'text');
});

test('declared text types are kept, the bytes are not re-read as HTML', () => {
  assert.deepEqual(sniff(Buffer.from('# Title\n\nSome *markdown*.'), 'text/markdown; charset=utf-8'), {
    kind: 'markdown',
    mimeType: 'text/markdown',
    label: 'text/markdown',
  });
  assert.equal(sniff(Buffer.from('<html><body>x</body></html>'), 'text/plain').kind, 'text');
  assert.equal(sniff(Buffer.from('{"broken": '), 'application/json').kind, 'json');
  assert.equal(sniff(Buffer.from('{"a":1}'), 'application/ld+json').kind, 'json');
  assert.equal(sniff(Buffer.from('console.log(1)'), 'application/javascript').kind, 'text');
});

test('UTF-16 text (BOM or declared charset) is not mistaken for binary', () => {
  const text = 'Plain text in UTF-16: the zero bytes of ASCII characters are not binary data.';
  const le = bytes([0xff, 0xfe], [...iconv.encode(text, 'utf-16le')]);
  const be = bytes([0xfe, 0xff], [...iconv.encode(text, 'utf-16be')]);
  assert.deepEqual(sniff(le, 'text/plain'), { kind: 'text', mimeType: 'text/plain', label: 'text/plain' });
  assert.equal(sniff(be, 'text/plain').kind, 'text');
  assert.equal(sniff(iconv.encode(text, 'utf-16le'), 'text/plain; charset=UTF-16LE').kind, 'text');
  assert.equal(sniff(iconv.encode(text, 'utf-16be'), 'text/plain; charset=utf-16be').kind, 'text');
  // Undeclared HTML in UTF-16 with a BOM is still found to be HTML.
  const html = bytes(
    [0xff, 0xfe],
    [...iconv.encode('<!doctype html><html><body>hi</body></html>', 'utf-16le')],
  );
  assert.equal(sniff(html, 'application/octet-stream').kind, 'html');
});
