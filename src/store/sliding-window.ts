import type { ConsumeResult } from './store.ts';

/**
 * The rate-limit window every store uses: a sliding window log kept in buckets.
 *
 * Each allowed `consume` is added to the bucket of its time (`bucketMs = ceil(windowMs / 64)`, buckets aligned to
 * multiples of `bucketMs`). A bucket counts until `bucketStart + bucketMs + windowMs`, i.e. every unit is counted
 * for at least `windowMs` after it was taken and at most `windowMs / 64` longer. So in any span of `windowMs`
 * no more than `limit` is ever allowed (no double burst at a window edge, as fixed windows allow), a key holds at
 * most 65 buckets whatever the traffic, and `retryAfterMs` is exact for the buckets: when it has passed, enough
 * of the oldest buckets have expired for the refused amount to fit. The Redis store runs the same steps in Lua.
 */
export const WINDOW_BUCKETS = 64;

export interface WindowBucket {
  startMs: number;
  amount: number;
  /** When it stops counting: `startMs + bucketMs + windowMs` for the windowMs it was taken under. */
  expiresAtMs: number;
}

export function bucketMsFor(windowMs: number): number {
  return Math.max(1, Math.ceil(windowMs / WINDOW_BUCKETS));
}

export interface WindowDecision extends ConsumeResult {
  /** The bucket to add `amount` to when allowed. */
  bucketStartMs: number;
  /** When that bucket, and so the whole key, stops counting. */
  expiresAtMs: number;
}

/** Decides one `consume` over the buckets still counting at `nowMs` (`expiresAtMs > nowMs`). */
export function decideWindow(
  live: readonly WindowBucket[],
  amount: number,
  limit: number,
  windowMs: number,
  nowMs: number,
): WindowDecision {
  const bucketMs = bucketMsFor(windowMs);
  const bucketStartMs = Math.floor(nowMs / bucketMs) * bucketMs;
  const expiresAtMs = bucketStartMs + bucketMs + windowMs;
  const used = live.reduce((sum, bucket) => sum + bucket.amount, 0);
  if (used + amount <= limit) {
    const after = used + amount;
    return {
      allowed: true,
      used: after,
      remaining: limit - after,
      limit,
      retryAfterMs: 0,
      bucketStartMs,
      expiresAtMs,
    };
  }
  const needed = used + amount - limit;
  let freed = 0;
  let retryAfterMs = windowMs;
  for (const bucket of [...live].sort((left, right) => left.expiresAtMs - right.expiresAtMs)) {
    freed += bucket.amount;
    if (freed >= needed) {
      retryAfterMs = Math.max(1, bucket.expiresAtMs - nowMs);
      break;
    }
  }
  const remaining = Math.max(0, limit - used);
  return { allowed: false, used, remaining, limit, retryAfterMs, bucketStartMs, expiresAtMs };
}
