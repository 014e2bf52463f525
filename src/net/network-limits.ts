import { PeriscopeError } from '../errors.ts';
import type { NetworkLimits } from './types.ts';

/** The documented defaults of every network limit. */
export const DEFAULT_NETWORK_LIMITS: Readonly<NetworkLimits> = Object.freeze({
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 15_000,
  bodyTimeoutMs: 15_000,
  totalTimeoutMs: 30_000,
  maxBytes: 10_000_000,
  maxHeaderBytes: 65_536,
  maxRedirects: 5,
});

const LIMIT_NAMES = Object.keys(DEFAULT_NETWORK_LIMITS) as (keyof NetworkLimits)[];
const MAX_TIMER_MS = 2_147_483_647;

type LimitErrorCode = 'CONFIG_INVALID' | 'INVALID_INPUT';

function checkLimit(name: keyof NetworkLimits, value: number, code: LimitErrorCode): void {
  const isTimeout = name.endsWith('TimeoutMs');
  const valid =
    Number.isInteger(value) &&
    (isTimeout ? value > 0 && value <= MAX_TIMER_MS : value >= 0) &&
    (name !== 'maxHeaderBytes' || value > 0);
  if (!valid) {
    const expected = isTimeout ? `a whole number of ms between 1 and ${MAX_TIMER_MS}` : 'a whole number ≥ 0';
    throw new PeriscopeError(code, `${name} must be ${expected}, got ${value}`, {
      details: { limit: name, reason: 'invalid-limit' },
    });
  }
}

/**
 * `base` with the limits named in `overrides` replaced, each validated (CONFIG_INVALID for client options,
 * INVALID_INPUT for per-request overrides). Keys that are not limits are ignored; undefined keeps the base value.
 */
export function resolveNetworkLimits(
  base: Readonly<NetworkLimits>,
  overrides: Partial<NetworkLimits> | undefined,
  code: LimitErrorCode,
): NetworkLimits {
  const limits: NetworkLimits = { ...base };
  for (const name of LIMIT_NAMES) {
    const value = overrides?.[name];
    if (value === undefined) continue;
    checkLimit(name, value, code);
    limits[name] = value;
  }
  return limits;
}
