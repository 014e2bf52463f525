import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { EgressOptions } from '../../egress/egress-check.ts';
import type { Periscope } from '../../index.ts';
import { selectTools, splitToolList } from './select-tools.ts';
import type { McpServerOptions } from './server.ts';

export interface McpHttpOptions {
  /**
   * The agent a session acts as (limits, credits): a fixed id, or read from the authenticated request (the
   * gateway's API key). A session stays bound to the agent that opened it; requests of another agent get 404.
   * Default: `mcp.agentId` from the config.
   */
  sessionAgent?: string | ((request: IncomingMessage) => string | undefined);
  /**
   * The egress narrowing a session's calls run under (the gateway key's domains), read from the request that
   * opens it; a request with another narrowing gets 404 for that session, as one of another agent does.
   */
  sessionEgress?: (request: IncomingMessage) => EgressOptions | undefined;
  /**
   * Host header names accepted (DNS-rebinding guard), with or without a port; `*` accepts any.
   * Default: `localhost`, `127.0.0.1`, `[::1]`.
   */
  allowedHosts?: readonly string[];
  /** Browser origins accepted besides the server's own (same scheme, host and port as the Host header). */
  allowedOrigins?: readonly string[];
  /** Tools offered (default `mcp.tools`, else every enabled tool); a client narrows it with `/mcp?tools=a,b`. */
  tools?: readonly string[] | null;
  /** Open sessions at most; initialising another answers 503. Default 1000. */
  maxSessions?: number;
  /** A session with no request for this long is closed. Default 30 minutes. */
  sessionIdleMs?: number;
  onResult?: McpServerOptions['onResult'];
  /** Put before each new session id (`w2.` under `serve --workers`: the worker that holds the session). */
  sessionIdPrefix?: string;
}

/** A Node `(request, response)` handler for MCP Streamable HTTP; mount it at `/mcp`. */
export interface McpHttpHandler {
  (request: IncomingMessage, response: ServerResponse, parsedBody?: unknown): Promise<void>;
  /** Sessions open now. */
  readonly sessionCount: number;
  /** Close every session (graceful shutdown). */
  close(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  close: () => Promise<void>;
  agentId: string;
  /** The egress narrowing it was opened with, as JSON (compared on every request). */
  egressKey: string;
  lastSeen: number;
}

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/**
 * MCP over Streamable HTTP: one MCP session per `Mcp-Session-Id`, each its own Periscope session (the repeat
 * throttle scope is the MCP session id). The SDK loads on the first request.
 */
export function createMcpHttpHandler(periscope: Periscope, options: McpHttpOptions = {}): McpHttpHandler {
  const sessions = new Map<string, Session>();
  const allowedHosts = options.allowedHosts ?? LOOPBACK_HOSTS;
  const allowedOrigins = options.allowedOrigins ?? [];
  const maxSessions = options.maxSessions ?? 1000;
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const offered = selectTools(
    periscope.tools,
    options.tools ?? periscope.config.mcp.tools,
    'mcp.tools',
  ).tools;
  const sweeper = setInterval(() => void sweep(), Math.min(idleMs, 60_000));
  sweeper.unref();

  function agentOf(request: IncomingMessage): string {
    const agent = options.sessionAgent;
    const fromRequest = typeof agent === 'function' ? agent(request) : agent;
    return fromRequest ?? periscope.config.mcp.agentId;
  }

  async function sweep() {
    const now = Date.now();
    for (const [id, session] of sessions) if (now - session.lastSeen > idleMs) await drop(id);
  }

  async function drop(id: string) {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    await session.close().catch(() => {});
  }

  async function handle(request: IncomingMessage, response: ServerResponse, parsedBody?: unknown) {
    const refusal = checkHostAndOrigin(request, allowedHosts, allowedOrigins);
    if (refusal) return reply(response, 403, refusal);
    const agentId = agentOf(request);
    const egress = options.sessionEgress?.(request);
    const egressKey = JSON.stringify(egress ?? null);
    const sessionId = request.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (!session || session.agentId !== agentId || session.egressKey !== egressKey)
        return reply(response, 404, 'Session not found', -32001);
      session.lastSeen = Date.now();
      await session.transport.handleRequest(request, response, parsedBody);
      return;
    }
    if (request.method !== 'POST')
      return reply(response, 400, 'Bad Request: Mcp-Session-Id header is required');
    if (sessions.size >= maxSessions) return reply(response, 503, 'Too many MCP sessions; try again later');
    await openSession(request, response, parsedBody, { agentId, egress, egressKey });
  }

  /** A POST without a session id: an initialize request opens a session; anything else the SDK refuses. */
  async function openSession(
    request: IncomingMessage,
    response: ServerResponse,
    parsedBody: unknown,
    principal: { agentId: string; egress: EgressOptions | undefined; egressKey: string },
  ) {
    const { agentId, egress, egressKey } = principal;
    let tools = offered;
    const asked = new URL(request.url ?? '/', 'http://mcp').searchParams.get('tools');
    if (asked !== null) {
      try {
        const selection = selectTools(offered, splitToolList(asked), 'the tools parameter');
        tools = selection.tools;
      } catch (error) {
        return reply(response, 400, `Bad Request: ${(error as Error).message}`);
      }
    }
    const [{ StreamableHTTPServerTransport }, { createMcpServer }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
      import('./server.ts'),
    ]);
    const server = createMcpServer({
      tools,
      agentId,
      ...(egress ? { egress } : {}),
      ...(options.onResult ? { onResult: options.onResult } : {}),
    });
    const close = () => server.close();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => `${options.sessionIdPrefix ?? ''}${randomUUID()}`,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, close, agentId, egressKey, lastSeen: Date.now() });
      },
      onsessionclosed: (id) => drop(id),
    });
    server.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(request, response, parsedBody);
    if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) await close();
  }

  const handler = async (request: IncomingMessage, response: ServerResponse, parsedBody?: unknown) => {
    try {
      await handle(request, response, parsedBody);
    } catch (error) {
      if (!response.headersSent) reply(response, 500, `Internal error: ${(error as Error).message}`, -32603);
      else response.end();
    }
  };
  Object.defineProperty(handler, 'sessionCount', { get: () => sessions.size });
  return Object.assign(handler, {
    close: async () => {
      clearInterval(sweeper);
      await Promise.all([...sessions.keys()].map(drop));
    },
  }) as McpHttpHandler;
}

/** Why the request is refused (DNS rebinding of this server, a foreign web page), or undefined. */
export function checkHostAndOrigin(
  request: IncomingMessage,
  allowedHosts: readonly string[],
  allowedOrigins: readonly string[],
): string | undefined {
  const host = request.headers.host?.toLowerCase();
  if (!host) return 'Forbidden: missing Host header';
  if (!allowedHosts.includes('*') && !hostAllowed(host, allowedHosts)) {
    return `Forbidden: Host ${host} is not allowed`;
  }
  const origin = request.headers.origin;
  if (origin === undefined) return undefined;
  if (allowedOrigins.includes(origin)) return undefined;
  if (sameOrigin(origin, host)) return undefined;
  return `Forbidden: Origin ${origin} is not allowed`;
}

function hostAllowed(host: string, allowed: readonly string[]): boolean {
  const name = host.replace(/:\d+$/, '');
  return allowed.some((entry) => {
    const lower = entry.toLowerCase();
    return lower === host || lower === name;
  });
}

function sameOrigin(origin: string, host: string): boolean {
  try {
    const parsed = new URL(origin);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.host === host;
  } catch {
    return false;
  }
}

function reply(response: ServerResponse, status: number, message: string, code = -32000): void {
  response
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
