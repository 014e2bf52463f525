import { Transform, type TransformCallback } from 'node:stream';
import * as zlib from 'node:zlib';

/** Content codings we decode. `zstd` only where the running Node has it. */
export function supportedEncodings(): string[] {
  const encodings = ['gzip', 'x-gzip', 'deflate', 'br'];
  if (typeof zlib.createZstdDecompress === 'function') encodings.push('zstd');
  return encodings;
}

/** The most codings stacked on one body that we accept (`gzip, gzip, …` is a cheap way to burn CPU). */
export const MAX_ENCODING_LAYERS = 3;

/**
 * Parses `content-encoding` into the codings to undo, in the order to undo them (last applied first).
 * Returns undefined when there is nothing to do, or 'unsupported' when a coding is unknown or too deep.
 */
export function parseContentEncoding(header: string | undefined): string[] | 'unsupported' | undefined {
  const codings = (header ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0) return undefined;
  const known = supportedEncodings();
  if (codings.length > MAX_ENCODING_LAYERS || codings.some((coding) => !known.includes(coding)))
    return 'unsupported';
  return codings.reverse();
}

// Lenient at the end of the stream, as browsers are: a truncated but otherwise valid stream yields what it has.
const ZLIB_LENIENT = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
const BROTLI_LENIENT = {
  flush: zlib.constants.BROTLI_OPERATION_FLUSH,
  finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
};

/** One decoder stream for one coding. */
export function createDecoder(coding: string): Transform {
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip(ZLIB_LENIENT);
    case 'br':
      return zlib.createBrotliDecompress(BROTLI_LENIENT);
    case 'zstd':
      return zlib.createZstdDecompress();
    default:
      return createDeflateDecoder();
  }
}

/** True when the first two bytes are a zlib header (RFC 1950): method 8, and the header checksum holds. */
export function looksLikeZlibHeader(first: number, second: number): boolean {
  return (first & 0x0f) === 8 && first >> 4 <= 7 && (first * 256 + second) % 31 === 0;
}

/**
 * `deflate` is meant to be zlib-wrapped (RFC 9110) but many servers send raw deflate: look at the first two bytes,
 * then hand everything to the matching inflater.
 */
function createDeflateDecoder(): Transform {
  let inner: zlib.Inflate | zlib.InflateRaw | undefined;
  let pending = Buffer.alloc(0);
  const decoder = new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      if (inner) {
        inner.write(chunk, () => callback());
        return;
      }
      pending = Buffer.concat([pending, chunk]);
      if (pending.length < 2) return callback();
      start(callback);
    },
    flush(callback: TransformCallback) {
      if (!inner) {
        if (pending.length === 0) return callback();
        start(() => {});
      }
      inner?.once('end', () => callback());
      inner?.end();
    },
    destroy(error, callback) {
      inner?.destroy();
      callback(error);
    },
  });
  // Backpressure: the inflater pauses while our readable side is full, and resumes when it is read.
  const baseRead = decoder._read.bind(decoder);
  decoder._read = (size: number) => {
    inner?.resume();
    baseRead(size);
  };
  const start = (callback: TransformCallback) => {
    const zlibWrapped = pending.length >= 2 && looksLikeZlibHeader(pending[0] ?? 0, pending[1] ?? 0);
    inner = zlibWrapped ? zlib.createInflate(ZLIB_LENIENT) : zlib.createInflateRaw(ZLIB_LENIENT);
    inner.on('data', (data: Buffer) => {
      if (!decoder.push(data)) inner?.pause();
    });
    inner.on('error', (error) => decoder.destroy(error));
    inner.write(pending, () => callback());
    pending = Buffer.alloc(0);
  };
  return decoder;
}
