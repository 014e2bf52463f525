import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { isPeriscopeError } from '../errors.ts';
import { type ReadBodyOptions, readBody } from './read-body.ts';

// A real server on 127.0.0.1 sending an identity-coded (chunked) body of 4 × 1 000 bytes; /gzip the same
// gzip-coded in two writes, /gzip-cut half of that before the connection is cut, /gzip-slow the first half and
// the rest a second later.
const GZIPPED = gzipSync('x'.repeat(4000));
const HALF = Math.floor(GZIPPED.length / 2);
const server = createServer((request, response) => {
  if (request.url?.startsWith('/gzip')) {
    response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
    response.write(GZIPPED.subarray(0, HALF));
    if (request.url === '/gzip-cut') setTimeout(() => response.socket?.destroy(), 20);
    else setTimeout(() => response.end(GZIPPED.subarray(HALF)), request.url === '/gzip-slow' ? 1000 : 5);
    return;
  }
  response.writeHead(200, { 'content-type': 'text/plain' });
  let sent = 0;
  const next = () => {
    if (sent++ === 4) return response.end();
    response.write('x'.repeat(1000), () => setTimeout(next, 5));
  };
  next();
});
let base = '';
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
after(() => server.close());

function get(path = ''): Promise<IncomingMessage> {
  return new Promise((resolve, reject) =>
    request(`${base}${path}`, { agent: false }, resolve).on('error', reject).end(),
  );
}

function options(extra: Partial<ReadBodyOptions> = {}): ReadBodyOptions {
  return {
    hasBody: true,
    maxBytes: 1_000_000,
    bodyTimeoutMs: 5000,
    signal: new AbortController().signal,
    onIdle: () => {},
    operation: 'reading',
    url: base,
    ...extra,
  };
}

test('an identity body is read whole, each chunk shown to onChunk as it arrives', async () => {
  const seen: number[] = [];
  const { body, decoded } = await readBody(
    await get(),
    options({ onChunk: (chunk) => seen.push(chunk.length) }),
  );
  assert.equal(body.length, 4000);
  assert.equal(decoded, false);
  assert.equal(
    seen.reduce((sum, length) => sum + length, 0),
    4000,
  );
});

test('an identity body past maxBytes fails as BODY_TOO_LARGE at the first chunk over', async () => {
  await assert.rejects(
    readBody(await get(), options({ maxBytes: 2500 })),
    (error: unknown) => isPeriscopeError(error) && error.code === 'BODY_TOO_LARGE',
  );
});

test('a reader that throws on a chunk fails the read, not the process', async () => {
  await assert.rejects(
    readBody(
      await get(),
      options({
        onChunk: () => {
          throw new Error('reader broke');
        },
      }),
    ),
    (error: unknown) => isPeriscopeError(error) && error.code === 'NETWORK',
  );
});

test('a gzip body is decoded whole, each decoded chunk shown to onChunk', async () => {
  let seen = 0;
  const { body, decoded } = await readBody(
    await get('gzip'),
    options({
      onChunk: (chunk) => {
        seen += chunk.length;
      },
    }),
  );
  assert.equal(body.toString(), 'x'.repeat(4000));
  assert.equal(decoded, true);
  assert.equal(seen, 4000);
});

test('a body read to the end aborts no AbortController (builds no AbortError), identity or decoded', async (context) => {
  const aborts = context.mock.method(AbortController.prototype, 'abort');
  assert.equal((await readBody(await get(), options())).body.length, 4000);
  assert.equal((await readBody(await get('gzip'), options())).body.length, 4000);
  assert.equal(aborts.mock.callCount(), 0);
  // The mock sees them when there are some.
  new AbortController().abort();
  assert.equal(aborts.mock.callCount(), 1);
});

test('a gzip body past maxBytes, decoded, fails as BODY_TOO_LARGE', async () => {
  await assert.rejects(
    readBody(await get('gzip'), options({ maxBytes: 3000 })),
    (error: unknown) =>
      isPeriscopeError(error) && error.code === 'BODY_TOO_LARGE' && error.details.reason === 'decoded-bytes',
  );
});

test('a gzip body cut short is NETWORK', async () => {
  await assert.rejects(
    readBody(await get('gzip-cut'), options()),
    (error: unknown) => isPeriscopeError(error) && error.code === 'NETWORK',
  );
});

test('an abort while a gzip body is read rejects with the reason and closes the connection', async () => {
  const controller = new AbortController();
  const response = await get('gzip-slow');
  const reason = new Error('stop');
  const reading = readBody(response, options({ signal: controller.signal }));
  setTimeout(() => controller.abort(reason), 50);
  await assert.rejects(reading, (error: unknown) => error === reason);
  assert.equal(response.socket?.destroyed ?? true, true);
});
