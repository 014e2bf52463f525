/** Minutes of per-minute counts kept: one day. */
export const MINUTES_KEPT = 1440;

/** Upper bounds of the latency histogram each minute keeps, in ms (a last bucket holds the slower calls). */
export const LATENCY_BOUNDS_MS = [
  5, 10, 20, 30, 50, 75, 100, 150, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 7500, 10_000, 15_000,
  20_000, 30_000, 60_000,
] as const;

/** The windows the overview charts: the last hour by minute, the last day by quarter hour. */
export const WINDOWS = {
  hour: { minutes: 60, stepMinutes: 1 },
  day: { minutes: MINUTES_KEPT, stepMinutes: 15 },
} as const;
export type StatsWindow = keyof typeof WINDOWS;

/** What one finished call adds to its minute. */
export interface CallFacts {
  /** Unix ms. */
  time: number;
  /** `ok`, or the error result's code. */
  outcome: string;
  ms: number;
  cached: boolean;
  credits: number;
}

interface Minute {
  /** Minutes since the Unix epoch: which minute this slot holds now. */
  minute: number;
  calls: number;
  errors: number;
  errorsByCode: Map<string, number>;
  cacheHits: number;
  credits: number;
  /** Calls per latency bucket (`LATENCY_BOUNDS_MS`, then one for slower). */
  latency: Uint32Array;
  minMs: number;
  maxMs: number;
}

/** One point of a chart: a step of the window. */
export interface StatsStep {
  /** Unix ms of the step's first minute. */
  start: number;
  calls: number;
  errors: number;
  credits: number;
  /** Cache hits / calls; null without calls. */
  cacheHitRate: number | null;
  /** Latency quantiles from the histogram (see `quantile`); null without calls. */
  p50: number | null;
  p95: number | null;
}

/**
 * The console's overview counts: one slot per minute for the last day (`MINUTES_KEPT`, a ring reused as minutes
 * pass), each with calls, errors by code, cache hits, credits and a latency histogram. Bounded whatever the traffic
 * (about 0.3 KB a minute, a few hundred KB a day), in memory only: a restart starts from zero. Unlike the recent
 * calls (bounded in number), the counts cover every call of the day.
 */
export function createCallStats(options: { now?: () => number } = {}) {
  const now = options.now ?? Date.now;
  const slots: Array<Minute | undefined> = new Array(MINUTES_KEPT);

  function slotFor(minute: number): Minute {
    const index = minute % MINUTES_KEPT;
    let slot = slots[index];
    if (!slot || slot.minute !== minute) {
      slot = { minute, ...emptyTotals() };
      slots[index] = slot;
    }
    return slot;
  }

  return {
    add(call: CallFacts): void {
      const slot = slotFor(Math.floor(call.time / 60_000));
      slot.calls += 1;
      if (call.outcome !== 'ok') {
        slot.errors += 1;
        slot.errorsByCode.set(call.outcome, (slot.errorsByCode.get(call.outcome) ?? 0) + 1);
      }
      if (call.cached) slot.cacheHits += 1;
      slot.credits += call.credits;
      const found = LATENCY_BOUNDS_MS.findIndex((bound) => call.ms <= bound);
      const bucket = found === -1 ? LATENCY_BOUNDS_MS.length : found;
      slot.latency[bucket] = (slot.latency[bucket] ?? 0) + 1;
      slot.minMs = Math.min(slot.minMs, call.ms);
      slot.maxMs = Math.max(slot.maxMs, call.ms);
    },
    /** The window's steps, oldest first (the last one holds the current minute), and its totals. */
    query(window: StatsWindow) {
      const { minutes, stepMinutes } = WINDOWS[window];
      const last = Math.floor(now() / 60_000);
      const first = last - minutes + 1;
      const total = emptyTotals();
      const steps: StatsStep[] = [];
      for (let stepStart = first; stepStart <= last; stepStart += stepMinutes) {
        const step = emptyTotals();
        for (let minute = stepStart; minute < stepStart + stepMinutes && minute <= last; minute += 1) {
          const slot = slots[minute % MINUTES_KEPT];
          if (slot?.minute !== minute) continue;
          merge(step, slot);
          merge(total, slot);
        }
        steps.push({ start: stepStart * 60_000, ...finish(step) });
      }
      const { calls, errors, credits, cacheHitRate, p50, p95 } = finish(total);
      return {
        window,
        stepMinutes,
        steps,
        calls,
        errors,
        errorsByCode: Object.fromEntries([...total.errorsByCode].sort((a, b) => b[1] - a[1])),
        latencyMs: { p50, p95 },
        cacheHitRate,
        credits,
      };
    },
  };
}

export type CallStats = ReturnType<typeof createCallStats>;

function emptyTotals(): Omit<Minute, 'minute'> {
  return {
    calls: 0,
    errors: 0,
    errorsByCode: new Map(),
    cacheHits: 0,
    credits: 0,
    latency: new Uint32Array(LATENCY_BOUNDS_MS.length + 1),
    minMs: Number.POSITIVE_INFINITY,
    maxMs: 0,
  };
}

function merge(into: Omit<Minute, 'minute'>, slot: Minute): void {
  into.calls += slot.calls;
  into.errors += slot.errors;
  for (const [code, count] of slot.errorsByCode)
    into.errorsByCode.set(code, (into.errorsByCode.get(code) ?? 0) + count);
  into.cacheHits += slot.cacheHits;
  into.credits += slot.credits;
  for (let index = 0; index < slot.latency.length; index += 1)
    into.latency[index] = (into.latency[index] ?? 0) + (slot.latency[index] ?? 0);
  into.minMs = Math.min(into.minMs, slot.minMs);
  into.maxMs = Math.max(into.maxMs, slot.maxMs);
}

function finish(totals: Omit<Minute, 'minute'>) {
  const { calls } = totals;
  return {
    calls,
    errors: totals.errors,
    credits: totals.credits,
    cacheHitRate: calls === 0 ? null : totals.cacheHits / calls,
    p50: quantile(totals, 0.5),
    p95: quantile(totals, 0.95),
  };
}

/**
 * The q-quantile from a latency histogram, by nearest rank: the upper bound of the bucket the rank falls in, kept
 * within the fastest and slowest calls seen (so one call gives its own time). An upper estimate, exact at the bounds.
 */
export function quantile(
  totals: Pick<Minute, 'latency' | 'minMs' | 'maxMs' | 'calls'>,
  q: number,
): number | null {
  if (totals.calls === 0) return null;
  const rank = Math.max(1, Math.ceil(q * totals.calls));
  let seen = 0;
  for (let index = 0; index < totals.latency.length; index += 1) {
    seen += totals.latency[index] ?? 0;
    if (seen >= rank) {
      const bound = LATENCY_BOUNDS_MS[index] ?? totals.maxMs;
      return Math.round(Math.min(totals.maxMs, Math.max(totals.minMs, bound)));
    }
  }
  return Math.round(totals.maxMs);
}
