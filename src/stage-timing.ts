/**
 * Where a call's time goes, stage by stage, for bench/gateway.bench.ts: off unless the process starts with
 * PERISCOPE_STAGE_TIMING=1 in its environment (the bench sets it on the gateway it starts). Off, each probe is
 * one test of a constant and nothing is kept. On, every stage sums the wall time spent in it (ms) and how often it
 * ran; the gateway's /metrics shows the sums (`periscope_stage_ms_total`), so the bench can divide them by the
 * calls it made. Stages are leaves, never nested in one another, so their sums add up; `call` is the whole
 * request as the gateway saw it, from its first byte handled to the answer written.
 */
export type Stage =
  | 'call'
  | 'parse-auth'
  | 'policy-store'
  | 'cache'
  | 'url-check'
  | 'robots'
  | 'network'
  | 'extraction'
  | 'envelope'
  | 'serialisation';

const enabled = process.env.PERISCOPE_STAGE_TIMING === '1';
const totals = new Map<Stage, { ms: number; count: number }>();

/** A stage's start time, or 0 when timing is off. */
export function stageStart(): number {
  return enabled ? performance.now() : 0;
}

/** Adds the time since `started` (from `stageStart`) to `stage`. */
export function stageEnd(stage: Stage, started: number): void {
  if (!enabled) return;
  const total = totals.get(stage);
  const ms = performance.now() - started;
  if (total) {
    total.ms += ms;
    total.count += 1;
  } else totals.set(stage, { ms, count: 1 });
}

/** The sums so far, or undefined when timing is off. */
export function stageTotals(): ReadonlyMap<Stage, { ms: number; count: number }> | undefined {
  return enabled ? totals : undefined;
}
