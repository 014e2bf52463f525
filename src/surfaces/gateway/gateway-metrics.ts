import { createIdleCount } from '../../concurrency/idle-count.ts';
import type { Periscope } from '../../index.ts';
import type { ToolResult } from '../../tool-call.ts';
import type { Tool, ToolExecuteOptions } from '../../tools/tool.ts';
import { toErrorResult } from '../../tools/tool-result.ts';
import type { WebFetchInput } from '../../tools/web-fetch.ts';
import { createCallLimiter, type RefusalReason, refusalReason } from './call-limiter.ts';
import { gatewayFamilies } from './gateway-families.ts';
import { MetricsRegistry, type MetricsSnapshot } from './metrics.ts';
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
  const families = gatewayFamilies(registry);
  const { calls, errors, latency, cacheHits, inFlightGauge, queuedGauge, refusedCalls } = families;

  const running = createIdleCount();
  const limiter = createCallLimiter({
    maxConcurrent: limits.maxConcurrentCalls ?? Number.POSITIVE_INFINITY,
    maxQueued: limits.maxQueuedCalls ?? Number.POSITIVE_INFINITY,
    onChange: ({ queued }) => queuedGauge.set({}, queued),
  });
  /** Results of calls that never ran, and why: the REST route answers them 503. */
  const refusals = new WeakMap<ToolResult, RefusalReason>();

  function settle(): void {
    running.leave();
    inFlightGauge.set({}, running.count);
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
        running.enter();
        inFlightGauge.set({}, running.count);
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
    httpRequest: (route: string, status: number) => families.httpRequests({ route, status: String(status) }),
    authFailure: (reason: string) => families.authFailures({ reason }),
    instrument,
    /** The Periscope the MCP endpoint is given: the same one, with counted tools. */
    instrumentPeriscope: (periscope: Periscope, surface: string): Periscope =>
      withTools(periscope, (tool) => instrument(tool, surface)),
    get inFlight() {
      return running.count;
    },
    get queued() {
      return limiter.queued;
    },
    /** Why this result's call never ran (queue full, shutting down, client gone), or undefined when it ran. */
    refusal: (result: ToolResult): RefusalReason | undefined => refusals.get(result),
    /** Shutdown: answer every queued call now (ABORTED, `shutting-down`) and refuse new ones; running calls go on. */
    closeQueue: () => limiter.close(),
    /** Resolves when no tool call is running. */
    idle: running.idle,
    /** This process's values, with memory and stage times read now: what another worker's `render` adds. */
    snapshot(): MetricsSnapshot {
      families.readProcess();
      return registry.snapshot();
    },
    /**
     * Prometheus text, with provider health and memory read now; `others`: the other workers' snapshots, added in
     * (`serve --workers N`: one scrape shows the whole gateway).
     */
    async render(periscope: Periscope, others: readonly MetricsSnapshot[] = []): Promise<string> {
      await families.readProviders(periscope);
      families.readProcess();
      return registry.render(others);
    },
  };
}

export type GatewayMetrics = ReturnType<typeof createGatewayMetrics>;

/** `periscope` with each tool wrapped, its fetch, search and image search calls going through the wrapped tools. */
function withTools(periscope: Periscope, wrap: (tool: Tool) => Tool): Periscope {
  const tools = periscope.tools.map(wrap);
  const named = (name: string) => tools.find((tool) => tool.name === name);
  return {
    ...periscope,
    tools,
    fetch: ((input: WebFetchInput, options?: ToolExecuteOptions) =>
      named('web_fetch')?.execute(input, options) ?? periscope.fetch(input, options)) as Periscope['fetch'],
    search: (input, options) =>
      (named('web_search')?.execute(input, options) ?? periscope.search(input, options)) as ReturnType<
        Periscope['search']
      >,
    imageSearch: (input, options) =>
      (named('image_search')?.execute(input, options) ?? periscope.imageSearch(input, options)) as ReturnType<
        Periscope['imageSearch']
      >,
  };
}
