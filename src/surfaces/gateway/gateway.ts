import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { GatewayConfig } from '../../config/gateway-schema.ts';
import type { EgressOptions } from '../../egress/egress-check.ts';
import { PeriscopeError } from '../../errors.ts';
import type { Periscope } from '../../index.ts';
import { listApiKeys } from '../../keys/api-keys.ts';
import { stageEnd, stageStart } from '../../stage-timing.ts';
import type { Store } from '../../store/store.ts';
import type { Tool } from '../../tools/tool.ts';
import { handleAdmin } from './admin-routes.ts';
import { createAuthenticator, type Principal } from './auth.ts';
import { createConsole } from './console-routes.ts';
import { createGatewayMetrics } from './gateway-metrics.ts';
import {
  checkHostAndOrigin,
  createHostPolicy,
  type HostPolicy,
  hostForUrl,
  isLoopbackHost,
} from './host-check.ts';
import { GatewayError, readJsonBody, sendError, sendJson, sendJsonText, sendText } from './http-io.ts';
import { acceptSockets, type Listening, listenOn } from './listeners.ts';
import type { MetricsSnapshot } from './metrics.ts';
import { buildOpenApi } from './openapi.ts';
import { compactCall, type FinishedCall, type RecentCall, sharedCallId } from './recent-calls.ts';
import { returnModeOf } from './return-mode.ts';
import { agentStatus } from './status-route.ts';
import { toolResultJson } from './tool-result-json.ts';

/** A Node request handler for MCP Streamable HTTP, mounted at /mcp. */
export type McpHandler = ((
  request: IncomingMessage,
  response: ServerResponse,
  parsedBody?: unknown,
) => unknown) & {
  close?: () => unknown;
};

/** Builds the /mcp handler once the gateway knows the address it serves on (for the Host/Origin lists). */
export type McpHandlerFactory = (context: {
  periscope: Periscope;
  hostPolicy: HostPolicy;
  /** The agent the authenticated request runs as. */
  agentOf: (request: IncomingMessage) => string | undefined;
  /** The egress narrowing of the request's key (its domains), if it has one. */
  egressOf: (request: IncomingMessage) => EgressOptions | undefined;
  /** Put before new MCP session ids: the worker that holds them (`GatewayOptions.peers`). */
  sessionIdPrefix?: string | undefined;
}) => McpHandler | Promise<McpHandler>;

/**
 * The other processes of `serve --workers N`: MCP sessions live in the process that opened them, and a client's
 * next connection may reach another one, which hands the request on to the holder over loopback.
 */
export interface GatewayPeers {
  /** This process's prefix of MCP session ids (`w1.`). */
  self: string;
  /** The loopback port of the process whose session ids start with `prefix`, if it is running. */
  portOf(prefix: string): number | undefined;
}

export interface GatewayOptions {
  periscope: Periscope;
  /** Where API keys live. Default: the Periscope's own store (`store.url`), shared with limits and credits. */
  store?: Store;
  /** Default: `periscope.config.gateway`. */
  config?: GatewayConfig;
  mcp?: McpHandlerFactory;
  /** The version /openapi.json names. */
  version?: string;
  /** Under `serve --workers N`: where the other workers' MCP sessions are. */
  peers?: GatewayPeers;
  /**
   * Under `serve --workers N`: the calls of the other workers, for the console (its tail, counts and fetch
   * health show every worker's calls), and where this worker's go.
   */
  sharedCalls?: SharedCalls;
  /** Under `serve --workers N`: the other workers' metrics, so that one scrape of /metrics shows them all. */
  sharedMetrics?: SharedMetrics;
  /**
   * How it listens (listeners.ts): `sockets` on the one port, default acceptSockets() (64 on Linux, where the
   * kernel deals new connections among them, so that a busy loop still takes many a turn; 1 elsewhere, and in a
   * node:cluster worker, which shares its primary's socket); `shared`:
   * the port is shared on purpose with the other workers of one `serve`, each on sockets of its own (decision 0010).
   */
  listen?: { sockets?: number; shared?: boolean };
}

