import { PeriscopeError } from '../errors.ts';
import type { TurnOutcome, TurnReserve, TurnStep } from './store.ts';

/**
 * The turns every store keeps (`Store.turn`): per key, when the next turn may start and the leases held (lease id →
 * when it expires). A turn is granted only when it can start now: `nextStart` has passed and fewer than
 * `maxConcurrent` leases are held; `nextStart` then moves to one interval from now. So the spacing is measured from
 * the moment each turn was actually granted, not from a start booked in advance: an instance whose event loop wakes
 * late does not bring the next instance's request closer to its own. Waiters ask again when told (`wait`: when the
 * next start is due; `busy`: polling, as a release is not announced). The Redis store runs the same steps in Lua
 * (redis-lua.ts TURN).
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
  const { intervalMs, maxConcurrent, leaseMs } = step.reserve ?? ({} as TurnReserve);
  if (!Number.isSafeInteger(intervalMs) || intervalMs < 0)
    throw invalid(`turn intervalMs must be a whole number of milliseconds ≥ 0, not ${intervalMs}.`);
  if (!Number.isSafeInteger(leaseMs) || leaseMs < 1)
    throw invalid(`turn leaseMs must be a whole number of milliseconds ≥ 1, not ${leaseMs}.`);
  if (maxConcurrent !== undefined && (!Number.isSafeInteger(maxConcurrent) || maxConcurrent < 1))
    throw invalid(`turn maxConcurrent must be a whole number ≥ 1, not ${maxConcurrent}.`);
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
  const { intervalMs, maxConcurrent, leaseMs } = step.reserve;
  if (maxConcurrent !== undefined && Object.keys(leases).length >= maxConcurrent)
    return {
      outcome: { outcome: 'busy', waitMs: Math.max(1, firstExpiry - nowMs) },
      state: undefined,
      expiresAtMs,
    };
  if (nextStartMs > nowMs)
    return { outcome: { outcome: 'wait', waitMs: nextStartMs - nowMs }, state: undefined, expiresAtMs };
  leases[lease] = nowMs + leaseMs;
  const next = { nextStartMs: nowMs + intervalMs, leases };
  return {
    outcome: { outcome: 'granted', lease },
    state: next,
    expiresAtMs: Math.max(next.nextStartMs, nowMs + leaseMs, lastExpiry),
  };
}

function invalid(message: string): PeriscopeError {
  return new PeriscopeError('INVALID_INPUT', message);
}
