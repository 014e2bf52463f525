import { createTurnQueue, type Release } from '../concurrency/turn-queue.ts';
import { errorFromProvider, PeriscopeError } from '../errors.ts';

/**
 * Per-provider pacing: requests start at least `minIntervalMs` apart and at most `maxConcurrent` are in flight;
 * callers queue in arrival order. Parallel tool calls therefore wait their turn instead of tripping a free tier's
 * one-request-per-second limit.
 */
export interface Pacer {
  /**
   * Wait for a turn; resolves with the turn, to be told when its request has been sent and released when the
   * request is done. Rejects with ABORTED when `signal` aborts, and with RATE_LIMITED (`details.reason: 'queue'`)
   * when the turn would come later than `maxWaitMs` from now — the caller can then use another provider instead of
   * waiting.
   */
  acquire(signal: AbortSignal, maxWaitMs: number): Promise<PacedTurn>;
  /** Callers waiting right now. */
  readonly queued: number;
}

/** A turn given by a pacer. */
export interface PacedTurn {
  /**
   * The request has been sent (handed to the network): the next turn is spaced from this moment, not from the grant,
   * so a request slow to connect (a lookup, a loaded machine) does not bring the next one closer on the wire. Across
   * instances (shared-pacer.ts) no other turn is granted before it; in one process, one granted before it (a request
   * that took longer than an interval to connect) keeps its turn.
   */
  sent(): void;
  /**
   * The request is done (answered, failed or given up on): frees its place, and counts as `sent` if that was not.
   * With `neverSent` (nothing reached the provider: refused before connecting, a failed lookup, a refused
   * connection) and no `sent` before, the turn is given back instead: the next one is not spaced from it.
   */
  release(options?: { neverSent?: boolean }): void;
}

export interface PacerSettings {
  /** Provider id, for messages. */
  id: string;
  minIntervalMs: number;
  /** Default: no limit. */
  maxConcurrent?: number;
  now?: () => number;
}

/**
 * The shared turn queue (src/concurrency/turn-queue.ts) does the order, the limit and the spacing; pacing adds
 * only its give-up rule: a turn estimated (or found) to come later than `maxWaitMs` is refused.
 */
export function createPacer(settings: PacerSettings): Pacer {
  const { id, minIntervalMs } = settings;
  const maxConcurrent = settings.maxConcurrent ?? Number.POSITIVE_INFINITY;
  const turns = createTurnQueue({
    maxRunning: maxConcurrent,
    minIntervalMs,
    ...(settings.now ? { now: settings.now } : {}),
  });

  const queueError = (message: string, retryAfterMs: number) => pacingQueueError(id, message, retryAfterMs);

  return {
    get queued() {
      return turns.queued;
    },
    acquire(signal, maxWaitMs) {
      if (signal.aborted) return Promise.reject(pacingAbortedError(id));
      const freeNow = turns.queued === 0 && turns.running < maxConcurrent;
      // Fast path: a turn is free right now — no listener or timer.
      if (freeNow && turns.nextStartInMs === 0) return turns.acquire().then(pacedTurn);
      const earliestMs = turns.nextStartInMs + turns.queued * minIntervalMs;
      if (earliestMs > maxWaitMs) {
        return Promise.reject(
          queueError(
            `${turns.queued} calls are already queued (one request every ${minIntervalMs} ms); not waiting ${Math.ceil(earliestMs)} ms`,
            earliestMs,
          ),
        );
      }
      // The turn leaves the queue when the caller aborts or when maxWaitMs passes without it.
      const leave = new AbortController();
      const onAbort = () => leave.abort(pacingAbortedError(id));
      signal.addEventListener('abort', onAbort, { once: true });
      const deadline = Number.isFinite(maxWaitMs)
        ? setTimeout(
            () =>
              leave.abort(queueError(`waited ${maxWaitMs} ms in the queue without a turn`, minIntervalMs)),
            maxWaitMs,
          )
        : undefined;
      return turns
        .acquire({ signal: leave.signal })
        .then(pacedTurn)
        .finally(() => {
          signal.removeEventListener('abort', onAbort);
          clearTimeout(deadline);
        });
    },
  };
}

function pacedTurn(release: Release): PacedTurn {
  return { sent: release.begun, release: (options) => release({ unused: options?.neverSent === true }) };
}

/** The give-up refusal: RATE_LIMITED with `details.reason: 'queue'`, so the chain moves on to another provider. */
export function pacingQueueError(id: string, message: string, retryAfterMs: number): PeriscopeError {
  return errorFromProvider(id, 'RATE_LIMITED', message, {
    retryable: true,
    retryAfterMs: Math.max(0, Math.ceil(retryAfterMs)),
    details: { reason: 'queue' },
  });
}

export function pacingAbortedError(id: string): PeriscopeError {
  return new PeriscopeError('ABORTED', `${id}: the call was cancelled while waiting for its turn`);
}