/** The metrics of the processes of one `serve --workers N` (see serve-workers.ts). */
export interface SharedMetrics {
  /** The other workers' values now; those that do not answer in time are left out. */
  gather(): Promise<MetricsSnapshot[]>;
  /** Answers the other workers' `gather` with this worker's values. */
  answer(snapshot: () => MetricsSnapshot): void;
}

/** The finished calls of the processes of one `serve --workers N` (see serve-workers.ts). */
export interface SharedCalls {
  /** This worker's number (cluster worker id), part of its calls' ids. */
  worker: number;
  /** Tells the other workers of a call this worker ran (in brief: `compactCall`). */
  publish(call: FinishedCall): void;
  /** Calls the other workers ran, in brief. */
  subscribe(listener: (call: FinishedCall) => void): void;
  /** Call `id` whole, from the worker that ran it; undefined when none has it (aged out, worker gone) in time. */
  lookup(id: number): Promise<RecentCall | undefined>;
  /** Answers the other workers' lookups: this worker's own call `id`, if its console still holds it. */
  answer(find: (id: number) => RecentCall | undefined): void;
}

export interface Gateway {
  readonly server: Server;
  /** Binds; refuses (CONFIG_INVALID) a non-loopback host when there is no active API key. */
  listen(): Promise<{ url: string; host: string; port: number; keysRequired: boolean }>;
  /** Stops accepting, lets calls in flight finish (up to `shutdownTimeoutMs`), then cuts what is left. */
  close(): Promise<{ drained: boolean; inFlightAtStart: number }>;
  readonly metrics: ReturnType<typeof createGatewayMetrics>;
}

const SESSION_HEADER = 'periscope-session';
const CONSOLE_API = '/v1/admin/console/';
const CONSOLE_EVENTS = '/v1/admin/console/events';
const TASK_URLS_HEADER = 'periscope-task-urls';
/** URLs one Periscope-Task-Urls header may carry. */
const MAX_TASK_URLS = 100;

