import { digest } from '../store/digest.ts';
import type { Store } from '../store/store.ts';

/** How long a session remembers a URL it saw, from when it saw it: one day. */
export const SEEN_URL_TTL_MS = 24 * 60 * 60 * 1000;
/** URLs one session remembers; past this, new ones are not recorded (and so not fetchable) until entries expire. */
export const SEEN_URLS_PER_SESSION = 10_000;
/** URLs one call's result adds at most (a page of links, a feed): the first ones in the text. */
export const SEEN_URLS_PER_CALL = 1_000;

/** One session's seen URLs in the store: `seen:<session>:<url digest>` keys and a `seen-count:<session>` counter. */
export interface SeenUrls {
  /** Whether `url` (already in exactUrl form) was recorded. */
  has(url: string): Promise<boolean>;
  /**
   * Records those of `urls` (exactUrl form) not yet recorded, as many as the session has room for. Returns how
   * many were left out for want of room. Each key expires SEEN_URL_TTL_MS after it was written; the counter SEEN_URL_TTL_MS after the first.
   */
  add(urls: readonly string[]): Promise<number>;
  /** Whether the session has recorded as many URLs as it may. */
  isFull(): Promise<boolean>;
}

/**
 * The seen set of one session (an agent's `sessionId`), in the shared store so that every gateway instance reads
 * the same set. One key per URL, so recording is one atomic write each and a lookup one read, on every store.
 */
export function seenUrlsOf(store: Store, agentId: string, sessionId: string): SeenUrls {
  const session = digest(`${agentId}\n${sessionId}`);
  const keyOf = (url: string) => `seen:${session}:${digest(url)}`;
  const countKey = `seen-count:${session}`;
  return {
    async has(url) {
      return (await store.get(keyOf(url))) !== undefined;
    },
    async add(urls) {
      const unique = [...new Set(urls)];
      const known = await Promise.all(unique.map(async (url) => (await store.get(keyOf(url))) !== undefined));
      const fresh = unique.filter((_, index) => !known[index]);
      if (fresh.length === 0) return 0;
      // Room is taken atomically before writing, so concurrent calls of one session never pass the bound together.
      const total = await store.increment(countKey, fresh.length, { ttlMs: SEEN_URL_TTL_MS });
      const room = Math.max(0, SEEN_URLS_PER_SESSION - (total - fresh.length));
      const kept = fresh.slice(0, room);
      await Promise.all(kept.map((url) => store.set(keyOf(url), 1, { ttlMs: SEEN_URL_TTL_MS })));
      return fresh.length - kept.length;
    },
    async isFull() {
      const total = await store.get<number>(countKey);
      return typeof total === 'number' && total >= SEEN_URLS_PER_SESSION;
    },
  };
}
