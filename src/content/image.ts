import { PeriscopeError } from '../errors.ts';
import type { ImageBlock } from './types.ts';

/** Images up to this size are sent as a multimodal block (`fetch.imageMaxBytes`). */
export const DEFAULT_IMAGE_MAX_BYTES = 3_000_000;
/** Longest side sent; model APIs reject larger images (Anthropic: 8 000 px), so those are described. */
export const DEFAULT_IMAGE_MAX_SIDE_PIXELS = 8_000;

export interface ImageOptions {
  maxBytes: number;
  maxSidePixels?: number;
}

export interface RenderedImage {
  /** A short description; the whole of what the model reads when the image is not sent. */
  text: string;
  image?: ImageBlock;
}

interface ImageFormat {
  name: string;
  mimeType: string;
  /** Whether the bytes start like this format. */
  matches(bytes: Uint8Array): boolean;
  /** Width and height from the header, or why they cannot be read; `partial`: only the first bytes are there. */
  size(bytes: Uint8Array, partial?: boolean): { width: number; height: number } | string;
}

const ascii = (bytes: Uint8Array, start: number, length: number) =>
  String.fromCharCode(...bytes.subarray(start, start + length));
const u16be = (bytes: Uint8Array, at: number) => (bytes[at]! << 8) | bytes[at + 1]!;
const u16le = (bytes: Uint8Array, at: number) => bytes[at]! | (bytes[at + 1]! << 8);
const u24le = (bytes: Uint8Array, at: number) => u16le(bytes, at) + bytes[at + 2]! * 0x10000;
const u32be = (bytes: Uint8Array, at: number) => u16be(bytes, at) * 0x10000 + u16be(bytes, at + 2);
const u32le = (bytes: Uint8Array, at: number) => u16le(bytes, at) + u16le(bytes, at + 2) * 0x10000;

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** PNG: the IHDR chunk comes first (width and height, 4 bytes each); the file ends with IEND. */
function pngSize(bytes: Uint8Array, partial = false) {
  if (bytes.length < 24) return 'its header (IHDR) is cut short';
  if (ascii(bytes, 12, 4) !== 'IHDR') return 'it has no IHDR header chunk';
  if (!partial && !ascii(bytes, Math.max(0, bytes.length - 1024), 1024).includes('IEND')) {
    return 'its end (IEND) is missing: the file is truncated';
  }
  return { width: u32be(bytes, 16), height: u32be(bytes, 20) };
}

/** JPEG markers with no length field: TEM, RST0–7, SOI. */
const isStandaloneMarker = (marker: number) => marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8);
/** Start-of-frame markers carry the size: C0–CF except DHT (C4), JPG (C8) and DAC (CC). */
const isStartOfFrame = (marker: number) =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

/** JPEG: walk the marker segments to the first start-of-frame (SOFn): height, then width. */
function jpegSize(bytes: Uint8Array) {
  let offset = 2;
  while (offset < bytes.length) {
    if (bytes[offset] !== 0xff) return `a segment marker is missing at byte ${offset}`;
    while (bytes[offset] === 0xff) offset += 1; // fill bytes
    const marker = bytes[offset];
    offset += 1;
    if (marker === undefined) break;
    if (isStandaloneMarker(marker)) continue;
    if (marker === 0xd9 || marker === 0xda) return 'the image data starts before any frame header (SOF)';
    if (offset + 2 > bytes.length) break;
    const segmentLength = u16be(bytes, offset);
    if (segmentLength < 2) return `a segment at byte ${offset} has an impossible length`;
    if (isStartOfFrame(marker)) {
      if (offset + 7 > bytes.length) break;
      return { width: u16be(bytes, offset + 5), height: u16be(bytes, offset + 3) };
    }
    offset += segmentLength;
  }
  return 'the file ends before its frame header (SOF)';
}

/** GIF: the logical screen descriptor follows the 6-byte signature (little-endian). */
function gifSize(bytes: Uint8Array) {
  if (bytes.length < 10) return 'its logical screen descriptor is cut short';
  return { width: u16le(bytes, 6), height: u16le(bytes, 8) };
}

