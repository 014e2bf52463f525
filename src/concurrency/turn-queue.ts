/**
 * Gives a turn back; calling it again does nothing. `unused`: the turn's work never began (a request that never
 * left): its start stops spacing the next one, unless another turn has started since.
 */
export type Release = ((options?: { unused?: boolean }) => void) & {
  /**
   * The turn's work has really begun only now (a request written to the network some time after its turn): when no
   * turn has started since, the next start is spaced from now instead of from the turn's start.
   */
  begun(): void;
};

export interface TurnQueueSettings {
  /** Turns running at once (a turn of weight n counts n). Default: no limit. */
  maxRunning?: number;
  /** Turns waiting at most; past it `acquire` rejects at once with `refuseWhenFull()`. Default: no limit. */
  maxQueued?: number;
  refuseWhenFull?: () => unknown;
  /** Least time between the starts of two turns. Default 0. */
  minIntervalMs?: number;
  /** After every change of the running or queued count. */
  onChange?: (counts: { running: number; queued: number }) => void;
  now?: () => number;
}

export interface TurnRequest {
  /** Aborting it while the turn waits takes the turn out of the queue; `acquire` rejects with `signal.reason`. */
  signal?: AbortSignal | undefined;
  /** What the turn counts against `maxRunning` (default 1); a weight of `maxRunning` or more runs alone. */
  weight?: number;
}

export interface TurnQueue {
  /** Resolves with the turn's `Release` once it may start: first in, first out, none overtaking the head. */
  acquire(request?: TurnRequest): Promise<Release>;
  readonly running: number;
  readonly queued: number;
  /** How long `minIntervalMs` still holds the next start back (0: it may start now). */
  readonly nextStartInMs: number;
  /** Refuse every waiting turn and every later one with `refuse()`; running turns keep theirs. */
  close(refuse: () => unknown): void;
}

interface Waiter {
  weight: number;
  start(release: Release): void;
  refuse(reason: unknown): void;
}

/**
 * The one FIFO semaphore: search pacing (src/search/pacing.ts), the gateway's call limiter
 * (src/surfaces/gateway/call-limiter.ts) and the tool runner (src/tools/tool-runner.ts) are built on it. The
 * waiting turns hold only their callbacks; a turn that leaves (abort) is removed at once.
 */
export function createTurnQueue(settings: TurnQueueSettings = {}): TurnQueue {
  const maxRunning = settings.maxRunning ?? Number.POSITIVE_INFINITY;
  const maxQueued = settings.maxQueued ?? Number.POSITIVE_INFINITY;
  const minIntervalMs = settings.minIntervalMs ?? 0;
  const now = settings.now ?? (() => performance.now());
  const waiting = new Set<Waiter>(); // insertion order: FIFO, with O(1) removal for a turn that leaves
  let running = 0;
  let lastStartMs = Number.NEGATIVE_INFINITY;
  let starts = 0;
  let timer: NodeJS.Timeout | undefined;
  let refuseClosed: (() => unknown) | undefined;

  const changed = () => settings.onChange?.({ running, queued: waiting.size });
  const nextStartInMs = () => Math.max(0, lastStartMs + minIntervalMs - now());
  const fits = (weight: number) => running + weight <= maxRunning;

  function start(weight: number): Release {
    running += weight;
    const previousStartMs = lastStartMs;
    lastStartMs = now();
    const mine = ++starts;
    let released = false;
    const release = (options?: { unused?: boolean }) => {
      if (released) return;
      released = true;
      running -= weight;
      if (options?.unused === true && starts === mine) {
        // The spacing counts from the start before this one again: a timer set for this one's may be too late.
        lastStartMs = previousStartMs;
        clearTimeout(timer);
        timer = undefined;
      }
      startWaiting();
      changed();
    };
    const begun = () => {
      // A waiter's timer set from the turn's start fires early; it then finds the wait not over and sets another.
      if (!released && starts === mine) lastStartMs = Math.max(lastStartMs, now());
    };
    return Object.assign(release, { begun });
  }

  /** Start waiting turns from the head while they fit; a spacing wait sets one timer. True if any started. */
  function startWaiting(): boolean {
    let started = false;
    while (waiting.size > 0) {
      const head = waiting.values().next().value as Waiter;
      if (!fits(head.weight)) break;
      const waitMs = nextStartInMs();
      if (waitMs > 0) {
        timer ??= setTimeout(() => {
          timer = undefined;
          if (startWaiting()) changed();
        }, Math.ceil(waitMs));
        break;
      }
      waiting.delete(head);
      head.start(start(head.weight));
      started = true;
    }
    return started;
  }

  return {
    acquire(request = {}) {
      const { signal } = request;
      const weight = Math.min(request.weight ?? 1, maxRunning);
      if (refuseClosed) return Promise.reject(refuseClosed());
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (waiting.size === 0 && fits(weight) && nextStartInMs() === 0) {
        const release = start(weight);
        changed();
        return Promise.resolve(release);
      }
      if (waiting.size >= maxQueued) {
        const refusal =
          settings.refuseWhenFull?.() ?? new RangeError(`${maxQueued} turns are waiting already`);
        return Promise.reject(refusal);
      }
      return new Promise<Release>((resolve, reject) => {
        const onAbort = () => {
          if (!waiting.delete(waiter)) return;
          startWaiting(); // a heavier head leaving may let the next start
          changed();
          reject(signal?.reason);
        };
        const waiter: Waiter = {
          weight,
          start: (release) => {
            signal?.removeEventListener('abort', onAbort);
            resolve(release);
          },
          refuse: (reason) => {
            signal?.removeEventListener('abort', onAbort);
            reject(reason);
          },
        };
        waiting.add(waiter);
        signal?.addEventListener('abort', onAbort, { once: true });
        startWaiting();
        changed();
      });
    },
    get running() {
      return running;
    },
    get queued() {
      return waiting.size;
    },
    get nextStartInMs() {
      return nextStartInMs();
    },
    close(refuse) {
      refuseClosed = refuse;
      clearTimeout(timer);
      timer = undefined;
      const refused = [...waiting];
      waiting.clear();
      for (const waiter of refused) waiter.refuse(refuse());
      if (refused.length > 0) changed();
    },
  };
}
