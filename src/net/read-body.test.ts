import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { isPeriscopeError } from '../errors.ts';
import { type ReadBodyOptions, readBody } from './read-body.ts';

// A real server on 127.0.0.1 sending an identity-coded (chunked) body of 4 × 1 000 bytes.
const server = createServer((_request, response) => {
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

function get(): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => request(base, { agent: false }, resolve).on('error', reject).end());
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
