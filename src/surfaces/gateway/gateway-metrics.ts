import type { Periscope } from '../../index.ts';
import { stageTotals } from '../../stage-timing.ts';
import type { Tool } from '../../tools/tool.ts';
import { type ToolResult, toErrorResult } from '../../tools/tool-result.ts';
import { createCallLimiter, type RefusalReason, refusalReason } from './call-limiter.ts';
import { LATENCY_BUCKETS_SECONDS, MetricsRegistry, type MetricsSnapshot } from './metrics.ts';
import type { FinishedCall } from './recent-calls.ts';

export interface CallLimits {
  /** `gateway.maxConcurrentCalls`. Default: no limit. */
  maxConcurrentCalls?: number;
  /** `gateway.maxQueuedCalls`. Default: no limit. */
  maxQueuedCalls?: number;
  /** Told of every call that ran, at its end (the console's recent calls). Must be quick and never throw. */
  onCall?: (call: FinishedCall) => void;
}

/**
 * What the gateway counts, and the tool wrapper that counts it. Every tool call, from the REST routes or from
 * /mcp, goes through `instrument`, which also keeps the in-flight count that graceful shutdown waits on, and
 * admits it through the gateway-wide limiter (`limits`): a call that gets no slot is an error result, never run.
 */
export function createGatewayMetrics(limits: CallLimits = {}) {
  const registry = new MetricsRegistry();
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

  function readProcess(): void {
    memory.set({}, process.memoryUsage.rss());
    for (const [stage, total] of stages ?? []) {
      stageMs?.set({ stage }, total.ms);
      stageCount?.set({ stage }, total.count);
    }
  }

  let inFlight = 0;
  const idleWaiters = new Set<() => void>();
  const limiter = createCallLimiter({
    maxConcurrent: limits.maxConcurrentCalls ?? Number.POSITIVE_INFINITY,
    maxQueued: limits.maxQueuedCalls ?? Number.POSITIVE_INFINITY,
    onChange: ({ queued }) => queuedGauge.set({}, queued),
  });
  /** Results of calls that never ran, and why: the REST route answers them 503. */
  const refusals = new WeakMap<ToolResult, RefusalReason>();

  function settle(): void {
    inFlight -= 1;
    inFlightGauge.set({}, inFlight);
    if (inFlight === 0) for (const wake of idleWaiters) wake();
  }

  function record(tool: string, surface: string, result: ToolResult, seconds: number): void {
    calls({ tool, surface, outcome: result.isError ? 'error' : 'ok' });
    latency({ tool }, seconds);
    const data = result.data as { cached?: unknown; error?: { code?: unknown } } | undefined;
    if (result.isError) errors({ tool, code: String(data?.error?.code ?? 'UNKNOWN') });
    if (data?.cached === true) cacheHits({ tool });
  }

  function instrument<INPUT, DATA>(tool: Tool<INPUT, DATA>, surface: string): Tool<INPUT, DATA> {
    return {
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      jsonSchema: tool.jsonSchema,
      pageWrittenFields: tool.pageWrittenFields,
      execute: async (input, options) => {
        let release: () => void;
        try {
          release = await limiter.acquire(options?.signal);
        } catch (error) {
          const result = toErrorResult(error, tool.name);
          const reason = refusalReason(error);
          if (reason) refusals.set(result, reason);
          if (reason && reason !== 'aborted') refusedCalls({ surface, reason });
          return result as ToolResult<DATA>;
        }
        inFlight += 1;
        inFlightGauge.set({}, inFlight);
        const started = performance.now();
        try {
          const result = await tool.execute(input, options);
          const ms = performance.now() - started;
          record(tool.name, surface, result, ms / 1000);
          limits.onCall?.({
            tool: tool.name,
            surface,
            agent: options?.agentId,
            session: options?.sessionId,
            input,
            result,
            ms,
          });
          return result;
        } finally {
          settle();
          release();
        }
      },
    };
  }

  return {
    registry,
    httpRequest: (route: string, status: number) => httpRequests({ route, status: String(status) }),
    authFailure: (reason: string) => authFailures({ reason }),
    instrument,
    /** The Periscope the MCP endpoint is given: the same one, with counted tools. */
    instrumentPeriscope(periscope: Periscope, surface: string): Periscope {
      const tools = periscope.tools.map((tool) => instrument(tool, surface));
      const named = (name: string) => tools.find((tool) => tool.name === name);
      return {
        ...periscope,
        tools,
        fetch: (input, options) =>
          (named('web_fetch')?.execute(input, options) ?? periscope.fetch(input, options)) as ReturnType<
            Periscope['fetch']
          >,
        search: (input, options) =>
          (named('web_search')?.execute(input, options) ?? periscope.search(input, options)) as ReturnType<
            Periscope['search']
          >,
        imageSearch: (input, options) =>
          (named('image_search')?.execute(input, options) ??
            periscope.imageSearch(input, options)) as ReturnType<Periscope['imageSearch']>,
      };
    },
    get inFlight() {
      return inFlight;
    },
    get queued() {
      return limiter.queued;
    },
    /** Why this result's call never ran (queue full, shutting down, client gone), or undefined when it ran. */
    refusal: (result: ToolResult): RefusalReason | undefined => refusals.get(result),
    /** Shutdown: answer every queued call now (ABORTED, `shutting-down`) and refuse new ones; running calls go on. */
    closeQueue: () => limiter.close(),
    /** Resolves when no tool call is running. */
    idle(): Promise<void> {
      if (inFlight === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const wake = () => {
          idleWaiters.delete(wake);
          resolve();
        };
        idleWaiters.add(wake);
      });
    },
    /** This process's values, with memory and stage times read now: what another worker's `render` adds. */
    snapshot(): MetricsSnapshot {
      readProcess();
      return registry.snapshot();
    },
    /**
     * Prometheus text, with provider health and memory read now; `others`: the other workers' snapshots, added in
     * (`serve --workers N`: one scrape shows the whole gateway).
     */
    async render(periscope: Periscope, others: readonly MetricsSnapshot[] = []): Promise<string> {
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
      readProcess();
      return registry.render(others);
    },
  };
}

export type GatewayMetrics = ReturnType<typeof createGatewayMetrics>;
