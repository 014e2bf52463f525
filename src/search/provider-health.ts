import { type ErrorCode, messageWithoutProvider, type PeriscopeError } from '../errors.ts';
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
  /** ISO 8601: when that response came (in this process or another one sharing the store). */
  quotaAt?: string;
}

/**
 * The health as it is kept in the Store (src/search/health-store.ts), so that every process sharing the store sees
 * a cooldown, the last error and the last quota: times as ISO 8601.
 */
export interface HealthRecord {
  coolingUntil?: string | undefined;
  /** When the cooldown began: a success seen anywhere after this ends it. */
  coolingSince?: string | undefined;
  consecutiveFailures: number;
  lastError?: { code: ErrorCode; message: string; at: string } | undefined;
  lastSuccessAt?: string | undefined;
  quota?: QuotaInfo | undefined;
  quotaAt?: string | undefined;
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
  /** True when this changed what other processes should know: a cooldown or failure count cleared, or set. */
  recordSuccess(quota?: QuotaInfo): boolean;
  recordFailure(error: PeriscopeError): void;
  snapshot(): HealthSnapshot;
  /** What to keep in the store. */
  toRecord(): HealthRecord;
  /**
   * Takes in what another process (or an earlier run) recorded, field by field, newest wins: a later error and its
   * failure count, a later quota, a cooldown unless a success came after it began — and a success recorded
   * there after this process's cooldown began ends that cooldown.
   */
  adopt(record: HealthRecord): void;
}

/** Longest error message kept (they are one line; this bounds what a store entry can hold). */
const MESSAGE_MAX = 500;

export function createProviderHealth(now: () => number = Date.now): ProviderHealth {
  let coolingUntilMs = 0;
  let coolingSinceMs = Number.NEGATIVE_INFINITY;
  let consecutiveFailures = 0;
  let lastError: HealthSnapshot['lastError'];
  let lastErrorMs = Number.NEGATIVE_INFINITY;
  let lastSuccessMs = Number.NEGATIVE_INFINITY;
  let quota: QuotaInfo | undefined;
  let quotaAtMs = Number.NEGATIVE_INFINITY;

  function coolUntil(untilMs: number, sinceMs: number): void {
    if (untilMs <= coolingUntilMs) return;
    coolingUntilMs = untilMs;
    coolingSinceMs = sinceMs;
  }

  return {
    coolingForMs: () => (coolingUntilMs === 0 ? 0 : Math.max(0, coolingUntilMs - now())),
    get lastError() {
      return lastError;
    },
    recordSuccess(reported) {
      const changed = consecutiveFailures > 0 || coolingUntilMs > 0;
      consecutiveFailures = 0;
      coolingUntilMs = 0;
      lastSuccessMs = now();
      if (reported === undefined) return changed;
      quota = reported;
      quotaAtMs = lastSuccessMs;
      // A quota reported as used up, with a reset time: wait for the reset instead of failing against it.
      const resetsAtMs = reported.resetsAt === undefined ? Number.NaN : Date.parse(reported.resetsAt);
      if (reported.remaining === 0 && Number.isFinite(resetsAtMs)) {
        coolUntil(Math.min(resetsAtMs, lastSuccessMs + COOLDOWN_MAX_MS), lastSuccessMs);
        lastError = {
          code: 'RATE_LIMITED',
          message: 'quota used up',
          at: new Date(lastSuccessMs).toISOString(),
        };
        lastErrorMs = lastSuccessMs;
        return true;
      }
      return changed;
    },
    recordFailure(error) {
      consecutiveFailures++;
      lastErrorMs = now();
      lastError = {
        code: error.code,
        // The provider's health already names it (a cooldown, `status`).
        message: messageWithoutProvider(error).slice(0, MESSAGE_MAX),
        at: new Date(lastErrorMs).toISOString(),
      };
      const cooldownMs = cooldownFor(error, consecutiveFailures);
      if (cooldownMs > 0) coolUntil(lastErrorMs + Math.min(cooldownMs, COOLDOWN_MAX_MS), lastErrorMs);
    },
    snapshot() {
      const cooling = coolingUntilMs > now();
      const snapshot: HealthSnapshot = { state: cooling ? 'cooling' : 'ok', consecutiveFailures };
      if (cooling) snapshot.coolingUntil = new Date(coolingUntilMs).toISOString();
      if (lastError) snapshot.lastError = lastError;
      if (Number.isFinite(lastSuccessMs)) snapshot.lastSuccessAt = new Date(lastSuccessMs).toISOString();
      if (quota) {
        snapshot.quota = quota;
        snapshot.quotaAt = new Date(quotaAtMs).toISOString();
      }
      return snapshot;
    },
    toRecord() {
      const record: HealthRecord = { consecutiveFailures };
      if (coolingUntilMs > now()) {
        record.coolingUntil = new Date(coolingUntilMs).toISOString();
        record.coolingSince = new Date(coolingSinceMs).toISOString();
      }
      if (lastError) record.lastError = lastError;
      if (Number.isFinite(lastSuccessMs)) record.lastSuccessAt = new Date(lastSuccessMs).toISOString();
      if (quota) {
        record.quota = quota;
        record.quotaAt = new Date(quotaAtMs).toISOString();
      }
      return record;
    },
    adopt(record) {
      const theirSuccessMs = timeOf(record.lastSuccessAt);
      const theirErrorMs = timeOf(record.lastError?.at);
      const theirCoolingUntilMs = timeOf(record.coolingUntil);
      const theirCoolingSinceMs = timeOf(record.coolingSince);
      if (theirSuccessMs > coolingSinceMs) coolingUntilMs = 0;
      if (theirCoolingUntilMs > now() && theirCoolingSinceMs > lastSuccessMs)
        coolUntil(theirCoolingUntilMs, theirCoolingSinceMs);
      if (theirErrorMs > lastErrorMs && record.lastError) {
        lastError = record.lastError;
        lastErrorMs = theirErrorMs;
        consecutiveFailures = record.consecutiveFailures;
      }
      if (theirSuccessMs > lastSuccessMs) lastSuccessMs = theirSuccessMs;
      if (lastSuccessMs > lastErrorMs) consecutiveFailures = 0;
      const theirQuotaMs = timeOf(record.quotaAt);
      if (record.quota && theirQuotaMs > quotaAtMs) {
        quota = record.quota;
        quotaAtMs = theirQuotaMs;
      }
    },
  };
}

/** Milliseconds of an ISO time; -Infinity when absent, so it never counts as newer. */
function timeOf(iso: string | undefined): number {
  const ms = iso === undefined ? Number.NaN : Date.parse(iso);
  return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
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
