import { PeriscopeError } from '../errors.ts';
import type { TurnOutcome, TurnReserve, TurnStep } from './store.ts';

/**
 * The turns every store keeps (`Store.turn`): per key, the earliest next start and the leases held (lease id → when
 * it expires). A reservation takes the start `max(now, nextStart)` and moves `nextStart` one interval past it, so
 * starts are `intervalMs` apart whichever process reserved them; it holds a lease from the reservation until its
 * release or `start + leaseMs`, and none is granted while `maxConcurrent` are held. A start given up (the caller
 * aborted while waiting for it) stays spent: spacing errs on the safe side. The Redis store runs the same steps in
 * Lua (redis-lua.ts TURN).
 */
export interface TurnState {
  nextStartMs: number;
  leases: Record<string, number>;
}

export interface TurnDecision {
  outcome: TurnOutcome;
  /** The state to write back; undefined when nothing changed. */
  state: TurnState | undefined;
  /** When the state stops mattering (every lease expired and the next start passed): its TTL. */
  expiresAtMs: number;
}

/** Whole milliseconds of a reservation, checked; `maxConcurrent`/`maxWaitMs` undefined mean no limit. */
export function checkTurnStep(step: TurnStep): TurnStep {
  if ('release' in step) {
    if (typeof step.release !== 'string' || step.release === '')
      throw invalid('turn release needs the lease id that reserve returned.');
    return step;
  }
  const { intervalMs, maxConcurrent, leaseMs, maxWaitMs } = step.reserve ?? ({} as TurnReserve);
  if (!Number.isSafeInteger(intervalMs) || intervalMs < 0)
    throw invalid(`turn intervalMs must be a whole number of milliseconds ≥ 0, not ${intervalMs}.`);
  if (!Number.isSafeInteger(leaseMs) || leaseMs < 1)
    throw invalid(`turn leaseMs must be a whole number of milliseconds ≥ 1, not ${leaseMs}.`);
  if (maxConcurrent !== undefined && (!Number.isSafeInteger(maxConcurrent) || maxConcurrent < 1))
    throw invalid(`turn maxConcurrent must be a whole number ≥ 1, not ${maxConcurrent}.`);
  if (maxWaitMs !== undefined && (!Number.isSafeInteger(maxWaitMs) || maxWaitMs < 0))
    throw invalid(`turn maxWaitMs must be a whole number of milliseconds ≥ 0, not ${maxWaitMs}.`);
  return step;
}

/** One `turn` step on `current` (undefined: none stored) at `nowMs`; `lease` is the id a reservation would get. */
export function decideTurn(
  current: TurnState | undefined,
  step: TurnStep,
  lease: string,
  nowMs: number,
): TurnDecision {
  const leases: Record<string, number> = {};
  let firstExpiry = Number.POSITIVE_INFINITY;
  let lastExpiry = 0;
  for (const [id, expiresAtMs] of Object.entries(current?.leases ?? {})) {
    if (expiresAtMs <= nowMs) continue;
    leases[id] = expiresAtMs;
    firstExpiry = Math.min(firstExpiry, expiresAtMs);
    lastExpiry = Math.max(lastExpiry, expiresAtMs);
  }
  const nextStartMs = current?.nextStartMs ?? 0;
  const expiresAtMs = Math.max(nextStartMs, lastExpiry);
  if ('release' in step) {
    const held = step.release in leases;
    delete leases[step.release];
    return {
      outcome: { outcome: 'released', held },
      state: held ? { nextStartMs, leases } : undefined,
      expiresAtMs,
    };
  }
  const { intervalMs, maxConcurrent, leaseMs, maxWaitMs } = step.reserve;
  if (maxConcurrent !== undefined && Object.keys(leases).length >= maxConcurrent)
    return {
      outcome: { outcome: 'busy', waitMs: Math.max(1, firstExpiry - nowMs) },
      state: undefined,
      expiresAtMs,
    };
  const startMs = Math.max(nowMs, nextStartMs);
  const waitMs = startMs - nowMs;
  if (maxWaitMs !== undefined && waitMs > maxWaitMs)
    return { outcome: { outcome: 'late', waitMs }, state: undefined, expiresAtMs };
  leases[lease] = startMs + leaseMs;
  const next = { nextStartMs: startMs + intervalMs, leases };
  return {
    outcome: { outcome: 'granted', lease, waitMs },
    state: next,
    expiresAtMs: Math.max(next.nextStartMs, startMs + leaseMs, lastExpiry),
  };
}

function invalid(message: string): PeriscopeError {
  return new PeriscopeError('INVALID_INPUT', message);
}
