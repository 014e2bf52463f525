import type { Store } from '../../store/store.ts';

const WINDOW_MS = 60_000;

/** Where the failures of an IP are counted (a rate window) and where its block is kept (a value that expires). */
const failuresKey = (ip: string) => `gateway:auth-failures:${ip}`;
const blockedKey = (ip: string) => `gateway:auth-blocked:${ip}`;

interface Blocked {
  /** When the IP may try again, ms since the epoch. */
  untilMs: number;
}

/**
 * The limit on failed authentications per client IP, kept in the store: every worker of `serve --workers N` and
 * every instance on one store share one count, so an IP gets `failuresPerMinute` wrong keys a minute in all, not
 * that many per process. The failures are a sliding window of a minute (store.consume); the failure that fills it
 * writes a block that expires when the oldest failure leaves the window, which every request reads (a plain read,
 * shared by the requests of one event-loop turn from the same IP).
 */
export function createAuthFailureLimit(store: Store, failuresPerMinute: number) {
  const readThisTurn = new Map<string, Promise<number>>();

  async function readBlock(ip: string): Promise<number> {
    const blocked = await store.get<Blocked>(blockedKey(ip));
    return blocked === undefined ? 0 : Math.max(0, blocked.untilMs - Date.now());
  }

  async function block(ip: string, waitMs: number): Promise<number> {
    const ttlMs = Math.max(1, Math.ceil(waitMs));
    await store.set(blockedKey(ip), { untilMs: Date.now() + ttlMs } satisfies Blocked, { ttlMs });
    readThisTurn.delete(ip);
    return ttlMs;
  }

  /** How long until the window of `ip`, full now, has room again (reads it, writes nothing). */
  async function untilRoom(ip: string): Promise<number> {
    // Amount 0 against one less than the limit is refused while the window is full, and never writes; a limit of
    // 1 has no smaller limit, and an amount of 1 is refused as well while it is full.
    const probe =
      failuresPerMinute > 1
        ? await store.consume(failuresKey(ip), 0, failuresPerMinute - 1, WINDOW_MS)
        : await store.consume(failuresKey(ip), 1, 1, WINDOW_MS);
    return probe.allowed ? 0 : probe.retryAfterMs;
  }

  return {
    /** Milliseconds until `ip` may authenticate again; 0 when it may now. */
    blockedFor(ip: string): Promise<number> {
      let read = readThisTurn.get(ip);
      if (read === undefined) {
        if (readThisTurn.size === 0) setImmediate(() => readThisTurn.clear());
        read = readBlock(ip);
        readThisTurn.set(ip, read);
      }
      return read;
    },
    /**
     * Counts one failure of `ip`. Resolves to 0 while it was within the limit (answer 401), or to the wait when the
     * window was already full (another worker's failures filled it: answer 429).
     */
    async record(ip: string): Promise<number> {
      const taken = await store.consume(failuresKey(ip), 1, failuresPerMinute, WINDOW_MS);
      if (!taken.allowed) return block(ip, taken.retryAfterMs);
      if (taken.remaining === 0) {
        const waitMs = await untilRoom(ip);
        if (waitMs > 0) await block(ip, waitMs);
      }
      return 0;
    },
  };
}

export type AuthFailureLimit = ReturnType<typeof createAuthFailureLimit>;