/** WebP: a RIFF file whose first chunk is VP8 (lossy), VP8L (lossless) or VP8X (extended). */
function webpSize(bytes: Uint8Array, partial = false) {
  if (bytes.length < 16) return 'its RIFF header is cut short';
  if (!partial && u32le(bytes, 4) + 8 > bytes.length)
    return 'it is shorter than its RIFF header says: the file is truncated';
  const chunk = ascii(bytes, 12, 4);
  if (chunk === 'VP8 ') {
    if (bytes.length < 30) return 'its VP8 frame header is cut short';
    if (bytes[23] !== 0x9d || bytes[24] !== 0x01 || bytes[25] !== 0x2a) return 'its VP8 start code is wrong';
    return { width: u16le(bytes, 26) & 0x3fff, height: u16le(bytes, 28) & 0x3fff };
  }
  if (chunk === 'VP8L') {
    if (bytes.length < 25) return 'its VP8L header is cut short';
    if (bytes[20] !== 0x2f) return 'its VP8L signature is wrong';
    const bits = u32le(bytes, 21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') {
    if (bytes.length < 30) return 'its VP8X header is cut short';
    return { width: u24le(bytes, 24) + 1, height: u24le(bytes, 27) + 1 };
  }
  return `its first chunk (${JSON.stringify(chunk)}) is not VP8, VP8L or VP8X`;
}

const FORMATS: readonly ImageFormat[] = [
  {
    name: 'PNG',
    mimeType: 'image/png',
    matches: (bytes) => PNG_SIGNATURE.every((value, index) => bytes[index] === value),
    size: pngSize,
  },
  {
    name: 'JPEG',
    mimeType: 'image/jpeg',
    matches: (bytes) => bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff,
    size: jpegSize,
  },
  {
    name: 'GIF',
    mimeType: 'image/gif',
    matches: (bytes) => ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a',
    size: gifSize,
  },
  {
    name: 'WebP',
    mimeType: 'image/webp',
    matches: (bytes) => ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP',
    size: webpSize,
  },
];

/** Names for image types that are recognised but not passed on. */
const OTHER_TYPES: Record<string, string> = {
  'image/avif': 'AVIF',
  'image/heic': 'HEIC',
  'image/heif': 'HEIF',
  'image/tiff': 'TIFF',
  'image/x-icon': 'ICO',
  'image/vnd.microsoft.icon': 'ICO',
  'image/bmp': 'BMP',
  'image/x-ms-bmp': 'BMP',
  'image/jxl': 'JPEG XL',
  'image/jp2': 'JPEG 2000',
  'image/x-portable-pixmap': 'PPM',
  'image/vnd.adobe.photoshop': 'Photoshop (PSD)',
};

/**
 * An image response → a multimodal block (PNG, JPEG, GIF, WebP, checked by their bytes), or a description
 * when it is too large to send. Width and height are read from the header; nothing is decoded. Damaged or
 * mislabelled bytes and other image types are `UNSUPPORTED_CONTENT`.
 */
export function renderImage(bytes: Uint8Array, mimeType: string, options: ImageOptions): RenderedImage {
  const format = FORMATS.find((candidate) => candidate.matches(bytes));
  if (!format) throw unsupported(mimeType);
  const size = format.size(bytes);
  if (typeof size === 'string' || size.width === 0 || size.height === 0) {
    const reason = typeof size === 'string' ? size : 'its header gives a size of zero';
    throw new PeriscopeError('UNSUPPORTED_CONTENT', `the ${format.name} image is damaged: ${reason}`, {
      details: { mimeType: format.mimeType, reason: 'image-damaged' },
    });
  }
  const { width, height } = size;
  const picture = `${groupDigits(width)}×${groupDigits(height)} ${format.name} image`;
  if (bytes.length > options.maxBytes) {
    const [length, limit] = formatPair(bytes.length, options.maxBytes);
    return {
      text: `A ${picture} of ${length} — larger than the ${limit} limit (fetch.imageMaxBytes), so it is described, not sent.`,
    };
  }
  const what = `A ${picture} of ${formatBytes(bytes.length)}`;
  const maxSide = options.maxSidePixels ?? DEFAULT_IMAGE_MAX_SIDE_PIXELS;
  if (Math.max(width, height) > maxSide) {
    return { text: `${what} — over ${groupDigits(maxSide)} pixels on a side, so it is described, not sent.` };
  }
  const image: ImageBlock = {
    mimeType: format.mimeType,
    base64: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'),
    width,
    height,
  };
  return { text: `${what}.`, image };
}

/** The MIME type of the image the bytes start like (PNG, JPEG, GIF or WebP), or undefined. */
export function imageTypeOf(bytes: Uint8Array): string | undefined {
  return FORMATS.find((format) => format.matches(bytes))?.mimeType;
}

/** An image whose download was stopped at a byte limit: what is known of it. */
export interface OversizedImage {
  /** The first bytes of the body (none when the declared length was refused before reading). */
  head: Uint8Array;
  /** The declared Content-Type: names the image when no bytes were read. */
  mimeType: string;
  /** The whole size, when the server declared it. */
  totalBytes?: number | undefined;
  limitBytes: number;
  /** The option that sets the limit: `fetch.imageMaxBytes` or `network.maxBytes`. */
  limitName: string;
}

/**
 * An image too large to download and send, described instead: its type, its size in bytes (or "more than the
 * limit"), and its width and height when the header was among the bytes read.
 */
export function describeOversizedImage(image: OversizedImage): RenderedImage {
  const declared = FORMATS.find(
    (format) => format.mimeType === image.mimeType || aliasOf(image.mimeType) === format.mimeType,
  );
  const format =
    image.head.length > 0 ? FORMATS.find((candidate) => candidate.matches(image.head)) : declared;
  const size = format && image.head.length > 0 ? format.size(image.head, true) : undefined;
  const pixels =
    size !== undefined && typeof size !== 'string' && size.width > 0 && size.height > 0
      ? `${groupDigits(size.width)}×${groupDigits(size.height)} `
      : '';
  const name = format ? `${format.name} image` : `image (${image.mimeType})`;
  const [length, limit] =
    image.totalBytes === undefined
      ? [`more than ${formatBytes(image.limitBytes)}`, formatBytes(image.limitBytes)]
      : formatPair(image.totalBytes, image.limitBytes);
  const over = `larger than the ${limit} limit (${image.limitName})`;
  if (image.head.length === 0) {
    return {
      text: `The server declares ${/^[aeiou]/i.test(name) ? 'an' : 'a'} ${name} of ${length} — ${over}, so it was not downloaded; it is described, not sent.`,
    };
  }
  return { text: `A ${pixels}${name} of ${length} — ${over}, so it is described, not sent.` };
}

function unsupported(mimeType: string): PeriscopeError {
  const declared = FORMATS.find(
    (format) => format.mimeType === mimeType || aliasOf(mimeType) === format.mimeType,
  );
  const name = OTHER_TYPES[mimeType];
  const what = name ? `${/^[AEIOU]/.test(name) ? 'an' : 'a'} ${name} image` : 'an image';
  const message = declared
    ? `the response is declared as ${mimeType}, but its bytes are not a ${declared.name} image (damaged or mislabelled)`
    : `the response is ${what} (${mimeType}), which cannot be passed on: only PNG, JPEG, GIF and WebP images are`;
  return new PeriscopeError('UNSUPPORTED_CONTENT', message, { details: { mimeType } });
}

function aliasOf(mimeType: string): string | undefined {
  if (mimeType === 'image/jpg' || mimeType === 'image/pjpeg') return 'image/jpeg';
  if (mimeType === 'image/x-png' || mimeType === 'image/apng') return 'image/png';
  return undefined;
}

/** `4000` → `4 000` (the digit grouping used in Periscope's messages). */
function groupDigits(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
}

/** Decimal units, one decimal: `321 bytes`, `1.2 kB`, `8.2 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} byte${bytes === 1 ? '' : 's'}`;
  const [value, unit] = bytes < 1_000_000 ? [bytes / 1000, 'kB'] : [bytes / 1_000_000, 'MB'];
  return `${Number(value.toFixed(1))} ${unit}`;
}

/** Two sizes that read differently even when they round alike (`3 MB` over a `3 MB` limit would puzzle). */
function formatPair(size: number, limit: number): [string, string] {
  const pair: [string, string] = [formatBytes(size), formatBytes(limit)];
  return pair[0] === pair[1] ? [`${groupDigits(size)} bytes`, `${groupDigits(limit)} bytes`] : pair;
}
