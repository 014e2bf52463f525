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

interface Waiter {
  start(): void;
  refuse(error: PeriscopeError): void;
}

/**
 * The gateway-wide bound on tool calls: `maxConcurrent` run, up to `maxQueued` more wait first in, first out. A
 * waiting call holds only its parsed input; the fetched body and the parsed DOM come when it runs.
 */
export function createCallLimiter(options: CallLimiterOptions): CallLimiter {
  const { maxConcurrent, maxQueued, onChange } = options;
  const queue = new Set<Waiter>(); // insertion order: FIFO, with O(1) removal for a client that leaves
  let running = 0;
  let closed = false;

  const changed = () => onChange?.({ running, queued: queue.size });

  function slot(): () => void {
    running += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      running -= 1;
      next();
      changed();
    };
  }

  function next(): void {
    while (running < maxConcurrent && queue.size > 0) {
      const first = queue.values().next().value as Waiter;
      queue.delete(first);
      first.start();
    }
  }

  return {
    acquire(signal) {
      if (closed) return Promise.reject(shuttingDown());
      if (signal?.aborted) return Promise.reject(aborted());
      if (running < maxConcurrent && queue.size === 0) {
        const release = slot();
        changed();
        return Promise.resolve(release);
      }
      if (queue.size >= maxQueued) return Promise.reject(overloaded(maxConcurrent, maxQueued));
      return new Promise((resolve, reject) => {
        const onAbort = () => {
          if (!queue.delete(waiter)) return;
          changed();
          reject(aborted());
        };
        const waiter: Waiter = {
          start: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve(slot());
          },
          refuse: (error) => {
            signal?.removeEventListener('abort', onAbort);
            reject(error);
          },
        };
        queue.add(waiter);
        signal?.addEventListener('abort', onAbort, { once: true });
        changed();
      });
    },
    get running() {
      return running;
    },
    get queued() {
      return queue.size;
    },
    close() {
      closed = true;
      const waiting = [...queue];
      queue.clear();
      for (const waiter of waiting) waiter.refuse(shuttingDown());
      if (waiting.length > 0) changed();
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
