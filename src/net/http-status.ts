import { errorFromProvider, PeriscopeError } from '../errors.ts';
import type { HttpResponse } from './types.ts';
import { redactUrl } from './url-policy.ts';

export interface ThrowForStatusOptions {
  /** Provider or back-end id, named in the message and details. */
  provider?: string;
  /** Request method for the message; default GET. */
  method?: string;
  /** Characters of the response body kept in `details.body` (default 300; 0 to keep none). */
  bodyChars?: number;
}

/** Statuses worth retrying (vercel/ai's rule): 408, 409, 425, 429 and every 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 425 || status === 429 || status >= 500;
}

/**
 * `Retry-After` in ms: delta-seconds or an HTTP date. Undefined when absent or unreadable; never negative.
 */
export function parseRetryAfterMs(value: string | undefined, nowMs = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+(?:\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/**
 * Throws for an error status (≥ 400; 2xx and unfollowed 3xx pass): 429 → RATE_LIMITED with `retryAfterMs`,
 * anything else → HTTP_STATUS, retryable for 408/409/425/429/5xx. The message names method, URL (redacted) and
 * status: `brave: GET https://api.search.brave.com/… failed with 503 Service Unavailable`.
 */
export function throwForStatus(response: HttpResponse, options: ThrowForStatusOptions = {}): void {
  if (response.status < 400) return;
  const url = redactUrl(response.finalUrl);
  const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const message = `${options.method ?? 'GET'} ${url} failed with ${status}`;
  const bodyChars = options.bodyChars ?? 300;
  const body =
    bodyChars > 0
      ? Buffer.from(response.body)
          .toString('utf8', 0, bodyChars * 4)
          .slice(0, bodyChars)
      : '';
  const details = { url, status: response.status, ...(body ? { body } : {}) };
  const retryAfterMs = parseRetryAfterMs(response.headers['retry-after']);
  const code = response.status === 429 ? 'RATE_LIMITED' : 'HTTP_STATUS';
  const errorOptions = { retryable: isRetryableStatus(response.status), retryAfterMs, details };
  // With a provider, the message names it and details.provider holds it (errorFromProvider).
  throw options.provider
    ? errorFromProvider(options.provider, code, message, errorOptions)
    : new PeriscopeError(code, message, errorOptions);
}
