/**
 * Hostile servers: every case must end within its limit, with the right code and the phase or limit named.
 * All servers are raw TCP servers on 127.0.0.1 (opened with allowPrivateNetwork); limits are tiny.
 */
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import * as zlib from 'node:zlib';
import { isPeriscopeError, type PeriscopeError } from '../errors.ts';
import { createLoopbackConnectGuard } from '../testing/connect-guard.ts';
import { type LoopbackServer, startRawServer } from '../testing/loopback-server.ts';
import { measureMemoryGrowth } from '../testing/memory-growth.ts';
import { createHttpClient, type HttpClientOptions } from './http-client.ts';
import type { NetworkLimits } from './types.ts';

// Phase limits a loaded machine does not reach by accident: the cases about sizes must not end in a TIMEOUT.
// The cases about timeouts set TIGHT ones. The total is far above both: a case that stops by its own limit is
// asserted to end before the total would have (which limit fired is in the error's details).
const LIMITS: NetworkLimits = {
  connectTimeoutMs: 5_000,
  headersTimeoutMs: 5_000,
  bodyTimeoutMs: 5_000,
  totalTimeoutMs: 20_000,
  maxBytes: 65_536,
  maxHeaderBytes: 16_384,
  maxRedirects: 5,
};

/** The phase limits of the cases about timeouts. */
const TIGHT = { connectTimeoutMs: 200, headersTimeoutMs: 200, bodyTimeoutMs: 200 } as const;

function client(options: HttpClientOptions = {}) {
  const guard = createLoopbackConnectGuard();
  return createHttpClient({
    ...LIMITS,
    allowPrivateNetwork: ['127.0.0.1/32'],
    ...options,
    beforeConnect: guard.beforeConnect,
  });
}

async function timed(promise: Promise<unknown>): Promise<{ error: PeriscopeError; elapsedMs: number }> {
  const started = performance.now();
  try {
    await promise;
  } catch (error) {
    assert.ok(isPeriscopeError(error), `expected a PeriscopeError, got ${String(error)}`);
    return { error, elapsedMs: performance.now() - started };
  }
  assert.fail('expected the fetch to fail');
}

/** Writes chunks from `next` with backpressure until it returns undefined or the client goes away. */
function pump(socket: Socket, next: () => Buffer | undefined, chunked: boolean): void {
  const write = () => {
    while (!socket.destroyed) {
      const chunk = next();
      if (chunk === undefined) {
        if (chunked) socket.end('0\r\n\r\n');
        else socket.end();
        return;
      }
      // Framing written around the chunk, not copied into a new buffer: the server allocates next to nothing.
      if (chunked) socket.write(`${chunk.length.toString(16)}\r\n`);
      const flushed = socket.write(chunk);
      if (chunked ? !socket.write('\r\n') : !flushed) {
        socket.once('drain', write);
        return;
      }
    }
  };
  write();
}

function head(status: string, headers: Record<string, string | number>): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return [`HTTP/1.1 ${status}`, ...lines, '', ''].join('\r\n');
}

/** Serves a buffer as a chunked body in 16 KB pieces. */
function chunksOf(body: Buffer, size = 16_384): () => Buffer | undefined {
  let offset = 0;
  return () => {
    if (offset >= body.length) return undefined;
    const chunk = body.subarray(offset, offset + size);
    offset += size;
    return chunk;
  };
}

/** Serves `total` bytes as `size`-byte copies of one chunk: no allocation in the server per request. */
function repeated(total: number, size: number, fill: string): () => Buffer | undefined {
  const chunk = Buffer.alloc(size, fill);
  let left = total;
  return () => {
    if (left <= 0) return undefined;
    const part = left >= size ? chunk : chunk.subarray(0, left);
    left -= part.length;
    return part;
  };
}

const MB = 1024 * 1024;
let gzipDeclared: Buffer; // 16 MB of zeros, ~16 KB compressed
let gzipHuge: Buffer; // 64 gzip members of 16 MB each: 1 GB decoded, ~1 MB on the wire
let brotliDeclared: Buffer; // 16 MB → a few bytes
let brotliHuge: Buffer; // 256 MB → ~50 KB
let deflateDeclared: Buffer; // zlib-wrapped (RFC 1950), 16 MB → ~16 KB
let deflateRaw: Buffer; // raw deflate (RFC 1951) as many servers send it, 16 MB → ~16 KB
let gzipThenBrotli: Buffer; // `content-encoding: gzip, br`: brotli over gzip over 16 MB of zeros
let server: LoopbackServer;
const timers = new Set<NodeJS.Timeout>();

