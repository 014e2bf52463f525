import { type ErrorCode, PeriscopeError } from '../errors.ts';
import type { LedgerEntryInput, LedgerOptions, SetOptions, StoreKind } from './store.ts';

/** `details.reason` of every error that means "the store itself is not usable": callers fail closed on it. */
export const STORE_UNAVAILABLE = 'store-unavailable';

export function storeUnavailable(
  code: Extract<ErrorCode, 'NETWORK' | 'TIMEOUT' | 'CONFIG_INVALID' | 'NOT_CONFIGURED'>,
  kind: StoreKind,
  message: string,
  cause?: unknown,
): PeriscopeError {
  return new PeriscopeError(code, message, {
    details: { reason: STORE_UNAVAILABLE, store: kind },
    ...(cause === undefined ? {} : { cause }),
  });
}

export function storeClosed(kind: StoreKind, location: string): PeriscopeError {
  return storeUnavailable('NOT_CONFIGURED', kind, `The ${kind} store at ${location} is closed.`);
}

function invalid(message: string): PeriscopeError {
  return new PeriscopeError('INVALID_INPUT', message);
}

export function checkKey(key: unknown, name = 'key'): string {
  if (typeof key !== 'string' || key === '') throw invalid(`Store ${name} must be a non-empty string.`);
  return key;
}

/** A key prefix for `keys`: a string, possibly empty (every key). */
export function checkPrefix(prefix: unknown): string {
  if (typeof prefix !== 'string') throw invalid('A key prefix must be a string.');
  return prefix;
}

/** The TTL in whole milliseconds, or undefined for "never expires". */
export function checkTtl(options: SetOptions | undefined): number | undefined {
  const ttlMs = options?.ttlMs;
  if (ttlMs === undefined) return undefined;
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw invalid(`ttlMs must be a positive number, not ${ttlMs}.`);
  return Math.ceil(ttlMs);
}

/** The JSON text of a value, refusing what JSON cannot carry. */
export function toJson(key: string, value: unknown): string {
  const text = value === undefined ? undefined : JSON.stringify(value);
  if (text === undefined) throw invalid(`The value for ${key} is not JSON-serialisable.`);
  return text;
}

export function checkConsume(amount: number, limit: number, windowMs: number): void {
  if (!Number.isSafeInteger(amount) || amount < 0)
    throw invalid(`consume amount must be a whole number ≥ 0, not ${amount}.`);
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw invalid(`consume limit must be a whole number ≥ 1, not ${limit}.`);
  if (!Number.isSafeInteger(windowMs) || windowMs < 1)
    throw invalid(`consume windowMs must be a whole number of milliseconds ≥ 1, not ${windowMs}.`);
  if (amount > limit) throw invalid(`consume amount ${amount} can never fit in a limit of ${limit}.`);
}

export function checkIncrement(by: number): void {
  if (!Number.isSafeInteger(by)) throw invalid(`increment must be by a whole number, not ${by}.`);
}

export function checkIncrementWithin(
  amounts: Readonly<Record<string, number>>,
  limits: Readonly<Record<string, number>>,
): void {
  for (const [field, amount] of Object.entries(amounts)) {
    if (field === '') throw invalid('A counter name must be a non-empty string.');
    if (!Number.isSafeInteger(amount))
      throw invalid(`${field} must change by a whole number, not ${amount}.`);
  }
  for (const [field, limit] of Object.entries(limits))
    if (!Number.isSafeInteger(limit) || limit < 0)
      throw invalid(`The limit of ${field} must be a whole number ≥ 0, not ${limit}.`);
}

/** The counters stored under a key by `incrementWithin`; anything else there is a caller's mistake. */
export function countersValue(key: string, value: unknown): Record<string, number> {
  if (value === undefined) return {};
  const valid =
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((count) => Number.isSafeInteger(count));
  if (!valid)
    throw invalid(`Cannot increment ${key}: it holds something other than counters that are whole numbers.`);
  return { ...(value as Record<string, number>) };
}

/**
 * One `incrementWithin` step on counters read from the store (memory and SQLite; the Redis script does the same):
 * the counters after it, or the first one over its limit.
 */
export function stepCounters(
  values: Record<string, number>,
  amounts: Readonly<Record<string, number>>,
  limits: Readonly<Record<string, number>>,
): { applied: true; values: Record<string, number> } | { applied: false; over: string } {
  for (const [field, amount] of Object.entries(amounts)) {
    const limit = limits[field];
    if (amount > 0 && limit !== undefined && (values[field] ?? 0) + amount > limit)
      return { applied: false, over: field };
  }
  const next = { ...values };
  for (const [field, amount] of Object.entries(amounts))
    next[field] = Math.max(0, (next[field] ?? 0) + amount);
  return { applied: true, values: next };
}

export function checkLedgerEntry(agent: string, entry: LedgerEntryInput): void {
  checkKey(agent, 'agent');
  if (!Number.isSafeInteger(entry.delta))
    throw invalid(`A credit change must be a whole number of credits, not ${entry.delta}.`);
  if (typeof entry.reason !== 'string' || entry.reason === '')
    throw invalid('A credit change needs a reason (e.g. grant, reserve, refund).');
  if (entry.tool !== undefined && (typeof entry.tool !== 'string' || entry.tool === ''))
    throw invalid('A credit change tool must be a non-empty string when given.');
}

export function checkLedgerLimit(options: LedgerOptions | undefined): number | undefined {
  const limit = options?.limit;
  if (limit === undefined) return undefined;
  if (!Number.isSafeInteger(limit) || limit < 0)
    throw invalid(`ledger limit must be a whole number ≥ 0, not ${limit}.`);
  return limit;
}

/** A counter value read back from the store; anything else under that key is a caller's mistake. */
export function counterValue(key: string, value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isSafeInteger(value))
    throw invalid(`Cannot increment ${key}: it holds a value that is not a whole number.`);
  return value;
}
