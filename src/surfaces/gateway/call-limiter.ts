import { createTurnQueue } from '../../concurrency/turn-queue.ts';
import { type ErrorReason, PeriscopeError } from '../../errors.ts';

/** Why a call never ran: the queue was full, the gateway is shutting down, or its client went away while queued. */
export type RefusalReason = Extract<ErrorReason, 'overloaded' | 'shutting-down' | 'aborted'>;

export interface CallLimiterOptions {
  /** Calls running at once (`gateway.maxConcurrentCalls`). */
  maxConcurrent: number;
  /** Calls waiting for a slot at most (`gateway.maxQueuedCalls`); past it a call is refused at once. */
  maxQueued: number;
  /** After every change of the running or queued count. */
  onChange?: (counts: { running: number; queued: number }) => void;
}

export interface CallLimiter {
  /**
   * Resolves with the function that gives the slot back once the call may run. Rejects with a PeriscopeError whose
   * `details.reason` is a RefusalReason: the queue is full (RATE_LIMITED, retry after 1 s), `close()` was called
   * (ABORTED, retryable), or `signal` aborted while the call waited (ABORTED).
   */
  acquire(signal?: AbortSignal): Promise<() => void>;
  readonly running: number;
  readonly queued: number;
  /** Shutdown: refuse every queued call now and every later one; running calls keep their slots. */
  close(): void;
}

/**
 * The gateway-wide bound on tool calls: `maxConcurrent` run, up to `maxQueued` more wait first in, first out (the
 * shared turn queue, src/concurrency/turn-queue.ts). A waiting call holds only its parsed input; the fetched body
 * and the parsed DOM come when it runs.
 */
export function createCallLimiter(options: CallLimiterOptions): CallLimiter {
  const { maxConcurrent, maxQueued, onChange } = options;
  const turns = createTurnQueue({
    maxRunning: maxConcurrent,
    maxQueued,
    refuseWhenFull: () => overloaded(maxConcurrent, maxQueued),
    ...(onChange ? { onChange } : {}),
  });

  return {
    acquire(signal) {
      // A client that went away is refused with the limiter's own ABORTED (`details.reason: 'aborted'`).
      return turns.acquire({ signal }).catch((error: unknown) => {
        throw signal?.aborted && error === signal.reason ? aborted() : error;
      });
    },
    get running() {
      return turns.running;
    },
    get queued() {
      return turns.queued;
    },
    close() {
      turns.close(shuttingDown);
    },
  };
}

function overloaded(maxConcurrent: number, maxQueued: number): PeriscopeError {
  return new PeriscopeError(
    'RATE_LIMITED',
    `The gateway is at capacity (${maxConcurrent} calls running, ${maxQueued} waiting), so this call was refused; try again in a second.`,
    {
      retryAfterMs: 1000,
      details: { reason: 'overloaded', limit: 'gateway.maxQueuedCalls', limitValue: maxQueued },
    },
  );
}

function shuttingDown(): PeriscopeError {
  return new PeriscopeError(
    'ABORTED',
    'The gateway is shutting down and did not start this call; retry it on another instance.',
    { retryable: true, retryAfterMs: 1000, details: { reason: 'shutting-down' } },
  );
}

function aborted(): PeriscopeError {
  return new PeriscopeError('ABORTED', 'The call was cancelled by its client before it started.', {
    details: { reason: 'aborted' },
  });
}

/** The RefusalReason of an error from `acquire`, or undefined for anything else. */
export function refusalReason(error: unknown): RefusalReason | undefined {
  const reason = (error as PeriscopeError | undefined)?.details?.reason;
  return reason === 'overloaded' || reason === 'shutting-down' || reason === 'aborted' ? reason : undefined;
}
