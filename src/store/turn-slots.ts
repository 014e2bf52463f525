import { PeriscopeError } from '../errors.ts';
import type { TurnOutcome, TurnReserve, TurnStep } from './store.ts';

/**
 * The turns every store keeps (`Store.turn`): per key, when the next turn may start, the leases held (lease id →
 * when it expires) and the starting claim, if any. A turn is granted only when it can start now: `nextStart` has
 * passed, no starting claim is held and fewer than `maxConcurrent` leases are held; `nextStart` then moves to one
 * interval from now. So the spacing is measured from the moment each turn was actually granted, not from a start
 * booked in advance: an instance whose event loop wakes late does not bring the next instance's request closer to
 * its own. With `startingMs` the grant also takes the starting claim, which holds every other turn back until the
 * holder reports its request sent (`sent`, or `release`); `nextStart` then moves to one interval after that report,
 * so an instance that is slow between its grant and its send does not bring the next request closer either. A claim
 * never reported counts as sent when it expires (a crashed holder); a claimed turn released `unsent` (its request
 * never left) is given back, the next start put back where it was before the grant. Waiters ask again when told (`wait`: when the
 * next start is due, or, behind a claim, one interval from now, the earliest it can be; `busy`: polling, as a
 * release is not announced). The Redis store runs the same steps in Lua (redis-lua.ts TURN).
 */
export interface TurnState {
  nextStartMs: number;
  leases: Record<string, number>;
  /** The starting claim: the lease whose request is not reported sent yet, until when, and its interval. */
  starting?: TurnClaim | undefined;
}

export interface TurnClaim {
  lease: string;
  untilMs: number;
  intervalMs: number;
  /** The next start as it was before this turn was granted: where a release `unsent` puts it back. */
  afterMs?: number | undefined;
}

export interface TurnDecision {
  outcome: TurnOutcome;
  /** The state to write back; undefined when nothing changed. */
  state: TurnState | undefined;
  /** When the state stops mattering (every lease and claim expired and the next start passed): its TTL. */
  expiresAtMs: number;
}

/** Whole milliseconds of a reservation, checked; `maxConcurrent`/`maxWaitMs` undefined mean no limit. */
export function checkTurnStep(step: TurnStep): TurnStep {
  if ('release' in step || 'sent' in step) {
    const lease = 'release' in step ? step.release : step.sent;
    if (typeof lease !== 'string' || lease === '')
      throw invalid(
        `turn ${'release' in step ? 'release' : 'sent'} needs the lease id that reserve returned.`,
      );
    if ('release' in step && step.unsent !== undefined && typeof step.unsent !== 'boolean')
      throw invalid(`turn release unsent must be true or false, not ${String(step.unsent)}.`);
    return step;
  }
  const { intervalMs, maxConcurrent, leaseMs, startingMs } = step.reserve ?? ({} as TurnReserve);
  if (!Number.isSafeInteger(intervalMs) || intervalMs < 0)
    throw invalid(`turn intervalMs must be a whole number of milliseconds ≥ 0, not ${intervalMs}.`);
  if (!Number.isSafeInteger(leaseMs) || leaseMs < 1)
    throw invalid(`turn leaseMs must be a whole number of milliseconds ≥ 1, not ${leaseMs}.`);
  if (maxConcurrent !== undefined && (!Number.isSafeInteger(maxConcurrent) || maxConcurrent < 1))
    throw invalid(`turn maxConcurrent must be a whole number ≥ 1, not ${maxConcurrent}.`);
  if (startingMs !== undefined && (!Number.isSafeInteger(startingMs) || startingMs < 1))
    throw invalid(`turn startingMs must be a whole number of milliseconds ≥ 1, not ${startingMs}.`);
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
  let nextStartMs = current?.nextStartMs ?? 0;
  let starting = current?.starting;
  // A claim never reported counts as sent when it expired: the next start is one interval after that.
  if (starting !== undefined && starting.untilMs <= nowMs) {
    nextStartMs = Math.max(nextStartMs, sentPlusInterval(starting.untilMs, starting.intervalMs));
    starting = undefined;
  }
  const expiresAtMs = Math.max(
    nextStartMs,
    lastExpiry,
    starting ? sentPlusInterval(starting.untilMs, starting.intervalMs) : 0,
  );
  if ('sent' in step || 'release' in step) {
    const id = 'sent' in step ? step.sent : step.release;
    // Reported sent, or released before it was (the request has left, or never will): the next start is one
    // interval from now.
    const claimed = starting?.lease === id;
    // Released unsent while it held the claim (no turn was granted since): the turn is given back.
    const givenBack = claimed && 'release' in step && step.unsent === true;
    if (givenBack) nextStartMs = (starting as TurnClaim).afterMs ?? nextStartMs;
    else if (claimed)
      nextStartMs = Math.max(nextStartMs, sentPlusInterval(nowMs, (starting as TurnClaim).intervalMs));
    const after = claimed ? undefined : starting;
    if ('sent' in step)
      return {
        outcome: { outcome: 'sent', held: claimed },
        state: claimed ? { nextStartMs, leases, starting: after } : undefined,
        expiresAtMs: Math.max(expiresAtMs, nextStartMs),
      };
    const held = id in leases;
    delete leases[id];
    return {
      outcome: { outcome: 'released', held },
      state: held || claimed ? { nextStartMs, leases, starting: after } : undefined,
      expiresAtMs: Math.max(expiresAtMs, nextStartMs),
    };
  }
  const { intervalMs, maxConcurrent, leaseMs, startingMs } = step.reserve;
  if (maxConcurrent !== undefined && Object.keys(leases).length >= maxConcurrent)
    return {
      outcome: { outcome: 'busy', waitMs: Math.max(1, firstExpiry - nowMs) },
      state: undefined,
      expiresAtMs,
    };
  // Behind a claim the next start is at least one interval after the report still to come, so after now.
  const dueMs = starting === undefined ? nextStartMs : Math.max(nextStartMs, nowMs + starting.intervalMs);
  if (dueMs > nowMs)
    return { outcome: { outcome: 'wait', waitMs: dueMs - nowMs }, state: undefined, expiresAtMs };
  leases[lease] = nowMs + leaseMs;
  const claim =
    startingMs !== undefined && intervalMs > 0
      ? { lease, untilMs: nowMs + Math.min(startingMs, leaseMs), intervalMs, afterMs: nextStartMs }
      : undefined;
  const next = { nextStartMs: nowMs + intervalMs, leases, ...(claim ? { starting: claim } : {}) };
  return {
    outcome: { outcome: 'granted', lease },
    state: next,
    expiresAtMs: Math.max(
      next.nextStartMs,
      nowMs + leaseMs,
      lastExpiry,
      claim ? sentPlusInterval(claim.untilMs, claim.intervalMs) : 0,
    ),
  };
}

/**
 * The next start after a request reported sent at `sentMs`: one interval on, plus 1 ms because store clocks count
 * whole milliseconds rounded down (the report came up to 1 ms after `sentMs`, a grant at that millisecond's start).
 */
function sentPlusInterval(sentMs: number, intervalMs: number): number {
  return sentMs + intervalMs + 1;
}

function invalid(message: string): PeriscopeError {
  return new PeriscopeError('INVALID_INPUT', message);
}
