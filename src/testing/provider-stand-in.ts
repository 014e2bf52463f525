import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type ErrorReason, isPeriscopeError, type PeriscopeError } from '../errors.ts';
import { createHttpClient } from '../net/http-client.ts';
import type { ProviderContext, ProviderSettings, SearchProvider } from '../search/types.ts';
import { createLoopbackConnectGuard } from './connect-guard.ts';
import { type RecordedCall, startTestServer, type TestServer } from './test-server.ts';

/** What the stand-in answers: objects are sent as JSON, strings as they are. */
export interface StandInReply {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Wait this long before answering (or until the client hangs up). */
  delayMs?: number;
}

export type StandInHandler = (call: RecordedCall) => StandInReply | Promise<StandInReply>;

export function jsonReply(body: unknown, status = 200, headers: Record<string, string> = {}): StandInReply {
  return { status, headers, body };
}

/**
 * A provider's API on 127.0.0.1 (a real socket, port 0): every request is recorded in `calls` and answered by
 * `handler`, which sees the recorded call (method, URL, headers, body).
 */
export async function startProviderStandIn(handler: StandInHandler): Promise<TestServer> {
  return startTestServer(async (request, response, body) => {
    const url = new URL(request.url ?? '/', `http://${request.headers.host ?? '127.0.0.1'}`);
    const reply = await handler({ method: request.method ?? 'GET', url, headers: request.headers, body });
    if (reply.delayMs !== undefined) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, reply.delayMs);
        response.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      if (response.destroyed) return;
    }
    const isText = typeof reply.body === 'string';
    const text = reply.body === undefined ? '' : isText ? String(reply.body) : JSON.stringify(reply.body);
    response.writeHead(reply.status ?? 200, {
      'content-type': isText ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8',
      ...reply.headers,
    });
    response.end(text);
  });
}

/**
 * Runs `run` against a stand-in started for it (a reply sent to every request, or a handler), and closes the
 * stand-in afterwards, whether `run` passed or threw. Returns what `run` returns.
 */
export async function withStandIn<T>(
  reply: StandInReply | StandInHandler,
  run: (server: TestServer) => Promise<T>,
): Promise<T> {
  const server = await startProviderStandIn(typeof reply === 'function' ? reply : () => reply);
  try {
    return await run(server);
  } finally {
    await server.close();
  }
}

export interface StandInContextOptions {
  /** Small for timeout tests; default 5 000 ms. */
  headersTimeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * A ProviderContext whose fetch is the real guarded client, with a connect guard that refuses anything but
 * loopback (so a provider that ignored `baseUrl` fails instead of reaching the internet).
 */
export function standInContext(
  server: { url: string } | undefined,
  settings: ProviderSettings,
  options: StandInContextOptions = {},
): ProviderContext {
  const guard = createLoopbackConnectGuard();
  const fetch = createHttpClient({
    beforeConnect: guard.beforeConnect,
    connectTimeoutMs: 2_000,
    headersTimeoutMs: options.headersTimeoutMs ?? 5_000,
    bodyTimeoutMs: 5_000,
    totalTimeoutMs: 10_000,
  });
  return {
    fetch,
    signal: options.signal ?? new AbortController().signal,
    settings: server === undefined ? settings : { ...settings, baseUrl: server.url },
  };
}

export interface ExpectedProviderError {
  code: PeriscopeError['code'];
  retryable?: boolean;
  retryAfterMs?: number;
  status?: number;
  reason?: ErrorReason;
  /** Every string must appear in the message. */
  message?: readonly string[];
}

/** Awaits a rejection and checks it is a PeriscopeError of this shape; returns it for further checks. */
export async function expectProviderError(
  promise: Promise<unknown>,
  expected: ExpectedProviderError,
): Promise<PeriscopeError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  assert.ok(isPeriscopeError(caught), `expected a PeriscopeError, got ${String(caught)}`);
  assert.equal(caught.code, expected.code, caught.message);
  if (expected.retryable !== undefined) assert.equal(caught.retryable, expected.retryable, caught.message);
  if (expected.retryAfterMs !== undefined) assert.equal(caught.retryAfterMs, expected.retryAfterMs);
  if (expected.status !== undefined) assert.equal(caught.details.status, expected.status);
  if (expected.reason !== undefined) assert.equal(caught.details.reason, expected.reason);
  for (const text of expected.message ?? []) assert.ok(caught.message.includes(text), caught.message);
  return caught;
}

export interface ProviderFailureSuite {
  provider: SearchProvider;
  /** Names the operation in the suite title when a provider runs the suite more than once (`images`). */
  label?: string;
  /** Settings that work (an API key, extras); the suite adds `baseUrl`. */
  settings: ProviderSettings;
  /** The operation under test; default `search({ query: 'periscope', count: 3 })`. */
  call?: (context: ProviderContext) => Promise<unknown>;
  /** The provider's real invalid-key answer, and a phrase of its message expected in ours. Absent for keyless. */
  invalidKey?: { reply: StandInReply; message: string };
  /** The provider's 429 body; the suite adds the status and `Retry-After: 7`. */
  rateLimitedBody: unknown;
  /** The provider's quota-exhausted answer, where it has one. */
  quota?: { reply: StandInReply; message: string };
  /** A 5xx answer in the provider's shape; default `500 {"error":"internal"}`. */
  serverError?: StandInReply;
  /** The provider's answer when nothing matches: the call must resolve with no results (never an error). */
  empty?: StandInReply;
  /**
   * A broken body and the error it must give; default: `{"results": [` → HTTP_STATUS `malformed-json`. For
   * providers that do not speak JSON (DuckDuckGo's HTML pages).
   */
  malformed?: { reply: StandInReply; expected: ExpectedProviderError };
  /**
   * How the stand-in serves each case's reply; default: every request gets it. A provider whose operation takes
   * more than one request (DuckDuckGo images: the vqd page, then i.js) answers the others normally here.
   */
  serve?: (reply: StandInReply) => StandInHandler;
}