before(async () => {
  const zeros = Buffer.alloc(16 * MB);
  gzipDeclared = zlib.gzipSync(zeros);
  gzipHuge = Buffer.concat(new Array<Buffer>(64).fill(gzipDeclared));
  brotliDeclared = zlib.brotliCompressSync(zeros, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } });
  const encoder = zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } });
  const parts: Buffer[] = [];
  encoder.on('data', (part: Buffer) => parts.push(part));
  const done = new Promise((resolve) => encoder.on('end', resolve));
  const megabyte = Buffer.alloc(MB);
  for (let index = 0; index < 256; index += 1) encoder.write(megabyte);
  encoder.end();
  await done;
  brotliHuge = Buffer.concat(parts);
  deflateDeclared = zlib.deflateSync(zeros);
  deflateRaw = zlib.deflateRawSync(zeros);
  gzipThenBrotli = zlib.brotliCompressSync(gzipDeclared);

  server = await startRawServer('127.0.0.1', (socket, requestHead) => {
    const path = /^\w+ (\S+)/.exec(requestHead)?.[1] ?? '/';
    const every = (ms: number, action: () => void) => {
      const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : action()), ms);
      timers.add(timer);
      socket.on('close', () => clearInterval(timer));
    };
    const hop = /^\/hop\/(\d+)$/.exec(path);
    if (hop) {
      socket.end(head('302 Found', { location: `/hop/${Number(hop[1]) + 1}`, 'content-length': 0 }));
      return;
    }
    switch (path) {
      case '/gzip-bomb-declared':
        socket.write(head('200 OK', { 'content-encoding': 'gzip', 'content-length': gzipDeclared.length }));
        socket.end(gzipDeclared);
        return;
      case '/gzip-bomb-small-chunked':
        socket.write(head('200 OK', { 'content-encoding': 'gzip', 'transfer-encoding': 'chunked' }));
        return pump(socket, chunksOf(gzipDeclared, 1024), true);
      case '/gzip-bomb-chunked':
        socket.write(head('200 OK', { 'content-encoding': 'gzip', 'transfer-encoding': 'chunked' }));
        return pump(socket, chunksOf(gzipHuge), true);
      case '/br-bomb-declared':
        socket.write(head('200 OK', { 'content-encoding': 'br', 'content-length': brotliDeclared.length }));
        socket.end(brotliDeclared);
        return;
      case '/br-bomb-chunked':
        socket.write(head('200 OK', { 'content-encoding': 'br', 'transfer-encoding': 'chunked' }));
        return pump(socket, chunksOf(brotliHuge), true);
      case '/deflate-bomb-declared':
        socket.write(
          head('200 OK', { 'content-encoding': 'deflate', 'content-length': deflateDeclared.length }),
        );
        socket.end(deflateDeclared);
        return;
      case '/deflate-raw-bomb-chunked':
        socket.write(head('200 OK', { 'content-encoding': 'deflate', 'transfer-encoding': 'chunked' }));
        return pump(socket, chunksOf(deflateRaw, 1024), true);
      case '/gzip-br-bomb':
        socket.write(
          head('200 OK', { 'content-encoding': 'gzip, br', 'content-length': gzipThenBrotli.length }),
        );
        socket.end(gzipThenBrotli);
        return;
      case '/endless': {
        socket.write(head('200 OK', { 'transfer-encoding': 'chunked' }));
        const chunk = Buffer.alloc(16_384, 'a');
        return pump(socket, () => chunk, true);
      }
      case '/big-page-chunked':
      case '/big-page-declared': {
        const chunked = path.endsWith('chunked');
        socket.write(
          head('200 OK', chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': 20 * MB }),
        );
        return pump(socket, repeated(20 * MB, 64 * 1024, 'p'), chunked);
      }
      case '/drip':
        socket.write(head('200 OK', { 'content-length': 100 }));
        return every(300, () => socket.write('x'));
      case '/drip-fast':
        socket.write(head('200 OK', { 'content-length': 1000 }));
        return every(50, () => socket.write('x'));
      case '/a':
        socket.end(head('302 Found', { location: '/b', 'content-length': 0 }));
        return;
      case '/b':
        socket.end(head('301 Moved Permanently', { location: '/a#again', 'content-length': 0 }));
        return;
      case '/huge-header':
        socket.end(`HTTP/1.1 200 OK\r\nx-big: ${'h'.repeat(MB)}\r\ncontent-length: 2\r\n\r\nok`);
        return;
      case '/many-headers': {
        const lines = Array.from({ length: 2000 }, (_, index) => `x-h${index}: ${'v'.repeat(20)}`).join(
          '\r\n',
        );
        socket.end(`HTTP/1.1 200 OK\r\n${lines}\r\ncontent-length: 2\r\n\r\nok`);
        return;
      }
      case '/no-headers':
        return;
      case '/close-mid-body':
        socket.write(head('200 OK', { 'content-length': 1000 }));
        socket.write('y'.repeat(100), () => setTimeout(() => socket.destroy(), 20));
        return;
      case '/close-mid-chunked':
        socket.write(head('200 OK', { 'transfer-encoding': 'chunked' }));
        socket.write('5\r\nhello\r\n', () => setTimeout(() => socket.destroy(), 20));
        return;
      case '/declared-huge':
        socket.write(head('200 OK', { 'content-length': 1_000_000_000_000 }));
        return;
      default:
        socket.end(head('404 Not Found', { 'content-length': 0 }));
    }
  });
});

