import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { GatewayConfig } from '../../config/gateway-schema.ts';
import type { EgressOptions } from '../../egress/egress-check.ts';
import type { Periscope } from '../../index.ts';
import type { Store } from '../../store/store.ts';
import type { GatewayMetrics } from './gateway-metrics.ts';
import type { HostPolicy } from './host-check.ts';
import type { MetricsSnapshot } from './metrics.ts';
import type { FinishedCall, RecentCall } from './recent-calls.ts';

// The gateway's shapes as its callers see them (serve, serve --workers, the tests): what createGateway takes and gives.

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
  readonly metrics: GatewayMetrics;
}
