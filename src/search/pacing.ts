import { PeriscopeError } from '../errors.ts';

/**
 * Per-provider pacing: requests start at least `minIntervalMs` apart and at most `maxConcurrent` are in flight;
 * callers queue in arrival order. Parallel tool calls therefore wait their turn instead of tripping a free tier's
 * one-request-per-second limit.
 */
export interface Pacer {
  /**
   * Wait for a turn; resolves with `release`, to be called when the request is done. Rejects with ABORTED when
   * `signal` aborts, and with RATE_LIMITED (`details.reason: 'queue'`) when the turn would come later than
   * `maxWaitMs` from now — the caller can then use another provider instead of waiting.
   */
  acquire(signal: AbortSignal, maxWaitMs: number): Promise<() => void>;
  /** Callers waiting right now. */
  readonly queued: number;
}

export interface PacerSettings {
  /** Provider id, for messages. */
  id: string;
  minIntervalMs: number;
  /** Default: no limit. */
  maxConcurrent?: number;
  now?: () => number;
}

interface Waiter {
  grant: (release: () => void) => void;
  fail: (error: PeriscopeError) => void;
}

export function createPacer(settings: PacerSettings): Pacer {
  const { id, minIntervalMs } = settings;
  const maxConcurrent = settings.maxConcurrent ?? Number.POSITIVE_INFINITY;
  const now = settings.now ?? (() => performance.now());
  const queue: Waiter[] = [];
  let active = 0;
  let lastStartMs = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;

  function pump(): void {
    while (queue.length > 0 && active < maxConcurrent) {
      const waitMs = lastStartMs + minIntervalMs - now();
      if (waitMs > 0) {
        if (timer === undefined) {
          timer = setTimeout(() => {
            timer = undefined;
            pump();
          }, Math.ceil(waitMs));
        }
        return;
      }
      const waiter = queue.shift() as Waiter;
      active++;
      lastStartMs = now();
      let released = false;
      waiter.grant(() => {
        if (released) return;
        released = true;
        active--;
        pump();
      });
    }
  }

  function queueError(message: string, retryAfterMs: number): PeriscopeError {
    return new PeriscopeError('RATE_LIMITED', `${id}: ${message}`, {
      retryable: true,
      retryAfterMs: Math.max(0, Math.ceil(retryAfterMs)),
      details: { provider: id, reason: 'queue' },
    });
  }

  return {
    get queued() {
      return queue.length;
    },
    acquire(signal, maxWaitMs) {
      if (signal.aborted) return Promise.reject(abortedError(id));
      const freeNow = queue.length === 0 && active < maxConcurrent;
      if (freeNow && now() - lastStartMs >= minIntervalMs) {
        // Fast path: a turn is free right now — no queue entry, listener or timer.
        active++;
        lastStartMs = now();
        let released = false;
        return Promise.resolve(() => {
          if (released) return;
          released = true;
          active--;
          pump();
        });
      }
      const earliestMs = Math.max(0, lastStartMs + minIntervalMs - now()) + queue.length * minIntervalMs;
      if (!freeNow && earliestMs > maxWaitMs) {
        return Promise.reject(
          queueError(
            `${queue.length} calls are already queued (one request every ${minIntervalMs} ms); not waiting ${Math.ceil(earliestMs)} ms`,
            earliestMs,
          ),
        );
      }
      return new Promise((resolve, reject) => {
        let deadline: NodeJS.Timeout | undefined;
        const settle = () => {
          signal.removeEventListener('abort', onAbort);
          if (deadline !== undefined) clearTimeout(deadline);
        };
        const leave = (error: PeriscopeError) => {
          const index = queue.indexOf(waiter);
          if (index !== -1) queue.splice(index, 1);
          settle();
          reject(error);
          pump();
        };
        const onAbort = () => leave(abortedError(id));
        const waiter: Waiter = {
          grant: (release) => {
            settle();
            resolve(release);
          },
          fail: leave,
        };
        signal.addEventListener('abort', onAbort, { once: true });
        if (Number.isFinite(maxWaitMs)) {
          deadline = setTimeout(
            () => leave(queueError(`waited ${maxWaitMs} ms in the queue without a turn`, minIntervalMs)),
            maxWaitMs,
          );
        }
        queue.push(waiter);
        pump();
      });
    },
  };
}

function abortedError(id: string): PeriscopeError {
  return new PeriscopeError('ABORTED', `${id}: the call was cancelled while waiting for its turn`);
}
