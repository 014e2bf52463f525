/**
 * Where a call's time goes, stage by stage, for bench/gateway.bench.ts: off unless the process starts with
 * PERISCOPE_STAGE_TIMING=1 in its environment (the bench sets it on the gateway it starts for the breakdown).
 * Off, each probe is one test of a constant and nothing is kept. On, every stage sums the wall time spent in it
 * (ms), the CPU time of the event-loop thread over the same span (ms, `process.threadCpuUsage`: for a stage that
 * awaits, what the thread did meanwhile — only that call's work when calls run one at a time; the kernel's
 * accounting under-counts short spans, a 50 µs busy span reading as ~75 % of it, 200 µs and more as ~all) and how
 * often it ran; the gateway's /metrics shows the sums (`periscope_stage_ms_total`, `periscope_stage_cpu_ms_total`), so the
 * bench can divide them by the calls it made. Stages are leaves, never nested in one another, so their sums add
 * up; `call` is the whole request as the gateway saw it, from its first byte handled to the answer written.
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

/** When a stage started: wall time (ms) and the thread's CPU time (µs). */
export interface StageMark {
  readonly wallMs: number;
  readonly cpuUs: number;
}

export interface StageTotal {
  ms: number;
  cpuMs: number;
  count: number;
}

const enabled = process.env.PERISCOPE_STAGE_TIMING === '1';
const OFF: StageMark = Object.freeze({ wallMs: 0, cpuUs: 0 });
const totals = new Map<Stage, StageTotal>();

function threadCpuUs(): number {
  const { user, system } = process.threadCpuUsage();
  return user + system;
}

/** A stage's start, or a shared constant when timing is off. */
export function stageStart(): StageMark {
  return enabled ? { wallMs: performance.now(), cpuUs: threadCpuUs() } : OFF;
}

/** Adds the time since `started` (from `stageStart`) to `stage`. */
export function stageEnd(stage: Stage, started: StageMark): void {
  if (!enabled) return;
  const ms = performance.now() - started.wallMs;
  const cpuMs = (threadCpuUs() - started.cpuUs) / 1000;
  const total = totals.get(stage);
  if (total) {
    total.ms += ms;
    total.cpuMs += cpuMs;
    total.count += 1;
  } else totals.set(stage, { ms, cpuMs, count: 1 });
}

/** The sums so far, or undefined when timing is off. */
export function stageTotals(): ReadonlyMap<Stage, StageTotal> | undefined {
  return enabled ? totals : undefined;
}