after(async () => {
  for (const timer of timers) clearInterval(timer);
  await server.close();
});

describe('decompression bombs', () => {
  // [path, which count trips first]: small compressed bodies trip the decoded count; the 1 GB gzip stream may
  // first trip the wire count (one socket read can exceed 64 KB), and either way stops at once.
  const cases: Array<[string, string[]]> = [
    ['/gzip-bomb-declared', ['decoded-bytes']],
    ['/gzip-bomb-small-chunked', ['decoded-bytes']],
    ['/gzip-bomb-chunked', ['decoded-bytes', 'wire-bytes']],
    ['/br-bomb-declared', ['decoded-bytes']],
    ['/br-bomb-chunked', ['decoded-bytes']],
    ['/deflate-bomb-declared', ['decoded-bytes']],
    ['/deflate-raw-bomb-chunked', ['decoded-bytes']],
    ['/gzip-br-bomb', ['decoded-bytes']],
  ];
  for (const [path, reasons] of cases) {
    it(`${path} stops at maxBytes with bounded memory`, async () => {
      const measured = await measureMemoryGrowth(() => timed(client()(`${server.url}${path}`)));
      const { error, elapsedMs } = measured.result;
      assert.equal(error.code, 'BODY_TOO_LARGE');
      assert.equal(error.details.limit, 'maxBytes');
      assert.equal(error.details.limitValue, LIMITS.maxBytes);
      assert.ok(reasons.includes(String(error.details.reason)), String(error.details.reason));
      assert.match(error.message, /larger than 65536 bytes \(maxBytes\)/);
      assert.ok(elapsedMs < LIMITS.totalTimeoutMs, `took ${elapsedMs} ms`);
      // Unbounded decoding would need 16 MB – 1 GB here.
      assert.ok(measured.growthMb < 8, `memory grew by ${measured.growthMb.toFixed(1)} MB`);
    });
  }
});

describe('oversized bodies', () => {
  // Memory: reading to the end would hold 20 MB (the page) or grow until totalTimeoutMs (the endless body).
  it('an endless chunked body stops at maxBytes with bounded memory', async () => {
    const measured = await measureMemoryGrowth(() => timed(client()(`${server.url}/endless`)));
    const { error, elapsedMs } = measured.result;
    assert.equal(error.code, 'BODY_TOO_LARGE');
    assert.equal(error.details.limit, 'maxBytes');
    assert.equal(error.details.limitValue, LIMITS.maxBytes);
    assert.match(error.message, /larger than 65536 bytes \(maxBytes\)/);
    assert.ok(elapsedMs < LIMITS.totalTimeoutMs, `took ${elapsedMs} ms`);
    assert.ok(measured.growthMb < 8, `memory grew by ${measured.growthMb.toFixed(1)} MB`);
  });

  it('a 20 MB chunked page stops at maxBytes with bounded memory', async () => {
    const measured = await measureMemoryGrowth(() => timed(client()(`${server.url}/big-page-chunked`)));
    const { error, elapsedMs } = measured.result;
    assert.equal(error.code, 'BODY_TOO_LARGE');
    assert.equal(error.details.limit, 'maxBytes');
    assert.equal(error.details.limitValue, LIMITS.maxBytes);
    assert.ok(elapsedMs < LIMITS.totalTimeoutMs, `took ${elapsedMs} ms`);
    assert.ok(measured.growthMb < 8, `memory grew by ${measured.growthMb.toFixed(1)} MB`);
  });

  it('a declared content-length above maxBytes fails before reading', async () => {
    for (const path of ['/big-page-declared', '/declared-huge']) {
      const { error, elapsedMs } = await timed(client()(`${server.url}${path}`));
      assert.equal(error.code, 'BODY_TOO_LARGE', path);
      assert.equal(error.details.limit, 'maxBytes');
      assert.ok(typeof error.details.declaredBytes === 'number');
      assert.match(error.message, /declared a \d+-byte body, more than 65536 bytes \(maxBytes\)/);
      assert.ok(elapsedMs < LIMITS.totalTimeoutMs, `${path} took ${elapsedMs} ms`);
    }
  });

  it('a per-request maxBytes overrides the client limit', async () => {
    const response = await client()(`${server.url}/big-page-declared`, { limits: { maxBytes: 21 * MB } });
    assert.equal(response.body.length, 20 * MB);
  });

  it('a 1 MB response header is BODY_TOO_LARGE (maxHeaderBytes)', async () => {
    for (const path of ['/huge-header', '/many-headers']) {
      const { error } = await timed(client()(`${server.url}${path}`));
      assert.equal(error.code, 'BODY_TOO_LARGE', path);
      assert.equal(error.details.limit, 'maxHeaderBytes');
      assert.equal(error.details.limitValue, LIMITS.maxHeaderBytes);
      assert.match(error.message, /maxHeaderBytes/);
    }
  });
});

