import type { IncomingMessage } from 'node:http';
import { finished, type Readable, Transform, Writable } from 'node:stream';
import { isPeriscopeError, PeriscopeError } from '../errors.ts';
import { createDecoder, parseContentEncoding } from './content-decoding.ts';
import { networkError, tooLargeError } from './net-errors.ts';

export interface ReadBodyOptions {
  /** False for HEAD, 204 and 304: content-length then describes a body that is not sent. */
  hasBody: boolean;
  maxBytes: number;
  bodyTimeoutMs: number;
  /** The hop's signal: aborted (its reason is the error to throw) by timers or the caller. */
  signal: AbortSignal;
  /** Called when no byte arrived for `bodyTimeoutMs`; expected to abort `signal`. */
  onIdle: () => void;
  operation: string;
  url: string;
  /** Sees each decoded chunk as it arrives (streamed responses), before the body is complete. */
  onChunk?: ((chunk: Buffer) => void) | undefined;
}

export interface BodyResult {
  body: Buffer;
  /** True when a content coding was undone (the body no longer matches content-encoding / content-length). */
  decoded: boolean;
}

/**
 * Reads a response body within `maxBytes`, counted on the wire AND after decompression: the first byte over the
 * limit destroys the whole pipeline (socket included) at once, so a decompression bomb costs at most one
 * decoder chunk beyond the limit. A declared content-length above the limit fails before reading. Unknown or
 * too deeply stacked codings are returned undecoded (`decoded: false`).
 */
export async function readBody(response: IncomingMessage, options: ReadBodyOptions): Promise<BodyResult> {
  const { maxBytes, operation, url } = options;
  const declared = response.headers['content-length'];
  if (options.hasBody && declared !== undefined && /^\d+$/.test(declared) && Number(declared) > maxBytes) {
    response.destroy();
    throw tooLargeError(operation, url, 'maxBytes', maxBytes, Number(declared));
  }
  const codings = parseContentEncoding(response.headers['content-encoding']);
  const decoders = Array.isArray(codings) ? codings.map(createDecoder) : [];
  let decodeError: Error | undefined;
  for (const decoder of decoders) {
    decoder.once('error', (error) => {
      decodeError ??= error;
    });
  }

  let idleTimer: NodeJS.Timeout | undefined;
  const armIdle = () => {
    if (idleTimer === undefined) idleTimer = setTimeout(options.onIdle, options.bodyTimeoutMs);
    else idleTimer.refresh();
  };
  const onAbort = () => response.destroy(options.signal.reason as Error);
  options.signal.addEventListener('abort', onAbort, { once: true });
  armIdle();
  try {
    if (options.signal.aborted) throw options.signal.reason;
    if (decoders.length === 0) {
      // No coding to undo: the body is the wire bytes, read straight off the response (a pipeline of two
      // streams here cost a tenth of a millisecond a page, most of the guarded client's own time).
      const body = await readPlain(response, maxBytes, armIdle, options.onChunk, () =>
        tooLargeError(operation, url, 'maxBytes', maxBytes),
      );
      return { body, decoded: false };
    }
    return { body: await readDecoded(response, decoders, maxBytes, armIdle, options), decoded: true };
  } catch (error) {
    if (options.signal.aborted) throw options.signal.reason;
    if (isPeriscopeError(error)) throw error;
    if (decodeError !== undefined && error === decodeError) {
      throw new PeriscopeError(
        'UNSUPPORTED_CONTENT',
        `${operation} failed: the ${String(response.headers['content-encoding'])} body could not be decoded (${decodeError.message})`,
        { cause: error, details: { url, reason: 'content-decoding' } },
      );
    }
    throw networkError(operation, url, error, 'body', 0);
  } finally {
    clearTimeout(idleTimer);
    options.signal.removeEventListener('abort', onAbort);
    response.destroy();
  }
}

/**
 * An identity-coded body: each chunk counted against `maxBytes` as it arrives (the first byte over destroys the
 * response, socket included, with `tooLarge()`), the idle timer re-armed, `onChunk` told. Settles once the
 * response has ended or failed, as `pipeline` would (a premature close is an error).
 */
function readPlain(
  response: IncomingMessage,
  maxBytes: number,
  armIdle: () => void,
  onChunk: ((chunk: Buffer) => void) | undefined,
  tooLarge: () => Error,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    response.on('data', (chunk: Buffer) => {
      armIdle();
      bytes += chunk.length;
      if (bytes > maxBytes) {
        response.destroy(tooLarge());
        return;
      }
      chunks.push(chunk);
      try {
        onChunk?.(chunk);
      } catch (error) {
        // As in a pipeline's sink: the reader's failure fails the read, never the process.
        response.destroy(error as Error);
      }
    });
    finished(response, (error) => {
      if (error) reject(error);
      else resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, bytes));
    });
  });
}

/**
 * A body under content codings: wire bytes counted before the decoders, decoded bytes after them, each against
 * `maxBytes`; the first byte over either fails the whole pipeline at once.
 */
async function readDecoded(
  response: IncomingMessage,
  decoders: Transform[],
  maxBytes: number,
  armIdle: () => void,
  options: ReadBodyOptions,
): Promise<Buffer> {
  const { operation, url } = options;
  let wireBytes = 0;
  const wireCounter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      armIdle();
      wireBytes += chunk.length;
      if (wireBytes > maxBytes) callback(tooLargeError(operation, url, 'maxBytes', maxBytes));
      else callback(null, chunk);
    },
  });
  const chunks: Buffer[] = [];
  let bodyBytes = 0;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      bodyBytes += chunk.length;
      if (bodyBytes > maxBytes) {
        return callback(tooLargeError(operation, url, 'maxBytes', maxBytes, undefined, 'decoded'));
      }
      chunks.push(chunk);
      options.onChunk?.(chunk);
      callback();
    },
  });

  await chain([response, wireCounter, ...decoders], sink);
  return Buffer.concat(chunks, bodyBytes);
}

/**
 * What `pipeline` does here, without its cost on success: `pipeline` aborts an AbortController of its own on
 * every finish (to drop its listeners), and that abort builds a DOMException (an AbortError, stack trace and all)
 * per body read. Each stream is piped into the next; the first error or premature close of any of them destroys
 * them all (the response, so its socket, at once) and rejects with that error; the sink's finish resolves.
 */
function chain(sources: Readable[], sink: Writable): Promise<void> {
  const streams = [...sources, sink];
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      for (const stream of streams) stream.destroy();
      reject(error);
    };
    for (const [index, source] of sources.entries()) source.pipe(streams[index + 1] as Writable);
    for (const stream of sources) finished(stream, (error) => error && fail(error));
    finished(sink, (error) => {
      if (error) fail(error);
      else if (!settled) {
        settled = true;
        resolve();
      }
    });
  });
}
