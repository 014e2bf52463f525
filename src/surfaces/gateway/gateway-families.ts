import type { Periscope } from '../../index.ts';
import { stageTotals } from '../../stage-timing.ts';
import { LATENCY_BUCKETS_SECONDS, type MetricsRegistry } from './metrics.ts';

/** The gateway's metric families, declared in `registry`: what each counts is in its help text. */
export function gatewayFamilies(registry: MetricsRegistry) {
  const calls = registry.counter('periscope_tool_calls_total', 'Tool calls by tool, surface and outcome.');
  const errors = registry.counter(
    'periscope_tool_errors_total',
    'Tool calls that returned an error result, by tool and error code.',
  );
  const latency = registry.histogram(
    'periscope_tool_duration_seconds',
    'Tool call duration in seconds, by tool.',
    LATENCY_BUCKETS_SECONDS,
  );
  const cacheHits = registry.counter(
    'periscope_cache_hits_total',
    'Tool calls answered from a cache (result data.cached), by tool.',
  );
  const inFlightGauge = registry.gauge(
    'periscope_tool_calls_in_flight',
    'Tool calls running now (not counting queued ones), at most gateway.maxConcurrentCalls.',
  );
  const queuedGauge = registry.gauge(
    'periscope_tool_calls_queued',
    'Tool calls waiting for a free slot (gateway.maxConcurrentCalls), at most gateway.maxQueuedCalls.',
  );
  const refusedCalls = registry.counter(
    'periscope_tool_calls_refused_total',
    'Tool calls refused without running, by surface and reason (overloaded: the queue was full; shutting-down).',
  );
  inFlightGauge.set({}, 0);
  queuedGauge.set({}, 0);
  const httpRequests = registry.counter(
    'periscope_http_requests_total',
    'HTTP requests by route and status code.',
  );
  const authFailures = registry.counter(
    'periscope_auth_failures_total',
    'Failed authentications by reason (missing, malformed, invalid).',
  );
  const providerUp = registry.gauge(
    'periscope_provider_up',
    'Search providers in the chain: 1 when usable, 0 while cooling down after failures or unconfigured.',
    'max', // health is in the store, the same for every worker
  );
  const providerFailures = registry.gauge(
    'periscope_provider_consecutive_failures',
    'Consecutive failures of each search provider.',
    'max',
  );
  const memory = registry.gauge('process_resident_memory_bytes', 'Resident memory size in bytes.');
  const startTime = registry.gauge(
    'process_start_time_seconds',
    'Start time of the process, in Unix seconds.',
    'min', // several workers: the first one's
  );
  startTime.set({}, Math.round(Date.now() / 1000 - process.uptime()));
  // Only with PERISCOPE_STAGE_TIMING=1 (bench/gateway.bench.ts): where calls' time went (src/stage-timing.ts).
  const stages = stageTotals();
  const stageMs = stages
    ? registry.gauge(
        'periscope_stage_ms_total',
        'Wall time spent in each stage of calls, ms (stage timing on).',
      )
    : undefined;
  const stageCount = stages
    ? registry.gauge('periscope_stage_runs_total', 'Times each stage ran (stage timing on).')
    : undefined;

  return {
    calls,
    errors,
    latency,
    cacheHits,
    inFlightGauge,
    queuedGauge,
    refusedCalls,
    httpRequests,
    authFailures,
    /** Memory and (with stage timing on) where calls' time went, read now. */
    readProcess(): void {
      memory.set({}, process.memoryUsage.rss());
      for (const [stage, total] of stages ?? []) {
        stageMs?.set({ stage }, total.ms);
        stageCount?.set({ stage }, total.count);
      }
    },
    /** The search providers' health, read now from `status()` (best effort: the rest still goes out). */
    async readProviders(periscope: Periscope): Promise<void> {
      providerUp.reset();
      providerFailures.reset();
      try {
        const { providers } = await periscope.status();
        for (const provider of providers) {
          if (!provider.inChain && !provider.inImageChain) continue;
          const up = provider.enabled && provider.configured && provider.health.state === 'ok' ? 1 : 0;
          providerUp.set({ provider: provider.id }, up);
          providerFailures.set({ provider: provider.id }, provider.health.consecutiveFailures);
        }
      } catch {
        // provider health is best effort; the rest of the metrics still go out
      }
    },
  };
}
