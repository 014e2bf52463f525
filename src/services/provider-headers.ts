import { parseRetryAfterMs } from '../net/http-status.ts';
import { optionalNumber } from './provider-text.ts';
import type { QuotaInfo } from './types.ts';

function headerList(headers: Record<string, string>, name: string): string[] {
  const value = headers[name];
  return value === undefined ? [] : value.split(',').map((item) => item.trim());
}

/** A reset value in ms from now: delta seconds, or epoch seconds / ms for large values (GitHub style). */
function resetToMs(value: string | undefined, nowMs: number): number | undefined {
  const number = optionalNumber(value);
  if (number === undefined || number < 0) return undefined;
  if (number > 1e12) return Math.max(0, number - nowMs);
  if (number > 1e9) return Math.max(0, number * 1000 - nowMs);
  return Math.round(number * 1000);
}

/**
 * How long to wait: `Retry-After` first, else `X-RateLimit-Reset` / `RateLimit-Reset`. Brave sends comma-separated
 * windows (`1, 1419704`: per second, per month); the window whose `Remaining` is 0 is the one that counts.
 */
export function retryAfterFromHeaders(
  headers: Record<string, string>,
  nowMs = Date.now(),
): number | undefined {
  const retryAfter = parseRetryAfterMs(headers['retry-after'], nowMs);
  if (retryAfter !== undefined) return retryAfter;
  for (const prefix of ['x-ratelimit-', 'ratelimit-']) {
    const resets = headerList(headers, `${prefix}reset`);
    if (resets.length === 0) continue;
    const remaining = headerList(headers, `${prefix}remaining`);
    const exhausted = remaining.findIndex((value) => optionalNumber(value) === 0);
    return resetToMs(resets[exhausted === -1 ? 0 : exhausted], nowMs);
  }
  return undefined;
}

/**
 * Quota from `X-RateLimit-Limit/Remaining/Reset` (the last, longest window when there are several, e.g. Brave's
 * monthly one). Undefined when the response carries none.
 */
export function quotaFromHeaders(headers: Record<string, string>, nowMs = Date.now()): QuotaInfo | undefined {
  const remaining = optionalNumber(headerList(headers, 'x-ratelimit-remaining').at(-1));
  const limit = optionalNumber(headerList(headers, 'x-ratelimit-limit').at(-1));
  const resetMs = resetToMs(headerList(headers, 'x-ratelimit-reset').at(-1), nowMs);
  if (remaining === undefined && limit === undefined) return undefined;
  return {
    ...(remaining === undefined ? {} : { remaining }),
    ...(limit === undefined ? {} : { limit }),
    ...(resetMs === undefined ? {} : { resetsAt: new Date(nowMs + resetMs).toISOString() }),
  };
}
