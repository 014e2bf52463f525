import { PeriscopeError } from '../errors.ts';
import type { NetworkLimits, ResolverLimits } from './types.ts';

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

/** The documented defaults of the resolver's limits (c-ares `timeout` and `tries`). */
export const DEFAULT_RESOLVER_LIMITS: Readonly<ResolverLimits> = Object.freeze({
  dnsTimeoutMs: 2_000,
  dnsTries: 2,
});

const MAX_TIMER_MS = 2_147_483_647;

type LimitErrorCode = 'CONFIG_INVALID' | 'INVALID_INPUT';

/** Limits that must be at least 1 (the others may be 0: no redirects, an empty body). */
const AT_LEAST_ONE = new Set(['maxHeaderBytes', 'dnsTries']);

function checkLimit(name: string, value: number, code: LimitErrorCode): void {
  const isTimeout = name.endsWith('TimeoutMs');
  const minimum = AT_LEAST_ONE.has(name) ? 1 : 0;
  const valid =
    Number.isInteger(value) && (isTimeout ? value > 0 && value <= MAX_TIMER_MS : value >= minimum);
  if (!valid) {
    const expected = isTimeout
      ? `a whole number of ms between 1 and ${MAX_TIMER_MS}`
      : `a whole number ≥ ${minimum}`;
    throw new PeriscopeError(code, `${name} must be ${expected}, got ${value}`, {
      details: { limit: name, reason: 'invalid-limit' },
    });
  }
}

/** `base` with the limits named in `overrides` replaced, each validated; the names are `base`'s own. */
function overrideLimits<LIMITS extends object>(
  base: Readonly<LIMITS>,
  overrides: Partial<LIMITS> | undefined,
  code: LimitErrorCode,
): LIMITS {
  const limits = { ...base } as LIMITS;
  for (const name of Object.keys(base) as (keyof LIMITS & string)[]) {
    const value = overrides?.[name];
    if (value === undefined) continue;
    checkLimit(name, value as number, code);
    limits[name] = value as LIMITS[typeof name];
  }
  return limits;
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
  return overrideLimits(base, overrides, code);
}

/** The same for the resolver's limits, checked once, when the network policy is built. */
export function resolveResolverLimits(
  base: Readonly<ResolverLimits>,
  overrides: Partial<ResolverLimits> | undefined,
  code: LimitErrorCode,
): ResolverLimits {
  return overrideLimits(base, overrides, code);
}
