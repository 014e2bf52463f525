import { z } from 'zod';

const positiveMs = z.number().int().positive();

/** `periscope serve`: the HTTP gateway and the MCP Streamable HTTP endpoint. Every limit has a unit in its name. */
export const gatewaySchema = z
  .strictObject({
    /** Interface to bind. Anything but loopback needs at least one API key (`periscope keys create`). */
    host: z.string().min(1).default('127.0.0.1'),
    /** TCP port; 0 picks a free one. */
    port: z.number().int().min(0).max(65_535).default(7800),
    /** Largest request body. */
    maxBodyBytes: z.number().int().positive().default(1_048_576),
    /** Largest request head (request line and headers). */
    maxHeaderBytes: z.number().int().min(1024).default(16_384),
    /** Time a client has to send the request head. */
    headersTimeoutMs: positiveMs.default(10_000),
    /** Time a client has to send the whole request (head and body). */
    requestTimeoutMs: positiveMs.default(30_000),
    /** How long an idle keep-alive connection stays open. */
    keepAliveTimeoutMs: positiveMs.default(5_000),
    /** Open connections at most; more are refused. */
    maxConnections: z.number().int().positive().default(10_000),
    /** Tool calls (REST and MCP together) running at once; more wait in a FIFO queue. Each can hold a few MB. */
    maxConcurrentCalls: z.number().int().positive().default(64),
    /** Tool calls waiting for a free slot at most; past it a call is refused at once (503, `Retry-After: 1`). */
    maxQueuedCalls: z.number().int().min(0).default(1000),
    /** On SIGTERM/SIGINT: how long calls in flight may take to finish before connections are cut. */
    shutdownTimeoutMs: positiveMs.default(30_000),
    /** Failed authentications per client IP per minute before that IP gets 429 for the rest of the minute. */
    authFailuresPerMinute: z.number().int().positive().default(10),
    /** Extra Host names (with or without port) accepted on /mcp, e.g. the public name behind a reverse proxy. */
    allowedHosts: z.array(z.string().min(1)).default([]),
    /** Extra browser origins accepted on /mcp, e.g. `https://inspector.example.com`. */
    allowedOrigins: z.array(z.string().min(1)).default([]),
    /** The agent id calls run as when no API key exists (open loopback mode). */
    defaultAgent: z.string().min(1).max(128).default('default'),
  })
  .prefault({});

export type GatewayConfig = z.infer<typeof gatewaySchema>;
