import type { ErrorCode, PeriscopeError } from '../errors.ts';
import type { QuotaInfo } from './types.ts';

/** Cooldowns when the provider gives no Retry-After / X-RateLimit-Reset. */
export const DEFAULT_COOLDOWN_MS: Partial<Record<ErrorCode, number>> = {
  RATE_LIMITED: 30_000,
  BLOCKED_BY_SITE: 60_000,
  CREDITS_EXHAUSTED: 3_600_000,
};
/** A plan's quota or credits used up (`details.reason: 'quota'`) with no reset time given. */
export const QUOTA_COOLDOWN_MS = 3_600_000;
/** A refused API key will not fix itself while the process runs; still retried now and then. */
export const INVALID_KEY_COOLDOWN_MS = 600_000;
/** Other failures cool a provider down only after this many in a row, for 5 s doubling up to 5 min. */
export const FAILURES_BEFORE_COOLDOWN = 2;
const BACKOFF_BASE_MS = 5_000;
const BACKOFF_MAX_MS = 300_000;
/** No provider is benched for longer than a day, whatever its Retry-After says. */
const COOLDOWN_MAX_MS = 86_400_000;

export interface HealthSnapshot {
  state: 'ok' | 'cooling';
  /** ISO 8601, while cooling. */
  coolingUntil?: string;
  consecutiveFailures: number;
  lastError?: { code: ErrorCode; message: string; at: string };
  lastSuccessAt?: string;
  /** What the last response said about the quota. */
  quota?: QuotaInfo;
}

/**
 * One provider's health: after a failure that says when to come back (RATE_LIMITED with retryAfterMs, a quota
 * that resets at a time) it is benched until then; blocks, rate limits and exhausted credits without a time get a
 * default cooldown (an exhausted quota 1 h, a refused key 10 min); other failures bench it after two in a row with exponential backoff. Once the cooldown is over
 * the next call tries it again, and a success clears everything.
 */
export interface ProviderHealth {
  /** Milliseconds left in the cooldown, 0 when usable. */
  coolingForMs(): number;
  /** The error that benched it, while cooling. */
  readonly lastError: { code: ErrorCode; message: string } | undefined;
  recordSuccess(quota?: QuotaInfo): void;
  recordFailure(error: PeriscopeError): void;
  snapshot(): HealthSnapshot;
}

export function createProviderHealth(now: () => number = Date.now): ProviderHealth {
  let coolingUntilMs = 0;
  let consecutiveFailures = 0;
  let lastError: HealthSnapshot['lastError'];
  let lastSuccessMs: number | undefined;
  let quota: QuotaInfo | undefined;

  return {
    coolingForMs: () => Math.max(0, coolingUntilMs - now()),
    get lastError() {
      return lastError;
    },
    recordSuccess(reported) {
      consecutiveFailures = 0;
      coolingUntilMs = 0;
      lastSuccessMs = now();
      if (reported === undefined) return;
      quota = reported;
      // A quota reported as used up, with a reset time: wait for the reset instead of failing against it.
      const resetsAtMs = reported.resetsAt === undefined ? Number.NaN : Date.parse(reported.resetsAt);
      if (reported.remaining === 0 && Number.isFinite(resetsAtMs)) {
        coolingUntilMs = Math.min(resetsAtMs, now() + COOLDOWN_MAX_MS);
        lastError = { code: 'RATE_LIMITED', message: 'quota used up', at: new Date(now()).toISOString() };
      }
    },
    recordFailure(error) {
      consecutiveFailures++;
      lastError = { code: error.code, message: error.message, at: new Date(now()).toISOString() };
      const cooldownMs = cooldownFor(error, consecutiveFailures);
      if (cooldownMs > 0)
        coolingUntilMs = Math.max(coolingUntilMs, now() + Math.min(cooldownMs, COOLDOWN_MAX_MS));
    },
    snapshot() {
      const cooling = coolingUntilMs > now();
      const snapshot: HealthSnapshot = { state: cooling ? 'cooling' : 'ok', consecutiveFailures };
      if (cooling) snapshot.coolingUntil = new Date(coolingUntilMs).toISOString();
      if (lastError) snapshot.lastError = lastError;
      if (lastSuccessMs !== undefined) snapshot.lastSuccessAt = new Date(lastSuccessMs).toISOString();
      if (quota) snapshot.quota = quota;
      return snapshot;
    },
  };
}

function cooldownFor(error: PeriscopeError, consecutiveFailures: number): number {
  if (error.retryAfterMs !== undefined && error.retryAfterMs > 0) return error.retryAfterMs;
  const reason = error.details.reason;
  if (reason === 'quota') return QUOTA_COOLDOWN_MS;
  if (reason === 'invalid-key') return INVALID_KEY_COOLDOWN_MS;
  const fixed = DEFAULT_COOLDOWN_MS[error.code];
  if (fixed !== undefined) return fixed;
  if (consecutiveFailures < FAILURES_BEFORE_COOLDOWN) return 0;
  return Math.min(BACKOFF_BASE_MS * 2 ** (consecutiveFailures - FAILURES_BEFORE_COOLDOWN), BACKOFF_MAX_MS);
}