/**
 * The failure cases every provider must map the same way (Hono/undici-style shared suite): missing key, invalid
 * key, 429 with Retry-After, quota, 5xx, an empty answer, a malformed body, a response slower than the timeout.
 */
export function runProviderFailureSuite(suite: ProviderFailureSuite): void {
  const { provider } = suite;
  const call =
    suite.call ??
    ((context: ProviderContext) => {
      assert.ok(provider.search);
      return provider.search({ query: 'periscope', count: 3 }, context);
    });
  const apiKey = typeof suite.settings.apiKey === 'string' ? suite.settings.apiKey : undefined;

  /** One case's stand-in: its reply, served as `suite.serve` says. */
  function withCaseStandIn(reply: StandInReply, run: (server: TestServer) => Promise<void>) {
    return withStandIn(suite.serve ? suite.serve(reply) : reply, run);
  }

  describe(`${provider.id}${suite.label ? ` ${suite.label}` : ''}: failures`, () => {
    if (apiKey !== undefined) {
      test('no API key: NOT_CONFIGURED, and no request is sent', async () => {
        await withCaseStandIn(jsonReply({}), async (server) => {
          const { apiKey: _omitted, ...settings } = suite.settings;
          assert.equal(provider.isConfigured({ ...settings, baseUrl: server.url }), false);
          await expectProviderError(call(standInContext(server, settings)), { code: 'NOT_CONFIGURED' });
          assert.equal(server.calls.length, 0);
        });
      });
    }

    const { invalidKey } = suite;
    if (invalidKey !== undefined) {
      test(`invalid key (${invalidKey.reply.status}): HTTP_STATUS, not retryable, with the provider's message`, async () => {
        await withCaseStandIn(invalidKey.reply, async (server) => {
          const error = await expectProviderError(call(standInContext(server, suite.settings)), {
            code: 'HTTP_STATUS',
            retryable: false,
            status: invalidKey.reply.status ?? 200,
            reason: 'invalid-key',
            message: [provider.id, invalidKey.message],
          });
          if (apiKey !== undefined) {
            assert.ok(!JSON.stringify({ m: error.message, d: error.details }).includes(apiKey));
          }
        });
      });
    }

    test('429 with Retry-After: RATE_LIMITED with retryAfterMs', async () => {
      const reply = jsonReply(suite.rateLimitedBody, 429, { 'retry-after': '7' });
      await withCaseStandIn(reply, async (server) => {
        await expectProviderError(call(standInContext(server, suite.settings)), {
          code: 'RATE_LIMITED',
          retryable: true,
          retryAfterMs: 7_000,
          status: 429,
          reason: 'rate-limited',
        });
      });
    });

    const { quota } = suite;
    if (quota !== undefined) {
      test(`quota exhausted (${quota.reply.status}): RATE_LIMITED with reason quota`, async () => {
        await withCaseStandIn(quota.reply, async (server) => {
          await expectProviderError(call(standInContext(server, suite.settings)), {
            code: 'RATE_LIMITED',
            retryable: true,
            reason: 'quota',
            message: [quota.message],
          });
        });
      });
    }

    test('5xx: HTTP_STATUS, retryable', async () => {
      await withCaseStandIn(suite.serverError ?? jsonReply({ error: 'internal' }, 500), async (server) => {
        await expectProviderError(call(standInContext(server, suite.settings)), {
          code: 'HTTP_STATUS',
          retryable: true,
          status: suite.serverError?.status ?? 500,
        });
      });
    });

    const { empty } = suite;
    if (empty !== undefined) {
      test('an empty answer: no results, not an error', async () => {
        await withCaseStandIn(empty, async (server) => {
          const response = (await call(standInContext(server, suite.settings))) as { results?: unknown };
          assert.deepEqual(response.results, []);
          assert.ok(server.calls.length > 0);
        });
      });
    }

    const malformed = suite.malformed ?? {
      reply: { status: 200, body: '{"results": [' },
      expected: { code: 'HTTP_STATUS', reason: 'malformed-json', message: [provider.id, 'malformed JSON'] },
    };
    test(`malformed body: ${malformed.expected.code}${malformed.expected.reason ? ` (${malformed.expected.reason})` : ''}`, async () => {
      await withCaseStandIn(malformed.reply, async (server) => {
        await expectProviderError(call(standInContext(server, suite.settings)), malformed.expected);
      });
    });

    test('a response slower than the timeout: TIMEOUT', async () => {
      await withCaseStandIn({ ...jsonReply({}), delayMs: 2_000 }, async (server) => {
        const context = standInContext(server, suite.settings, { headersTimeoutMs: 100 });
        await expectProviderError(call(context), { code: 'TIMEOUT', message: [provider.id] });
      });
    });
  });
}
