import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayConfig } from '../../config/gateway-schema.ts';
import type { Periscope } from '../../index.ts';
import type { Store } from '../../store/store.ts';
import type { Tool } from '../../tools/tool.ts';
import type { Authenticator, Principal } from './auth.ts';
import type { GatewayMetrics } from './gateway-metrics.ts';
import type { GatewayPeers, McpHandler, SharedMetrics } from './gateway-types.ts';
import type { HostPolicy } from './host-check.ts';
import type { Console } from './operator-console.ts';
import type { HeaderName, RequestHeaders } from './request-headers.ts';

/**
 * One entry of the gateway's route table (routes.ts): a method and a path pattern (find-my-way's: `:name` is one
 * segment, `*` the rest), the steps the router applies before its handler, what /openapi.json says of it, and the
 * handler. The steps run in this order: shutdown, Host/Origin, relay, authentication and access, run-as, headers,
 * body, the key's own rate; each is declared here, beside the route, and nowhere else.
 */
export interface Route {
  method: Method | readonly Method[];
  path: string;
  /** Its label on periscope_http_requests_total: the path pattern unless given (a bounded set either way). */
  label?: string;
  /**
   * Who may call it. `public`: anyone, no key read. `agent`: any principal (a key's agent, or open mode's default
   * agent). `admin`: an admin key. `operator`: an admin key, or open mode (no keys, loopback only): the console.
   */
  access: Access;
  /**
   * Host and Origin against DNS rebinding. `always`: browser surfaces (the console) and /mcp, whatever the key mode.
   * `open-mode`: only while no key exists (there is no key then to stop a rebinding page). `never`: health checks.
   */
  hostCheck: 'always' | 'open-mode' | 'never';
  /**
   * Whom the call runs as, when that is not the authenticated principal (the console's playground: the key it
   * names). Its headers, the key's own rate and the handler then see this principal.
   */
  runAs?: (call: Call, gateway: GatewayServices) => Promise<Principal>;
  /** The request headers it reads, parsed and checked before the body is read (request-headers.ts). */
  headers?: readonly HeaderName[];
  /** Its body: `json` (application/json, at most gateway.maxBodyBytes), `json-rpc` (the same, a parse error answered as JSON-RPC). */
  body?: 'json' | 'json-rpc';
  /** Calls it makes against the key's own `--rate` (a tool call 1; a POST to /mcp its `tools/call` messages). */
  rateCost?: (body: unknown) => number;
  /** An open-ended answer (an event stream): shutdown ends it rather than waiting for it. */
  stream?: boolean;
  /** MCP: a request for a session another worker holds is handed on to it before anything else is read. */
  relay?: boolean;
  /**
   * What /openapi.json says of it (openapi.ts adds the security, the header and path parameters and the gateway's
   * own error answers), or why it is left out.
   */
  doc: RouteDoc | { undocumented: string };
  handle(call: Call, gateway: GatewayServices): Promise<void> | void;
}

export type Method = 'GET' | 'HEAD' | 'POST' | 'PATCH' | 'DELETE';

export type Access = 'public' | 'agent' | 'admin' | 'operator';

/** An OpenAPI operation, less what the route's steps say for themselves. */
export interface RouteDoc {
  operationId: string;
  summary: string;
  description?: string;
  tags: readonly string[];
  /** The request body's schema, when it has one. */
  requestBody?: Record<string, unknown>;
  /** Answers other than the gateway's own errors (401, 403, 405, 413, 415, 429, 431, 503 are added by step). */
  responses: Record<string, unknown>;
}

/** One request on its way through the steps to the handler. */
export interface Call {
  request: IncomingMessage;
  response: ServerResponse;
  /** The path parameters of the route's pattern. */
  params: Readonly<Record<string, string | undefined>>;
  /** The query string's parameters. */
  query: URLSearchParams;
  /** Who it runs as (`runAs`, else the authenticated principal; open mode's default agent on `public` routes). */
  principal: Principal;
  /** The declared headers, parsed. */
  headers: RequestHeaders;
  /** The parsed body, for a route with one. */
  body: unknown;
  /** When the gateway took the request (stage timing). */
  started: number;
}

/** What the handlers share: one per gateway, whole once it listens. */
export interface GatewayServices {
  periscope: Periscope;
  config: GatewayConfig;
  store: Store;
  authenticator: Authenticator;
  hostPolicy: HostPolicy;
  metrics: GatewayMetrics;
  /** The operator console, unless gateway.console.enabled is false. */
  console: Console | undefined;
  /** /mcp, when the gateway was given an MCP handler. */
  mcp: McpHandler | undefined;
  /** The tools as REST calls them (counted as surface `rest`) and as the console's playground does (`console`). */
  restTools: ReadonlyMap<string, Tool>;
  consoleTools: ReadonlyMap<string, Tool>;
  /** The principal of each /mcp request, for the MCP handler's `agentOf`. */
  principals: WeakMap<IncomingMessage, Principal>;
  peers: GatewayPeers | undefined;
  sharedMetrics: SharedMetrics | undefined;
  /** The version /openapi.json names. */
  version: string;
  /** The route table, for /openapi.json. */
  routes: readonly Route[];
  /** Whether shutdown has begun. */
  closing(): boolean;
}