describe('timeouts', () => {
  it('a body dripping a byte every 300 ms hits bodyTimeoutMs', async () => {
    const { error, elapsedMs } = await timed(client(TIGHT)(`${server.url}/drip`));
    assert.equal(error.code, 'TIMEOUT');
    assert.equal(error.details.phase, 'body');
    assert.equal(error.details.limit, 'bodyTimeoutMs');
    assert.match(error.message, /timed out after 200 ms waiting for more of the body \(bodyTimeoutMs\)/);
    assert.ok(elapsedMs < LIMITS.totalTimeoutMs, `took ${elapsedMs} ms`);
  });

  it('a body that drips fast enough for bodyTimeoutMs still hits totalTimeoutMs', async () => {
    const { error, elapsedMs } = await timed(
      client({ ...TIGHT, bodyTimeoutMs: 5_000, totalTimeoutMs: 400 })(`${server.url}/drip-fast`),
    );
    assert.equal(error.code, 'TIMEOUT');
    assert.equal(error.details.phase, 'total');
    assert.match(error.message, /timed out after 400 ms in total \(totalTimeoutMs\)/);
    assert.ok(elapsedMs < 10_000, `took ${elapsedMs} ms (the whole drip takes 50 s)`);
  });

  it('headers never sent hit headersTimeoutMs', async () => {
    const { error, elapsedMs } = await timed(client(TIGHT)(`${server.url}/no-headers`));
    assert.equal(error.code, 'TIMEOUT');
    assert.equal(error.details.phase, 'headers');
    assert.equal(error.retryable, true);
    assert.match(error.message, /timed out after 200 ms waiting for headers \(headersTimeoutMs\)/);
    assert.ok(elapsedMs < LIMITS.totalTimeoutMs, `took ${elapsedMs} ms`);
  });

  it('a TLS handshake that never completes hits connectTimeoutMs', async () => {
    const { error, elapsedMs } = await timed(client(TIGHT)(`https://127.0.0.1:${server.port}/`));
    assert.equal(error.code, 'TIMEOUT');
    assert.equal(error.details.phase, 'connect');
    assert.match(error.message, /connectTimeoutMs/);
    assert.ok(elapsedMs < LIMITS.totalTimeoutMs, `took ${elapsedMs} ms`);
  });

  it('a resolver that never answers hits connectTimeoutMs', async () => {
    const lookup = () => new Promise<never>(() => {});
    const { error } = await timed(client({ ...TIGHT, lookup })('http://hanging.test/'));
    assert.equal(error.code, 'TIMEOUT');
    assert.equal(error.details.phase, 'connect');
  });

  it('aborting mid-body is ABORTED', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const { error, elapsedMs } = await timed(
      client({ bodyTimeoutMs: 5_000 })(`${server.url}/drip`, { signal: controller.signal }),
    );
    assert.equal(error.code, 'ABORTED');
    assert.ok(elapsedMs < 5_000, `took ${elapsedMs} ms, not the bodyTimeoutMs`);
  });
});

describe('broken connections', () => {
  for (const path of ['/close-mid-body', '/close-mid-chunked']) {
    it(`${path} is NETWORK and retryable`, async () => {
      const { error } = await timed(client()(`${server.url}${path}`));
      assert.equal(error.code, 'NETWORK');
      assert.equal(error.retryable, true);
      assert.match(error.message, /closed before the body was complete/);
    });
  }
});

describe('redirect abuse', () => {
  it('a 50-hop redirect chain stops at maxRedirects', async () => {
    const { error } = await timed(client()(`${server.url}/hop/1`));
    assert.equal(error.code, 'HTTP_STATUS');
    assert.equal(error.retryable, false);
    assert.equal(error.details.limit, 'maxRedirects');
    assert.equal(error.details.limitValue, 5);
    assert.match(error.message, /more than 5 redirects \(maxRedirects\)/);
    assert.equal((error.details.redirects as string[]).length, 6);
  });

  it('a redirect cycle A → B → A is reported as a loop', async () => {
    const { error } = await timed(client()(`${server.url}/a`));
    assert.equal(error.code, 'HTTP_STATUS');
    assert.equal(error.details.reason, 'redirect-loop');
    assert.match(error.message, /redirect loop/);
  });
});
