import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { GatewayConfig } from '../../config/gateway-schema.ts';
import { PeriscopeError } from '../../errors.ts';
import { listApiKeys } from '../../keys/api-keys.ts';
import type { Store } from '../../store/store.ts';
import type { Tool } from '../../tools/tool.ts';
import { createAuthenticator } from './auth.ts';
import { createGatewayMetrics } from './gateway-metrics.ts';
import type { Gateway, GatewayOptions, McpHandler, SharedCalls, SharedMetrics } from './gateway-types.ts';
import { createHostPolicy, hostForUrl, isLoopbackHost } from './host-check.ts';
import { GatewayError, sendError } from './http-io.ts';
import { acceptSockets, type Listening, listenOn } from './listeners.ts';
import type { MetricsSnapshot } from './metrics.ts';
import { type Console, createConsole } from './operator-console.ts';
import { compactCall, type FinishedCall, sharedCallId } from './recent-calls.ts';
import type { GatewayServices } from './route.ts';
import { createRouter } from './router.ts';
import { keyEgress } from './routes/tool-call.ts';
import { routeTable } from './routes.ts';
import { createAnswerTracker, drain } from './shutdown.ts';

export type {
  Gateway,
  GatewayOptions,
  GatewayPeers,
  McpHandler,
  McpHandlerFactory,
  SharedCalls,
  SharedMetrics,
} from './gateway-types.ts';

/**
 * The gateway: one node:http server serving the route table (routes.ts) through the router (router.ts). It holds
 * what lives as long as the server — the metrics, the operator console, the listening sockets — and hands the
 * routes their shared services once it listens.
 */
export function createGateway(options: GatewayOptions): Gateway {
  const { periscope } = options;
  const config = options.config ?? periscope.config.gateway;
  const { metrics, operatorConsole } = observe(options, config);
  const instrumented = (surface: string) =>
    new Map<string, Tool>(periscope.tools.map((tool) => [tool.name, metrics.instrument(tool, surface)]));
  const answers = createAnswerTracker();
  let dispatch: ((request: IncomingMessage, response: ServerResponse) => Promise<void>) | undefined;
  let mcp: McpHandler | undefined;
  let listeners: Listening | undefined;
  let closing: Promise<{ drained: boolean; inFlightAtStart: number }> | undefined;

  const server = createServer(
    {
      maxHeaderSize: config.maxHeaderBytes,
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      keepAliveTimeout: config.keepAliveTimeoutMs,
      // Node checks the two timeouts above only this often (default 30 s): check often enough that they hold.
      connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(config.headersTimeoutMs / 2))),
    },
    (request, response) => {
      const answered = dispatch
        ? dispatch(request, response)
        : Promise.reject(new GatewayError(503, 'UNAVAILABLE', 'the gateway is starting'));
      answered.catch((error: unknown) => sendError(response, toGatewayError(error), request));
    },
  );

  return {
    server,
    metrics,
    async listen() {
      const store = options.store ?? (await periscope.store());
      await refuseOpenNetworkWithoutKeys(store, config);
      const authenticator = createAuthenticator({
        store,
        alwaysRequireKey: !isLoopbackHost(config.host),
        defaultAgent: config.defaultAgent,
        failuresPerMinute: config.authFailuresPerMinute,
        onFailure: metrics.authFailure,
      });
      // Node's default accept backlog (511) is below the thousand connections the gateway is meant to hold.
      listeners = await listenOn(server, {
        host: config.host,
        port: config.port,
        backlog: 2048,
        sockets: options.listen?.sockets ?? acceptSockets(),
        shared: options.listen?.shared ?? false,
        maxConnections: config.maxConnections,
      });
      const { port } = listeners;
      const hostPolicy = createHostPolicy({
        host: config.host,
        port,
        extraHosts: config.allowedHosts,
        extraOrigins: config.allowedOrigins,
      });
      const services: GatewayServices = {
        periscope,
        config,
        store,
        authenticator,
        hostPolicy,
        metrics,
        console: operatorConsole,
        mcp: undefined,
        restTools: instrumented('rest'),
        // The console's playground: real calls as a chosen key, counted apart so that the tail tells them apart.
        consoleTools: instrumented('console'),
        principals: new WeakMap(),
        peers: options.peers,
        sharedMetrics: options.sharedMetrics,
        version: options.version ?? '0.0.0',
        routes: routeTable(periscope.tools),
        closing: () => closing !== undefined,
      };
      mcp = await options.mcp?.({
        periscope: metrics.instrumentPeriscope(periscope, 'mcp'),
        hostPolicy,
        agentOf: (request) => services.principals.get(request)?.agent,
        egressOf: (request) => keyEgress(services.principals.get(request)),
        sessionIdPrefix: options.peers?.self,
      });
      services.mcp = mcp;
      dispatch = createRouter(services, answers);
      const keysRequired = await authenticator.keysRequired();
      return { url: `http://${hostForUrl(config.host)}:${port}`, host: config.host, port, keysRequired };
    },
    close() {
      closing ??= drain({
        server,
        listeners,
        metrics,
        answers,
        closeStreams: () => operatorConsole?.closeStreams(),
        closeMcp: () => mcp?.close?.(),
        timeoutMs: config.shutdownTimeoutMs,
      });
      return closing;
    },
  };
}