export function createGateway(options: GatewayOptions): Gateway {
  const { periscope } = options;
  const config = options.config ?? periscope.config.gateway;
  const consoleConfig = config.console ?? {
    enabled: true,
    recentCalls: 1000,
    recentCallsMaxAgeMs: 3_600_000,
  };
  const shared = options.sharedCalls;
  const operatorConsole = consoleConfig.enabled
    ? createConsole({
        periscope,
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
    ...(operatorConsole ? { onCall: recordCall(operatorConsole, options.sharedCalls) } : {}),
  });
  options.sharedMetrics?.answer(() => metrics.snapshot());
  const restTools = new Map<string, Tool>(
    periscope.tools.map((tool) => [tool.name, metrics.instrument(tool, 'rest')]),
  );
  // The console's playground: real calls as a chosen key, counted apart (surface `console`) so the tail tells them apart.
  const consoleTools = new Map<string, Tool>(
    periscope.tools.map((tool) => [tool.name, metrics.instrument(tool, 'console')]),
  );
  const principals = new WeakMap<IncomingMessage, Principal>();
  let store: Store | undefined;
  let answering = 0;
  const answered = new Set<() => void>();
  let authenticator: ReturnType<typeof createAuthenticator> | undefined;
  let hostPolicy: HostPolicy | undefined;
  let mcpHandler: McpHandler | undefined;
  let openApi: string | undefined;
  let closing: Promise<{ drained: boolean; inFlightAtStart: number }> | undefined;
  let listeners: Listening | undefined;

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
      handle(request, response).catch((error: unknown) => {
        sendError(response, toGatewayError(error), request);
      });
    },
  );

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const handled = stageStart();
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const route = routeName(path, restTools);
    response.on('finish', () => metrics.httpRequest(route, response.statusCode));
    // Answers being written: shutdown waits for them to reach the socket. GET /mcp and the console's events are
    // open-ended event streams.
    if (!(route === '/mcp' && request.method === 'GET') && path !== CONSOLE_EVENTS) {
      answering += 1;
      response.once('close', () => {
        answering -= 1;
        if (answering === 0) for (const wake of [...answered]) wake();
      });
    }
    if (closing && route !== '/healthz') {
      throw new GatewayError(
        503,
        'SHUTTING_DOWN',
        'the gateway is shutting down; retry on another instance',
        {
          connection: 'close',
          'retry-after': '1',
        },
      );
    }
    const auth = authenticator;
    const policy = hostPolicy;
    const state = store;
    if (!auth || !policy || !state) throw new GatewayError(503, 'UNAVAILABLE', 'the gateway is starting');
    const method = request.method ?? 'GET';

    if (path === '/healthz') {
      if (closing) throw new GatewayError(503, 'SHUTTING_DOWN', 'shutting down');
      sendJson(response, 200, { status: 'ok' });
      return;
    }
    if (path === '/openapi.json') {
      allow(method, 'GET');
      openApi ??= JSON.stringify(buildOpenApi(periscope.tools, options.version ?? '0.0.0'), null, 2);
      sendText(response, 200, openApi, 'application/json; charset=utf-8');
      return;
    }
    if (path === '/mcp' || path.startsWith('/mcp/')) {
      const refused = checkHostAndOrigin(policy, request.headers);
      if (refused) throw new GatewayError(403, 'MISDIRECTED', refused);
      const holder = peerHolding(request);
      if (holder !== undefined) {
        await handOn(request, response, holder); // the holder authenticates and counts it
        return;
      }
      principals.set(request, await auth.authenticate(request));
      if (!mcpHandler) throw new GatewayError(503, 'UNAVAILABLE', 'the MCP endpoint is not available');
      // The body limit holds here too: the gateway reads POST bodies and hands the parsed message on.
      const body = method === 'POST' ? await readMcpBody(request, config.maxBodyBytes) : undefined;
      if (body?.invalid) {
        sendJson(response, 400, { jsonrpc: '2.0', error: { code: -32700, message: body.invalid }, id: null });
        return;
      }
      await enforceKeyRate(principals.get(request) as Principal, toolCallsIn(body?.message));
      await mcpHandler(request, response, body?.message);
      return;
    }
    const consoleRoute = path === '/console' || path.startsWith('/console/') || path.startsWith(CONSOLE_API);
    if (consoleRoute) {
      if (!operatorConsole)
        throw new GatewayError(404, 'NOT_FOUND', 'the console is off (gateway.console.enabled)');
      // A browser surface: Host and Origin are checked whatever the key mode.
      const refused = checkHostAndOrigin(policy, request.headers);
      if (refused) throw new GatewayError(403, 'MISDIRECTED', refused);
      if (!path.startsWith(CONSOLE_API)) {
        operatorConsole.serveStatic(request, response, path);
        return;
      }
      const playAs = /^\/v1\/admin\/console\/as\/([^/]+)\/tools\/([^/]+)$/.exec(path);
      if (playAs?.[1] && playAs[2]) {
        const principal = await auth.authenticate(request);
        allow(method, 'POST');
        const as = operatorConsole.actAs(principal, playAs[1], await listApiKeys(state));
        await callTool(playAs[2], request, response, as, handled, consoleTools);
        return;
      }
      await operatorConsole.handleApi(request, response, path, await auth.authenticate(request));
      return;
    }
    // Open mode (no keys, loopback only) has no other defence against a rebinding page: check Host there too.
    if (!(await auth.keysRequired())) {
      const refused = checkHostAndOrigin(policy, request.headers);
      if (refused) throw new GatewayError(403, 'MISDIRECTED', refused);
    }
    const principal = await auth.authenticate(request);

    if (path === '/metrics') {
      allow(method, 'GET');
      const others = (await options.sharedMetrics?.gather()) ?? [];
      sendText(
        response,
        200,
        await metrics.render(periscope, others),
        'text/plain; version=0.0.4; charset=utf-8',
      );
      return;
    }
    if (path === '/v1/tools') {
      allow(method, 'GET');
      sendJson(response, 200, {
        tools: periscope.tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          inputSchema: tool.jsonSchema,
        })),
      });
      return;
    }
    const toolRoute = /^\/v1\/tools\/([^/]+)$/.exec(path);
    if (toolRoute?.[1]) {
      allow(method, 'POST');
      await callTool(toolRoute[1], request, response, principal, handled);
      return;
    }
    if (path === '/v1/status') {
      allow(method, 'GET');
      const query = new URL(request.url ?? '/', 'http://gateway').searchParams;
      sendJson(response, 200, await agentStatus({ periscope, principal, query }));
      return;
    }
    if (path.startsWith('/v1/admin/')) {
      await handleAdmin(request, response, path, {
        periscope,
        principal,
        maxBodyBytes: config.maxBodyBytes,
      });
      return;
    }
    throw new GatewayError(404, 'NOT_FOUND', `no route ${method} ${path}; see /openapi.json`);
  }

  async function callTool(
    name: string,
    request: IncomingMessage,
    response: ServerResponse,
    principal: Principal,
    handled: number,
    tools: ReadonlyMap<string, Tool> = restTools,
  ): Promise<void> {
    const tool = tools.get(name);
    if (!tool) {
      throw new GatewayError(
        404,
        'NOT_FOUND',
        `no tool '${name.slice(0, 64)}' here; tools: ${[...tools.keys()].join(', ') || 'none (all switched off)'}`,
      );
    }
    sessionOf(request, principal); // a malformed header is refused before the body is read
    const returnMode = returnModeOf(request);
    const taskUrls = taskUrlsOf(request);
    const input = await readJsonBody(request, config.maxBodyBytes);
    await enforceKeyRate(principal, 1);
    const abort = new AbortController();
    response.on('close', () => {
      if (!response.writableFinished) abort.abort(new PeriscopeError('ABORTED', 'the client went away'));
    });
    const sessionId = sessionOf(request, principal);
    const egress = withTaskUrls(keyEgress(principal), taskUrls);
    stageEnd('parse-auth', handled);
    const result = await tool.execute(input, {
      signal: abort.signal,
      agentId: principal.agent,
      ...(sessionId ? { sessionId } : {}),
      ...(egress ? { egress } : {}),
    });
    if (response.destroyed) return;
    // A call that never ran (gateway.maxQueuedCalls full, or shutdown while it waited) is the gateway's business.
    const refusal = metrics.refusal(result);
    const serialising = stageStart();
    const json = toolResultJson(result, returnMode);
    if (refusal === 'overloaded') sendJsonText(response, 503, json, { 'retry-after': '1' });
    else if (refusal === 'shutting-down')
      sendJsonText(response, 503, json, { 'retry-after': '1', connection: 'close' });
    else sendJsonText(response, 200, json);
    stageEnd('serialisation', serialising);
    stageEnd('call', handled);
  }

  /** The loopback port of another worker holding the request's MCP session, if one does. */
  function peerHolding(request: IncomingMessage): number | undefined {
    const peers = options.peers;
    const session = request.headers['mcp-session-id'];
    if (!peers || typeof session !== 'string') return undefined;
    const prefix = /^w\d+\./.exec(session)?.[0];
    if (prefix === undefined || prefix === peers.self) return undefined;
    return peers.portOf(prefix);
  }

  /** Relays the request to the worker holding its session, and its answer (an event stream too) back. */
  function handOn(request: IncomingMessage, response: ServerResponse, port: number): Promise<void> {
    return new Promise((resolve) => {
      // A connection of its own each time (loopback, cheap): no pooled socket the holder may be closing.
      const { connection: _connection, 'keep-alive': _keepAlive, ...headers } = request.headers;
      const upstream = httpRequest(
        { host: '127.0.0.1', port, method: request.method, path: request.url, headers, agent: false },
        (answer) => {
          const { connection: _closing, 'keep-alive': _alive, ...answered } = answer.headers;
          response.writeHead(answer.statusCode ?? 502, answered);
          answer.pipe(response);
          answer.on('end', resolve);
          answer.on('error', () => resolve());
        },
      );
      upstream.on('error', (error) => {
        // The holder is gone (and its sessions with it): the client starts a new session, as MCP says on 404.
        if (!response.headersSent) {
          const gone = { code: -32001, message: `Session not found (its worker is gone: ${error.message})` };
          sendJson(response, 404, { jsonrpc: '2.0', error: gone, id: null });
        } else response.destroy();
        resolve();
      });
      response.on('close', () => {
        if (!response.writableFinished) upstream.destroy();
        resolve();
      });
      request.pipe(upstream);
    });
  }

  /** A key's own `--rate`: the gateway's per-client limit, answered with 429 like the auth limit. */
  async function enforceKeyRate(principal: Principal, calls: number): Promise<void> {
    const rate = principal.key?.rate;
    if (!principal.key || !rate || !store || calls === 0) return;
    const amount = Math.min(calls, rate.limit);
    const taken = await store.consume(`gateway:rate:${principal.key.id}`, amount, rate.limit, rate.windowMs);
    if (!taken.allowed) {
      const seconds = Math.max(1, Math.ceil(taken.retryAfterMs / 1000));
      throw new GatewayError(
        429,
        'RATE_LIMITED',
        `this key may make ${rate.limit} calls per ${rate.windowMs / 1000} s; try again in ${seconds} s`,
        { 'retry-after': String(seconds) },
      );
    }
  }

  return {
    server,
    metrics,
    async listen() {
      store = options.store ?? (await periscope.store());
      const activeKeys = (await listApiKeys(store)).filter((key) => !key.revokedAt).length;
      if (!isLoopbackHost(config.host) && activeKeys === 0) {
        throw new PeriscopeError(
          'CONFIG_INVALID',
          `refusing to bind ${config.host} without API keys: create one with 'periscope keys create --agent NAME', or bind 127.0.0.1`,
        );
      }
      authenticator = createAuthenticator({
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
      hostPolicy = createHostPolicy({
        host: config.host,
        port,
        extraHosts: config.allowedHosts,
        extraOrigins: config.allowedOrigins,
      });
      if (options.mcp) {
        mcpHandler = await options.mcp({
          periscope: metrics.instrumentPeriscope(periscope, 'mcp'),
          hostPolicy,
          agentOf: (request) => principals.get(request)?.agent,
          egressOf: (request) => keyEgress(principals.get(request)),
          sessionIdPrefix: options.peers?.self,
        });
      }
      const keysRequired = await authenticator.keysRequired();
      return { url: `http://${hostForUrl(config.host)}:${port}`, host: config.host, port, keysRequired };
    },
    close() {
      closing ??= drain();
      return closing;
    },
  };

  async function drain(): Promise<{ drained: boolean; inFlightAtStart: number }> {
    const inFlightAtStart = metrics.inFlight;
    metrics.closeQueue(); // calls that never started are answered now, not after the running ones
    operatorConsole?.closeStreams();
    const closed = Promise.all([
      new Promise<void>((resolve) => server.close(() => resolve())),
      listeners?.close(),
    ]);
    server.closeIdleConnections();
    let timer: NodeJS.Timeout | undefined;
    const answersSent = new Promise<void>((resolve) => {
      if (answering === 0) return resolve();
      const wake = () => {
        answered.delete(wake);
        resolve();
      };
      answered.add(wake);
    });
    const drained = await Promise.race([
      Promise.all([metrics.idle(), answersSent]).then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), config.shutdownTimeoutMs);
      }),
    ]);
    clearTimeout(timer);
    await mcpHandler?.close?.(); // MCP sessions and their event streams
    server.closeAllConnections();
    await closed;
    return { drained, inFlightAtStart };
  }
}

