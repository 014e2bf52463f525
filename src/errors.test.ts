import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { test } from 'node:test';
import { isPeriscopeError, PeriscopeError, toPeriscopeError } from './errors.ts';

test('a throwable nobody understood is INTERNAL (Periscope failed), never NETWORK (the site failed)', () => {
  for (const thrown of [
    new TypeError("Cannot read properties of undefined (reading 'title')"),
    new RangeError('Invalid array length'),
    new Error('something broke'),
    'not even an Error',
    undefined,
    Object.assign(new Error('no such file'), { code: 'ENOENT' }),
    Object.assign(new Error('bad argument'), { code: 'ERR_INVALID_ARG_TYPE' }),
  ]) {
    const error = toPeriscopeError(thrown);
    assert.equal(error.code, 'INTERNAL', String(thrown));
    assert.equal(error.retryable, false, String(thrown));
    assert.equal(error.cause, thrown);
    assert.doesNotMatch(error.message, /could not be reached|network/i);
  }
  assert.match(
    toPeriscopeError(new TypeError('x is not a function')).message,
    /TypeError: x is not a function/,
  );
});

test("Node's own network failures stay NETWORK, retryable", () => {
  for (const code of [
    'ECONNRESET',
    'ECONNREFUSED',
    'EPIPE',
    'ETIMEDOUT',
    'EHOSTUNREACH',
    'ENETUNREACH',
    'EAI_AGAIN',
    'ENOTFOUND',
    'ERR_TLS_CERT_ALTNAME_INVALID',
    'CERT_HAS_EXPIRED',
    'HPE_INVALID_CONSTANT',
    'UND_ERR_SOCKET',
  ]) {
    const error = toPeriscopeError(Object.assign(new Error(`read ${code}`), { code }));
    assert.equal(error.code, 'NETWORK', code);
    assert.equal(error.details.errorCode, code);
  }
  assert.equal(
    toPeriscopeError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })).retryable,
    true,
  );
  // fetch() wraps the socket's error: `TypeError: fetch failed` with the real one as its cause.
  const wrapped = new TypeError('fetch failed', {
    cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
  });
  assert.equal(toPeriscopeError(wrapped).code, 'NETWORK');
});

test('a real reset socket is NETWORK', async () => {
  const server = createServer((socket) => socket.resetAndDestroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const failure = await new Promise<unknown>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.on('error', resolve);
    socket.on('close', () => resolve(new Error('closed without an error')));
  });
  server.close();
  const error = toPeriscopeError(failure);
  assert.equal(error.code, 'NETWORK', String(failure));
});

test('cancellation and timeouts keep their own codes; a PeriscopeError passes through', () => {
  const abort = new DOMException('The operation was aborted.', 'AbortError');
  assert.equal(toPeriscopeError(abort).code, 'ABORTED');
  const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
  assert.equal(toPeriscopeError(timeout).code, 'TIMEOUT');
  const own = new PeriscopeError('HTTP_STATUS', 'x');
  assert.equal(toPeriscopeError(own), own);
  assert.ok(isPeriscopeError(toPeriscopeError(new Error('x'))));
});

test('with PERISCOPE_DEBUG set, an internal failure is logged with its stack on stderr; without, nothing', () => {
  const script = `import(${JSON.stringify(new URL('./errors.ts', import.meta.url).href)}).then((errors) => {
    const error = errors.toPeriscopeError(new TypeError('boom in a back-end'));
    process.stdout.write(error.code);
  });`;
  const run = (env: Record<string, string>) =>
    spawnSync(process.execPath, ['--input-type=module', '-e', script], { env, encoding: 'utf8' });
  const debugging = run({ PERISCOPE_DEBUG: '1' });
  assert.equal(debugging.stdout, 'INTERNAL', debugging.stderr);
  assert.match(debugging.stderr, /internal failure.*TypeError: boom in a back-end\n\s+at /s);
  const quiet = run({});
  assert.equal(quiet.stdout, 'INTERNAL', quiet.stderr);
  assert.equal(quiet.stderr, '');
});