/** Binding anything but loopback without an active API key is refused: nothing else would guard it. */
async function refuseOpenNetworkWithoutKeys(store: Store, config: GatewayConfig): Promise<void> {
  const activeKeys = (await listApiKeys(store)).filter((key) => !key.revokedAt).length;
  if (!isLoopbackHost(config.host) && activeKeys === 0) {
    throw new PeriscopeError(
      'CONFIG_INVALID',
      `refusing to bind ${config.host} without API keys: create one with 'periscope keys create --agent NAME', or bind 127.0.0.1`,
    );
  }
}

/**
 * The gateway's metrics and its operator console (unless gateway.console.enabled is false), wired together: every
 * call that ends is recorded by the console, and under `serve --workers N` told to the other workers and theirs to
 * this one.
 */
function observe(options: GatewayOptions, config: GatewayConfig) {
  const consoleConfig = config.console ?? {
    enabled: true,
    recentCalls: 1000,
    recentCallsMaxAgeMs: 3_600_000,
  };
  const shared = options.sharedCalls;
  const operatorConsole: Console | undefined = consoleConfig.enabled
    ? createConsole({
        periscope: options.periscope,
        recentCalls: consoleConfig.recentCalls,
        recentCallsMaxAgeMs: consoleConfig.recentCallsMaxAgeMs,
        gauges: () => callGauges(metrics, options.sharedMetrics),
        ...(shared ? { lookup: (id: number) => shared.lookup(id) } : {}),
      })
    : undefined;
  shared?.answer((id) => {
    const call = operatorConsole?.recent.get(id);
    return call?.elsewhere ? undefined : call;
  });
  const metrics = createGatewayMetrics({
    maxConcurrentCalls: config.maxConcurrentCalls,
    maxQueuedCalls: config.maxQueuedCalls,
    ...(operatorConsole ? { onCall: recordCall(operatorConsole, shared) } : {}),
  });
  options.sharedMetrics?.answer(() => metrics.snapshot());
  return { metrics, operatorConsole };
}

function toGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const storeDown = (error as PeriscopeError).details?.reason === 'store-unavailable';
  return storeDown
    ? new GatewayError(503, 'UNAVAILABLE', `the state store is unavailable: ${message}`, {
        'retry-after': '5',
      })
    : new GatewayError(500, 'INTERNAL', `internal error: ${message}`);
}

/** The metrics' `onCall` with a console: recorded here, and told to the other workers when there are some. */
function recordCall(
  operatorConsole: { record(call: FinishedCall): void },
  shared: SharedCalls | undefined,
): (call: FinishedCall) => void {
  if (!shared) return operatorConsole.record;
  shared.subscribe((call) => operatorConsole.record(call));
  let count = 0;
  return (call) => {
    const numbered = { ...call, id: sharedCallId(shared.worker, count++) };
    operatorConsole.record(numbered);
    shared.publish(compactCall(numbered));
  };
}

/** Calls running and queued now: this worker's, plus the other workers' (their metrics' gauges) when there are some. */
async function callGauges(
  metrics: { inFlight: number; queued: number },
  shared: SharedMetrics | undefined,
): Promise<{ inFlight: number; queued: number }> {
  const gauges = { inFlight: metrics.inFlight, queued: metrics.queued };
  for (const other of (await shared?.gather()) ?? []) {
    gauges.inFlight += gaugeValue(other, 'periscope_tool_calls_in_flight');
    gauges.queued += gaugeValue(other, 'periscope_tool_calls_queued');
  }
  return gauges;
}

const gaugeValue = (snapshot: MetricsSnapshot, family: string): number =>
  Object.values(snapshot[family] ?? {}).reduce((sum, series) => sum + (series?.value ?? 0), 0);