/**
 * A key's own egress narrowing (`keys create --allow-domain/--block-domain`, its session budget
 * `--session-max-calls/--session-max-credits`): narrows the deployment's.
 */
function keyEgress(principal: Principal | undefined): EgressOptions | undefined {
  const domains = principal?.key?.domains;
  const budget = principal?.key?.session;
  if (!domains && !budget) return undefined;
  return { ...(domains ? { domains } : {}), ...(budget ? { budget } : {}) };
}

/**
 * The repeat throttle's session for a REST call: the `Periscope-Session` header, within the caller's agent. Without
 * the header there is none: each call is its own session, which the throttle can never refuse, so it is not
 * checked (and writes nothing to the store).
 */
function sessionOf(request: IncomingMessage, principal: Principal): string | undefined {
  const session = request.headers[SESSION_HEADER];
  if (session === undefined) return undefined;
  if (typeof session !== 'string' || !/^[\w.:-]{1,128}$/.test(session)) {
    throw new GatewayError(
      400,
      'BAD_REQUEST',
      'the Periscope-Session header must be 1–128 letters, digits or . _ : - (one id per conversation turn)',
    );
  }
  return `${principal.agent}/${session}`;
}

/** A key's egress options with the request's task URLs, or undefined when there is neither. */
function withTaskUrls(
  egress: EgressOptions | undefined,
  taskUrls: string[] | undefined,
): EgressOptions | undefined {
  if (taskUrls === undefined) return egress;
  return { ...egress, seenUrls: taskUrls };
}

