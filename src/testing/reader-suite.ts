import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CallContext } from '../call-context.ts';
import type { FetchBackend, FetchedPage } from '../fetch/fetch-backend.ts';
import { createHttpClient } from '../net/http-client.ts';
import { createLoopbackConnectGuard } from './connect-guard.ts';
import { expectProviderError, type StandInReply, startProviderStandIn } from './provider-stand-in.ts';
import type { RecordedCall, TestServer } from './test-server.ts';

/** Each reader's `timeoutMs` in the suite, but for the timeout case. */
const TIMEOUT_MS = 5_000;

/** The page every reader is asked for in the suite. */
export const READER_TARGET = 'https://example.com/articles/rivers?lang=en';

/**
 * A CallContext on the real guarded client with the loopback connect guard: a reader that ignored its `baseUrl`
 * fails instead of reaching the internet.
 */
export function readerContext(
  options: { headersTimeoutMs?: number; signal?: AbortSignal } = {},
): CallContext {
  const guard = createLoopbackConnectGuard();
  return {
    signal: options.signal ?? new AbortController().signal,
    fetch: createHttpClient({
      beforeConnect: guard.beforeConnect,
      connectTimeoutMs: 2_000,
      headersTimeoutMs: options.headersTimeoutMs ?? 5_000,
      bodyTimeoutMs: 5_000,
      totalTimeoutMs: 10_000,
    }),
  };
}

export interface ReaderSuite {
  id: string;
  /** Builds the back-end against the stand-in (its `baseUrl`), with a key and a short timeout. */
  create(baseUrl: string, options?: { apiKey?: string | undefined; timeoutMs?: number }): FetchBackend;
  /** Whether the reader needs a key (then no key is NOT_CONFIGURED, unavailable before any request). */
  needsKey: boolean;
  /** A successful answer (a recorded body where one exists). */
  success: StandInReply;
  /** The request we must have sent for READER_TARGET, by a back-end created with `timeoutMs`. */
  assertRequest(call: RecordedCall, settings: { timeoutMs: number }): void;
  /** The page we must have made of `success`. */
  assertPage(page: FetchedPage): void;
  /** Its refused-key answer, and its rate-limit body. */
  invalidKey: StandInReply;
  rateLimitedBody: unknown;
}

/**
 * What every reader back-end must do against a stand-in speaking its API: the request it sends (checked in every case,
 * one request and no retries of its own), the page it makes,
 * and the failure mapping the chain relies on — no key (NOT_CONFIGURED, nothing sent), refused key (HTTP_STATUS,
 * not retryable, key not in the message), 429 (RATE_LIMITED with Retry-After), 5xx (retryable), a slow answer
 * (TIMEOUT within the reader's `timeoutMs`).
 */
export function runReaderSuite(suite: ReaderSuite): void {
  describe(`${suite.id} reader`, () => {
    let reply: StandInReply = suite.success;
    let server: TestServer;
    before(async () => {
      server = await startProviderStandIn(() => reply);
    });
    after(() => server.close());
    const call = (backend: FetchBackend, context = readerContext()) =>
      backend.fetchPage({ url: new URL(READER_TARGET), mode: 'markdown', toolCallId: 'call_42' }, context);
    /** Exactly one request since `before` (a reader never retries on its own: the chain decides), and it was ours. */
    const assertSentOnce = (before: number, timeoutMs = TIMEOUT_MS) => {
      assert.equal(server.calls.length - before, 1, 'requests sent');
      const sent = server.calls.at(-1);
      assert.ok(sent);
      suite.assertRequest(sent, { timeoutMs });
    };
    const create = (timeoutMs = TIMEOUT_MS) =>
      suite.create(server.url, { apiKey: 'test-key-1234', timeoutMs });

    test('success: the request sent and the page made of the answer', async () => {
      reply = suite.success;
      const before = server.calls.length;
      const page = await call(create());
      assertSentOnce(before);
      assert.equal(page.url, READER_TARGET);
      assert.ok(page.content.text.trim().length > 0);
      suite.assertPage(page);
    });

    if (suite.needsKey) {
      test('no key: unavailable (NOT_CONFIGURED) before any request', async () => {
        const before = server.calls.length;
        const backend = suite.create(server.url, { apiKey: undefined });
        assert.match(backend.unavailableReason() ?? '', /API key/);
        assert.equal(server.calls.length, before);
      });
    }

    test('refused key: HTTP_STATUS, not retryable, the key never in the message', async () => {
      reply = suite.invalidKey;
      const before = server.calls.length;
      const error = await expectProviderError(call(create()), {
        code: 'HTTP_STATUS',
        retryable: false,
        reason: 'invalid-key',
      });
      assert.ok(
        !JSON.stringify({ message: error.message, details: error.details }).includes('test-key-1234'),
      );
      assertSentOnce(before);
    });

    test('429 with Retry-After: RATE_LIMITED with retryAfterMs', async () => {
      reply = { status: 429, headers: { 'retry-after': '7' }, body: suite.rateLimitedBody };
      const before = server.calls.length;
      await expectProviderError(call(create()), {
        code: 'RATE_LIMITED',
        retryable: true,
        retryAfterMs: 7_000,
        status: 429,
      });
      assertSentOnce(before);
    });

    test('5xx: HTTP_STATUS, retryable', async () => {
      reply = { status: 503, body: { error: 'upstream unavailable' } };
      const before = server.calls.length;
      await expectProviderError(call(create()), {
        code: 'HTTP_STATUS',
        retryable: true,
        status: 503,
      });
      assertSentOnce(before);
    });

    test('an answer slower than its timeoutMs: TIMEOUT naming the reader', async () => {
      reply = { ...suite.success, delayMs: 3_000 };
      const before = server.calls.length;
      const started = performance.now();
      await expectProviderError(call(create(300)), {
        code: 'TIMEOUT',
        message: [suite.id],
      });
      // Cut at timeoutMs (300 ms), long before the answer (3 s); the margin is for a loaded CI machine.
      assert.ok(performance.now() - started < 2_500);
      assertSentOnce(before, 300);
    });
  });
}
