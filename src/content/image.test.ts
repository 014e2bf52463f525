// Real images made by ImageMagick and cwebp (see __fixtures__/README.md), read by their headers.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { isPeriscopeError } from '../errors.ts';
import { parseContentType } from './content-type.ts';
import { describeOversizedImage, formatBytes, imageTypeOf, renderImage } from './image.ts';
import { renderContent } from './render-content.ts';
import { sniffContent } from './sniff.ts';

const fixture = (name: string) =>
  new Uint8Array(readFileSync(new URL(`__fixtures__/image/${name}`, import.meta.url)));
/** The media type the pipeline hands over: sniffed from the bytes, as renderContent does. */
const sniffedType = (bytes: Uint8Array, declared = 'application/octet-stream') =>
  sniffContent(bytes, parseContentType(declared)).mimeType;

const unsupported = (pattern: RegExp) => (error: unknown) => {
  assert.ok(isPeriscopeError(error), String(error));
  assert.equal(error.code, 'UNSUPPORTED_CONTENT');
  assert.match(error.message, pattern);
  return true;
};

const IMAGES = [
  { file: 'sample.png', mimeType: 'image/png', name: 'PNG', width: 37, height: 23 },
  { file: 'baseline.jpg', mimeType: 'image/jpeg', name: 'JPEG', width: 64, height: 48 }, // SOF0 after a COM segment
  { file: 'progressive.jpg', mimeType: 'image/jpeg', name: 'JPEG', width: 64, height: 48 }, // SOF2
  { file: 'sample.gif', mimeType: 'image/gif', name: 'GIF', width: 40, height: 30 },
  { file: 'lossy.webp', mimeType: 'image/webp', name: 'WebP', width: 37, height: 23 }, // VP8
  { file: 'lossless.webp', mimeType: 'image/webp', name: 'WebP', width: 37, height: 23 }, // VP8L
  { file: 'alpha.webp', mimeType: 'image/webp', name: 'WebP', width: 50, height: 20 }, // VP8X + ALPH + VP8
];

for (const expected of IMAGES) {
  test(`${expected.file}: a ${expected.width}×${expected.height} ${expected.name} block with the bytes as they came`, () => {
    const bytes = fixture(expected.file);
    const rendered = renderImage(bytes, sniffedType(bytes), { maxBytes: 3_000_000 });
    assert.deepEqual(rendered.image, {
      mimeType: expected.mimeType,
      base64: Buffer.from(bytes).toString('base64'),
      width: expected.width,
      height: expected.height,
    });
    assert.equal(
      rendered.text,
      `A ${expected.width}×${expected.height} ${expected.name} image of ${bytes.length} bytes.`,
    );
  });
}

test('the JPEG fixtures really are baseline (SOF0) and progressive (SOF2)', () => {
  const hasMarker = (bytes: Uint8Array, marker: number) =>
    bytes.some((byte, index) => byte === 0xff && bytes[index + 1] === marker);
  assert.ok(hasMarker(fixture('baseline.jpg'), 0xc0) && hasMarker(fixture('baseline.jpg'), 0xfe));
  assert.ok(hasMarker(fixture('progressive.jpg'), 0xc2) && !hasMarker(fixture('progressive.jpg'), 0xc0));
});

test('an image over the byte cap is described, not sent', () => {
  const bytes = fixture('sample.png');
  const rendered = renderImage(bytes, 'image/png', { maxBytes: 300 });
  assert.equal(rendered.image, undefined);
  assert.equal(
    rendered.text,
    'A 37×23 PNG image of 321 bytes — larger than the 300 bytes limit (fetch.imageMaxBytes), so it is described, not sent.',
  );
});

test('an image cut off at a download cap is described from the header bytes read', () => {
  const limit = { limitBytes: 3_000_000, limitName: 'fetch.imageMaxBytes' };
  // Only the first bytes of each file: no PNG IEND, a WebP shorter than its RIFF size, a JPEG cut after its SOF.
  for (const image of IMAGES) {
    const bytes = fixture(image.file);
    const head = bytes.subarray(0, Math.max(40, Math.floor(bytes.length * 0.6)));
    assert.equal(imageTypeOf(head), image.mimeType);
    const { text } = describeOversizedImage({
      head,
      mimeType: image.mimeType,
      totalBytes: 5_000_000,
      ...limit,
    });
    assert.equal(
      text,
      `A ${image.width}×${image.height} ${image.name} image of 5 MB — larger than the 3 MB limit (fetch.imageMaxBytes), so it is described, not sent.`,
      image.file,
    );
  }
  // Too few bytes for the size; no declared length.
  const short = describeOversizedImage({
    head: fixture('sample.png').subarray(0, 12),
    mimeType: 'image/png',
    ...limit,
  });
  assert.equal(
    short.text,
    'A PNG image of more than 3 MB — larger than the 3 MB limit (fetch.imageMaxBytes), so it is described, not sent.',
  );
  // Refused on its declared length: nothing read, the declared type names it.
  const declared = describeOversizedImage({
    head: new Uint8Array(),
    mimeType: 'image/jpeg',
    totalBytes: 20_000_000,
    limitBytes: 10_000_000,
    limitName: 'network.maxBytes',
  });
  assert.equal(
    declared.text,
    'The server declares a JPEG image of 20 MB — larger than the 10 MB limit (network.maxBytes), so it was not downloaded; it is described, not sent.',
  );
  assert.equal(declared.image, undefined);
  assert.equal(imageTypeOf(new TextEncoder().encode('<!doctype html>')), undefined);
});

