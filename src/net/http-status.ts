import { PeriscopeError } from '../errors.ts';
import type { HttpResponse } from './types.ts';

/** `Retry-After` as milliseconds (seconds or an HTTP date), or undefined. */
export function parseRetryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Turn an HTTP error status into a PeriscopeError: 429 → RATE_LIMITED (with retryAfterMs),
 * 408/409/425/5xx → retryable HTTP_STATUS, other 4xx → HTTP_STATUS. 2xx and 3xx pass.
 */
export function throwForStatus(response: HttpResponse, target: { provider?: string } = {}): void {
  const { status } = response;
  if (status < 400) return;
  const retryAfterMs = parseRetryAfterMs(response.headers['retry-after']);
  const what = `GET ${response.finalUrl} failed with ${status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const details = {
    url: response.finalUrl,
    status,
    ...(target.provider ? { provider: target.provider } : {}),
  };
  if (status === 429) {
    throw new PeriscopeError('RATE_LIMITED', what, { retryAfterMs, details });
  }
  const retryable = status === 408 || status === 409 || status === 425 || status >= 500;
  throw new PeriscopeError('HTTP_STATUS', what, { retryable, retryAfterMs, details });
}
