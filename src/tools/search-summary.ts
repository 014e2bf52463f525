import type { ErrorCode, ProviderAttempt } from '../errors.ts';

const REASONS: Partial<Record<ErrorCode, string>> = {
  RATE_LIMITED: 'rate limited',
  BLOCKED_BY_SITE: 'blocked',
  NOT_CONFIGURED: 'no key',
  TIMEOUT: 'timed out',
  NETWORK: 'unreachable',
  HTTP_STATUS: 'HTTP error',
  CREDITS_EXHAUSTED: 'out of credits',
  CONFIG_INVALID: 'misconfigured',
  BODY_TOO_LARGE: 'answer too large',
};

/** `duckduckgo skipped: blocked, brave failed: rate limited` — every attempt that did not answer. */
export function describeMisses(attempts: readonly ProviderAttempt[]): string {
  return attempts
    .filter((attempt) => attempt.outcome !== 'ok')
    .map((attempt) => {
      return `${attempt.provider} ${attempt.outcome}: ${missReason(attempt)}`;
    })
    .join(', ');
}

/** What the provider said, most specific first: `key refused`, `HTTP 422`, `rate limited`. */
function missReason(attempt: ProviderAttempt): string {
  if (attempt.reason === 'invalid-key') return 'key refused';
  // A search it cannot do (`cannot search news (no news vertical)`): the reason, not "invalid input".
  if (attempt.reason === 'unsupported-parameter' && attempt.message)
    return attempt.message.replace(/ \(.*\)$/, '');
  if (attempt.reason === 'query-too-long') return 'query too long';
  if (attempt.code === 'HTTP_STATUS' && attempt.status !== undefined) return `HTTP ${attempt.status}`;
  if (!attempt.code) return 'failed';
  return REASONS[attempt.code] ?? attempt.code.toLowerCase().replace(/_/g, ' ');
}

/** `brave → 8 results in 412 ms (duckduckgo skipped: blocked)` */
export function successLine(
  provider: string,
  count: number,
  noun: string,
  elapsedMs: number,
  attempts: readonly ProviderAttempt[],
): string {
  const misses = describeMisses(attempts);
  const plural = count === 1 ? noun : `${noun}s`;
  return `${provider} → ${count} ${plural} in ${elapsedMs} ms${misses ? ` (${misses})` : ''}`;
}

/** `search "python 3.13"` — the line shown while a search runs. */
export function searchStartLine(kind: 'search' | 'images', query: string): string {
  const shown = query.length > 80 ? `${query.slice(0, 79)}…` : query;
  return `${kind} "${shown}"`;
}
