import { PeriscopeError, type ProviderAttempt, toPeriscopeError } from '../errors.ts';
import type { HttpFetch } from '../net/types.ts';
import type { Pacer } from './pacing.ts';
import type { ProviderContext, ProviderSettings } from './types.ts';

/** One provider's part in a call, as `data.attempts` reports it. */
export type SearchAttempt = ProviderAttempt;

export interface AttemptSettings {
  id: string;
  pacer: Pacer;
  httpFetch: HttpFetch;
  settings: ProviderSettings;
  /** The caller's signal (cancellation). */
  signal: AbortSignal;
  /** Deadline for the request itself, after its turn came. */
  timeoutMs: number;
  /** Longest wait for a turn before giving up on this provider. */
  maxQueueMs: number;
}

/**
 * Run one provider call: wait for its turn, then call it with a signal that also fires at the deadline (its
 * reason a TIMEOUT error, so providers can report the timeout rather than a cancellation). A provider that ignores
 * the signal is given up on at the deadline anyway.
 */
export async function runAttempt<T>(
  attempt: AttemptSettings,
  call: (context: ProviderContext) => Promise<T>,
): Promise<{ value: T; queuedMs: number }> {
  const queuedAt = performance.now();
  const turn = await attempt.pacer.acquire(attempt.signal, attempt.maxQueueMs);
  const queuedMs = performance.now() - queuedAt;
  // One controller for the provider: aborted by the caller's signal or at the deadline (AbortSignal.any would do,
  // at the price of a WeakRef and a FinalizationRegistry entry per call).
  const controller = new AbortController();
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  // Whether anything may have reached the provider: a provider whose every request ended before its connection
  // opened (refused by policy, a failed lookup, a refused connection) gives its turn back, so a machine without
  // network is not made to wait the interval for each failure. One that fetched nothing through the context (a
  // custom provider with a client of its own) cannot be told apart from one that sent: its turn counts.
  let fetches = 0;
  let connected = false;
  const onCallerAbort = () => controller.abort(attempt.signal.reason);
  if (attempt.signal.aborted) onCallerAbort();
  else attempt.signal.addEventListener('abort', onCallerAbort, { once: true });
  try {
    const value = await new Promise<T>((resolve, reject) => {
      if (controller.signal.aborted) return reject(controller.signal.reason);
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort(timeoutError(attempt));
      }, attempt.timeoutMs);
      // The turn is told when the provider's first request has been written to the network (spacing across
      // instances counts from then: shared-pacer.ts); a request never sent counts as sent at the release.
      const fetch: HttpFetch = (url, request) => {
        fetches++;
        return attempt.httpFetch(url, {
          ...request,
          onConnected: () => {
            connected = true;
            request?.onConnected?.();
          },
          onSent: () => {
            connected = true;
            turn.sent();
            request?.onSent?.();
          },
        });
      };
      const context = { fetch, signal: controller.signal, settings: attempt.settings };
      // A provider that throws synchronously or returns a plain value is handled like one that rejects/resolves.
      Promise.resolve()
        .then(() => call(context))
        .then(resolve, reject);
    });
    return { value, queuedMs };
  } catch (error) {
    if (timedOut && !attempt.signal.aborted) throw controller.signal.reason;
    if (attempt.signal.aborted)
      throw new PeriscopeError('ABORTED', 'The call was cancelled.', { cause: error });
    throw toPeriscopeError(error);
  } finally {
    clearTimeout(timer);
    attempt.signal.removeEventListener('abort', onCallerAbort);
    turn.release({ neverSent: fetches > 0 && !connected });
  }
}

function timeoutError(attempt: AttemptSettings): PeriscopeError {
  return new PeriscopeError(
    'TIMEOUT',
    `${attempt.id} did not answer within ${attempt.timeoutMs} ms (search.timeoutMs)`,
    {
      details: {
        provider: attempt.id,
        phase: 'total',
        limit: 'search.timeoutMs',
        limitValue: attempt.timeoutMs,
      },
    },
  );
}

/**
 * What a failure said, as its attempt keeps it: whether asking again may help, and the provider's own account
 * (HTTP status, `details.reason`, its error code), so `data.attempts` and the chain's final error lose nothing.
 */
export function failureFacts(
  error: PeriscopeError,
): Pick<SearchAttempt, 'retryable' | 'retryAfterMs' | 'status' | 'reason' | 'providerCode'> {
  const { status, reason, providerCode } = error.details;
  return {
    retryable: error.retryable,
    ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
    ...(typeof status === 'number' ? { status } : {}),
    ...(typeof reason === 'string' ? { reason } : {}),
    ...(typeof providerCode === 'string' ? { providerCode } : {}),
  };
}