/**
 * The task's own URLs for egress.seenUrlsOnly: the `Periscope-Task-Urls` header, http(s) URLs separated by spaces
 * (the header may repeat). The client sets it — the program that holds the user's task, never the model — and
 * web_fetch may then read those URLs; with a Periscope-Session they join the session's seen URLs.
 */
function taskUrlsOf(request: IncomingMessage): string[] | undefined {
  const values = request.headersDistinct[TASK_URLS_HEADER];
  if (values === undefined) return undefined;
  const urls = values.flatMap((value) => value.split(/\s+/)).filter((url) => url !== '');
  const bad = urls.find((url) => !/^https?:\/\/\S+$/i.test(url) || !URL.canParse(url));
  if (bad !== undefined || urls.length > MAX_TASK_URLS) {
    throw new GatewayError(
      400,
      'BAD_REQUEST',
      `the Periscope-Task-Urls header must be at most ${MAX_TASK_URLS} absolute http(s) URLs separated by spaces`,
    );
  }
  return urls;
}

/** A POST to /mcp: its JSON-RPC message, or why it is not one (answered as a JSON-RPC parse error). */
async function readMcpBody(
  request: IncomingMessage,
  maxBytes: number,
): Promise<{ message?: unknown; invalid?: string }> {
  try {
    return { message: await readJsonBody(request, maxBytes) };
  } catch (error) {
    if (error instanceof GatewayError && error.code === 'BAD_REQUEST')
      return { invalid: `Parse error: ${error.message}` };
    throw error;
  }
}

/** How many `tools/call` requests a JSON-RPC message (or batch) holds: what a key's rate counts on /mcp. */
function toolCallsIn(message: unknown): number {
  const messages = Array.isArray(message) ? message : [message];
  return messages.filter((item) => (item as { method?: unknown } | null)?.method === 'tools/call').length;
}

function allow(method: string, expected: string): void {
  if (method !== expected) {
    throw new GatewayError(405, 'METHOD_NOT_ALLOWED', `use ${expected} here`, { allow: expected });
  }
}

/** Route label for metrics: fixed names, never raw paths (bounded cardinality). */
function routeName(path: string, tools: ReadonlyMap<string, unknown>): string {
  if (path.startsWith('/v1/tools/')) return tools.has(path.slice(10)) ? path : 'other';
  if (path.startsWith(CONSOLE_API)) return '/v1/admin/console';
  if (path.startsWith('/v1/admin/')) return '/v1/admin';
  if (path === '/console' || path.startsWith('/console/')) return '/console';
  if (path === '/mcp' || path.startsWith('/mcp/')) return '/mcp';
  return ['/v1/tools', '/v1/status', '/healthz', '/metrics', '/openapi.json'].includes(path) ? path : 'other';
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