test('an image wider than a model accepts is described, not sent', () => {
  const rendered = renderImage(fixture('lossy.webp'), 'image/webp', {
    maxBytes: 3_000_000,
    maxSidePixels: 30,
  });
  assert.equal(rendered.image, undefined);
  assert.equal(
    rendered.text,
    'A 37×23 WebP image of 134 bytes — over 30 pixels on a side, so it is described, not sent.',
  );
});

test('sizes read as people write them', () => {
  assert.equal(formatBytes(1), '1 byte');
  assert.equal(formatBytes(999), '999 bytes');
  assert.equal(formatBytes(1_234), '1.2 kB');
  assert.equal(formatBytes(3_000_000), '3 MB');
  assert.equal(formatBytes(8_200_000), '8.2 MB');
});

test('a truncated or damaged header is UNSUPPORTED_CONTENT, naming what is wrong', () => {
  assert.throws(
    () => renderImage(fixture('truncated.png'), 'image/png', { maxBytes: 1e6 }),
    unsupported(/PNG image is damaged: its header \(IHDR\) is cut short/),
  );
  assert.throws(
    () => renderImage(fixture('truncated-body.png'), 'image/png', { maxBytes: 1e6 }),
    unsupported(/PNG image is damaged: .*IEND.*truncated/),
  );
  const jpeg = fixture('baseline.jpg');
  assert.throws(
    () => renderImage(jpeg.subarray(0, 60), 'image/jpeg', { maxBytes: 1e6 }),
    unsupported(/JPEG image is damaged: the file ends before its frame header/),
  );
  const webp = fixture('lossy.webp');
  assert.throws(
    () => renderImage(webp.subarray(0, 100), 'image/webp', { maxBytes: 1e6 }),
    unsupported(/WebP image is damaged: .*truncated/),
  );
  const gif = fixture('sample.gif');
  assert.throws(
    () => renderImage(gif.subarray(0, 8), 'image/gif', { maxBytes: 1e6 }),
    unsupported(/GIF image is damaged/),
  );
});

test('bytes that do not match the declared image type are UNSUPPORTED_CONTENT', () => {
  const html = new TextEncoder().encode('<!doctype html><title>404</title><h1>Not Found</h1>');
  assert.throws(
    () => renderImage(html, 'image/png', { maxBytes: 1e6 }),
    unsupported(/declared as image\/png, but its bytes are not a PNG image/),
  );
  assert.throws(
    () => renderImage(new Uint8Array(0), 'image/jpeg', { maxBytes: 1e6 }),
    unsupported(/not a JPEG image/),
  );
});

test('other image types are UNSUPPORTED_CONTENT naming the type', () => {
  const tiff = fixture('sample.tiff');
  assert.throws(
    () => renderImage(tiff, sniffedType(tiff), { maxBytes: 1e6 }),
    unsupported(/a TIFF image \(image\/tiff\).*only PNG, JPEG, GIF and WebP/),
  );
  const icon = fixture('sample.ico');
  assert.throws(
    () => renderImage(icon, sniffedType(icon), { maxBytes: 1e6 }),
    unsupported(/an ICO image \(image\/x-icon\)/),
  );
});

test('renderContent: an image response becomes an image block; SVG stays text', async () => {
  const body = fixture('sample.gif');
  const rendered = await renderContent({
    url: 'http://example.test/a.gif',
    headers: {},
    body,
    mode: 'markdown',
  });
  assert.equal(rendered.kind, 'image');
  assert.equal(rendered.extractor, 'image');
  assert.equal(rendered.contentType, 'image/gif');
  assert.equal(rendered.image?.width, 40);
  assert.equal(rendered.text, 'A 40×30 GIF image of 301 bytes.');

  const small = await renderContent({
    url: 'http://example.test/a.gif',
    headers: { 'content-type': 'image/gif' },
    body,
    mode: 'markdown',
    limits: { imageMaxBytes: 100 },
  });
  assert.equal(small.image, undefined);
  assert.match(small.text, /larger than the 100 bytes limit/);

  const svg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"><text>hello</text></svg>');
  const text = await renderContent({
    url: 'http://example.test/a.svg',
    headers: { 'content-type': 'image/svg+xml' },
    body: svg,
    mode: 'text',
  });
  assert.notEqual(text.kind, 'image');
  assert.equal(text.image, undefined);
});
