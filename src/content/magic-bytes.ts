/** What the first bytes of a body say it is, regardless of its Content-Type header. */
export interface Signature {
  /** Content kind the handler table is keyed by. */
  kind: 'pdf' | 'image' | 'binary';
  mimeType: string;
  /** Human name used in error messages, e.g. `a PNG image`. */
  label: string;
}

interface SignatureRule extends Signature {
  offset: number;
  /** Byte values; `-1` matches any byte. */
  bytes: readonly number[];
}

const ascii = (text: string): number[] => [...text].map((character) => character.charCodeAt(0));

function rule(kind: Signature['kind'], mimeType: string, label: string, bytes: number[], offset = 0) {
  return { kind, mimeType, label, bytes, offset } satisfies SignatureRule;
}

const SIGNATURES: readonly SignatureRule[] = [
  rule('pdf', 'application/pdf', 'a PDF document', ascii('%PDF-')),
  rule('image', 'image/png', 'a PNG image', [0x89, ...ascii('PNG'), 0x0d, 0x0a, 0x1a, 0x0a]),
  rule('image', 'image/jpeg', 'a JPEG image', [0xff, 0xd8, 0xff]),
  rule('image', 'image/gif', 'a GIF image', ascii('GIF87a')),
  rule('image', 'image/gif', 'a GIF image', ascii('GIF89a')),
  rule('image', 'image/webp', 'a WebP image', [...ascii('RIFF'), -1, -1, -1, -1, ...ascii('WEBPVP')]),
  rule('image', 'image/avif', 'an AVIF image', ascii('ftypavif'), 4),
  rule('image', 'image/heic', 'a HEIC image', ascii('ftypheic'), 4),
  rule('image', 'image/heic', 'a HEIC image', ascii('ftypmif1'), 4),
  rule('image', 'image/x-icon', 'an icon image', [0x00, 0x00, 0x01, 0x00]),
  rule('image', 'image/tiff', 'a TIFF image', [...ascii('II'), 0x2a, 0x00]),
  rule('image', 'image/tiff', 'a TIFF image', [...ascii('MM'), 0x00, 0x2a]),
  rule('binary', 'application/zip', 'a ZIP archive', [...ascii('PK'), 0x03, 0x04]),
  rule('binary', 'application/gzip', 'gzip-compressed data', [0x1f, 0x8b, 0x08]),
  rule('binary', 'application/x-bzip2', 'bzip2-compressed data', [...ascii('BZh'), -1, 0x31, 0x41, 0x59]),
  rule('binary', 'application/x-xz', 'xz-compressed data', [0xfd, ...ascii('7zXZ'), 0x00]),
  rule('binary', 'application/zstd', 'zstd-compressed data', [0x28, 0xb5, 0x2f, 0xfd]),
  rule('binary', 'application/x-7z-compressed', 'a 7-Zip archive', [...ascii('7z'), 0xbc, 0xaf, 0x27, 0x1c]),
  rule('binary', 'application/vnd.rar', 'a RAR archive', [...ascii('Rar!'), 0x1a, 0x07]),
  rule('binary', 'application/x-executable', 'an ELF executable', [0x7f, ...ascii('ELF')]),
  rule('binary', 'application/x-mach-binary', 'a Mach-O executable', [0xcf, 0xfa, 0xed, 0xfe]),
  rule('binary', 'application/x-msdownload', 'a Windows executable', [...ascii('MZ'), -1, 0x00]),
  rule('binary', 'application/wasm', 'a WebAssembly module', [0x00, ...ascii('asm')]),
  rule('binary', 'application/vnd.sqlite3', 'an SQLite database', [...ascii('SQLite format 3'), 0x00]),
  rule('binary', 'font/woff', 'a WOFF font', ascii('wOFF')),
  rule('binary', 'font/woff2', 'a WOFF2 font', ascii('wOF2')),
  rule('binary', 'audio/ogg', 'an Ogg media file', [...ascii('OggS'), 0x00]),
  rule('binary', 'audio/flac', 'a FLAC audio file', [...ascii('fLaC'), 0x00]),
  rule('binary', 'audio/mpeg', 'an MP3 audio file', [...ascii('ID3'), -1, 0x00]),
  rule('binary', 'video/webm', 'a WebM/Matroska video', [0x1a, 0x45, 0xdf, 0xa3]),
  rule('binary', 'video/mp4', 'an MP4 video', ascii('ftyp'), 4),
];

function matches(bytes: Uint8Array, signature: SignatureRule): boolean {
  if (bytes.length < signature.offset + signature.bytes.length) return false;
  return signature.bytes.every((value, index) => value === -1 || bytes[signature.offset + index] === value);
}

/** The known binary format the body starts with, if any. */
export function matchSignature(bytes: Uint8Array): Signature | undefined {
  const found = SIGNATURES.find((signature) => matches(bytes, signature));
  if (found) return { kind: found.kind, mimeType: found.mimeType, label: found.label };
  return startsWithPdfAfterPadding(bytes)
    ? { kind: 'pdf', mimeType: 'application/pdf', label: 'a PDF document' }
    : undefined;
}

const PDF_MARKER = ascii('%PDF-');
const PADDING = new Set([0x09, 0x0a, 0x0c, 0x0d, 0x20, 0xef, 0xbb, 0xbf]);

/** Some servers prepend whitespace or a BOM to PDF bodies; PDF readers accept them. */
function startsWithPdfAfterPadding(bytes: Uint8Array): boolean {
  let start = 0;
  while (start < 64 && PADDING.has(bytes[start] ?? -1)) start += 1;
  return PDF_MARKER.every((value, offset) => bytes[start + offset] === value);
}

const SAMPLE_BYTES = 4096;

/**
 * Whether the start of the body looks like binary data rather than text: more than 1% of the first
 * 4 KiB are control bytes that text never uses (the WHATWG "binary data bytes": everything below 0x20
 * except tab, LF, FF, CR and ESC). A few stray control characters in a text page are tolerated.
 */
export function looksBinary(bytes: Uint8Array): boolean {
  const length = Math.min(bytes.length, SAMPLE_BYTES);
  let controlBytes = 0;
  for (let index = 0; index < length; index += 1) {
    const byte = bytes[index]!;
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0c && byte !== 0x0d && byte !== 0x1b) {
      controlBytes += 1;
    }
  }
  return controlBytes > length / 100;
}
