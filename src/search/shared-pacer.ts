import type { Store } from '../store/store.ts';
import {
  createPacer,
  type PacedTurn,
  type Pacer,
  type PacerSettings,
  pacingAbortedError,
  pacingQueueError,
} from './pacing.ts';
import { providerAccount } from './provider-account.ts';

export interface SharedPacerSettings extends PacerSettings {
  /** The state store (opened on first use) the turns are kept in; a memory store keeps pacing in this process. */
  store: () => Promise<Store>;
  /** The turn key: the provider and the account it is used with (see pacingKey), shared by every instance. */
  key: string;
  /**
   * How long a turn may be held after its start before the store drops it, so an instance that crashed mid-request
   * does not hold a place for ever: the request's own deadline plus a margin.
   */
  leaseMs: number;
}

/**
 * How long a granted turn holds back every other until its request is reported sent: past it (a holder that
 * crashed, or whose connection took this long to open) the claim counts as sent. Long enough for a connection to a
 * distant provider to open, short enough that a crashed instance stalls its peers for a few seconds only.
 */
export const STARTING_CLAIM_MS = 5000;

/**
 * `search:<provider id>:<account>`: the account is a short digest of the key and endpoint the provider is used with
 * (as for its health, health-store.ts), so every instance using one key shares its turns, and a keyless provider
 * (DuckDuckGo) is paced as one by every instance.
 */
export function pacingKey(
  id: string,
  settings: { apiKey?: string | undefined; baseUrl?: string | undefined },
) {
  return `search:${encodeURIComponent(id)}:${providerAccount(settings)}`;
}

/**
 * A pacer shared by every process using the same SQLite file or Redis server (DESIGN §8; docs/decisions/0017): the
 * starts of all of them are at least `minIntervalMs` apart and at most `maxConcurrent` are in flight together.
 *
 * Two stages. First this process's own pacer (pacing.ts): its callers keep their arrival order, its spacing and
 * limit hold even if the store fails, and only its head callers go on to the second stage. Then a turn from the
 * store (`Store.turn`), granted only when it can start at once — one interval after the previous turn's request was
 * reported sent (`PacedTurn.sent`, when the request has been written to the network; its release counts as sent
 * if it came first), by the store's clock — and held as a lease until the request ends (or, after a crash,
 * `leaseMs`). Until that report the turn holds a starting claim that keeps every other turn back (at most
 * STARTING_CLAIM_MS), so requests leave at least one interval apart however slow an instance is between its grant
 * and its send. A caller told to wait asks again when the next start is due (behind a claim: one interval on, the
 * earliest it can be); one told that every place is taken polls every few tens of milliseconds. Across
 * instances the order is first come when due, not first in line. The give-up rule is the local pacer's: a turn not
 * in reach `maxWaitMs` after `acquire` is refused with RATE_LIMITED (`details.reason: 'queue'`), so the chain asks
 * another provider. A turn released `neverSent` before any report (its request never left) is given back, in the
 * store (`release` with `unsent`) and in this process. A store that fails (unreachable, closed) is passed over: the call goes ahead on this process's
 * pacing alone.
 */
export function createSharedPacer(settings: SharedPacerSettings): Pacer {
  const local = createPacer(settings);
  const { id, key, minIntervalMs, leaseMs, maxConcurrent } = settings;
  if (minIntervalMs === 0 && maxConcurrent === undefined) return local; // nothing to share
  const now = settings.now ?? (() => performance.now());
  const pollMs = Math.min(250, Math.max(20, Math.ceil(minIntervalMs / 4)));
  let waitingShared = 0;

  /** A lease from the store, or undefined when the store cannot pace (failing). */
  async function sharedTurn(
    store: Store,
    signal: AbortSignal,
    startedAt: number,
    deadline: number,
  ): Promise<string | undefined> {
    const reserve = {
      intervalMs: Math.ceil(minIntervalMs),
      leaseMs,
      startingMs: STARTING_CLAIM_MS,
      ...(maxConcurrent === undefined ? {} : { maxConcurrent }),
    };
    for (;;) {
      let outcome: Awaited<ReturnType<Store['turn']>>;
      try {
        outcome = await store.turn(key, { reserve });
      } catch {
        return undefined; // the store is failing: this process's pacing alone
      }
      if (outcome.outcome === 'granted') return outcome.lease;
      if (outcome.outcome === 'released' || outcome.outcome === 'sent') return undefined; // not an answer to reserve
      // `wait`: ask again when the next start is due (another instance may take it first: then wait again).
      // `busy`: a release is not announced, so ask again every pollMs.
      const retryMs = outcome.outcome === 'wait' ? outcome.waitMs : Math.min(pollMs, outcome.waitMs);
      if (now() + retryMs > deadline)
        throw pacingQueueError(
          id,
          outcome.outcome === 'wait'
            ? `the next turn shared with other instances is ${outcome.waitMs} ms away (one request every ${minIntervalMs} ms); waited ${Math.ceil(now() - startedAt)} ms, not waiting longer`
            : `${maxConcurrent} requests are in flight across instances; waited ${Math.ceil(now() - startedAt)} ms without a turn`,
          retryMs,
        );
      await pause(retryMs, signal, id);
    }
  }

  /** Never rejects: a claim or lease the store does not hear of expires anyway (STARTING_CLAIM_MS, leaseMs). */
  function tell(store: Store, step: { sent: string } | { release: string; unsent?: boolean }): Promise<void> {
    return store.turn(key, step).then(
      () => {},
      () => {},
    );
  }

  return {
    get queued() {
      return local.queued + waitingShared;
    },
    async acquire(signal, maxWaitMs) {
      const startedAt = now();
      const deadline = startedAt + maxWaitMs;
      const localTurn = await local.acquire(signal, maxWaitMs);
      let store: Store;
      try {
        store = await settings.store();
      } catch {
        return localTurn;
      }
      if (store.kind === 'memory') return localTurn; // one process: its own pacer is the whole story
      waitingShared++;
      let lease: string | undefined;
      try {
        lease = await sharedTurn(store, signal, startedAt, deadline);
      } catch (error) {
        localTurn.release();
        throw error;
      } finally {
        waitingShared--;
      }
      if (lease === undefined) return localTurn;
      const held = lease;
      let reported = false;
      let released = false;
      return {
        sent() {
          if (reported || released) return;
          reported = true;
          localTurn.sent();
          void tell(store, { sent: held });
        },
        release(options) {
          if (released) return;
          released = true;
          // The shared place first, so this process's next caller does not find it still taken. A release
          // before any report counts as sent in the store, unless the request never left: then the turn is
          // given back, in the store and here.
          const neverSent = options?.neverSent === true && !reported;
          void tell(store, neverSent ? { release: held, unsent: true } : { release: held }).then(() =>
            localTurn.release({ neverSent }),
          );
        },
      } satisfies PacedTurn;
    },
  };
}

/** Waits `ms`, or rejects with ABORTED when `signal` aborts first. */
function pause(ms: number, signal: AbortSignal, id: string): Promise<void> {
  if (signal.aborted) return Promise.reject(pacingAbortedError(id));
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(pacingAbortedError(id));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
