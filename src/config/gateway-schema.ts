import { z } from 'zod';

const positiveMs = z.number().int().positive();

/** `periscope serve`: the HTTP gateway and the MCP Streamable HTTP endpoint. Every limit has a unit in its name. */
export const gatewaySchema = z
  .strictObject({
    host: z
      .string()
      .min(1)
      .default('127.0.0.1')
      .describe(
        'Interface to bind. Anything but loopback needs at least one API key (`periscope keys create`).',
      ),
    port: z.number().int().min(0).max(65_535).default(7800).describe('TCP port; 0 picks a free one.'),
    maxBodyBytes: z.number().int().positive().default(1_048_576).describe('Largest request body, in bytes.'),
    maxHeaderBytes: z
      .number()
      .int()
      .min(1024)
      .default(16_384)
      .describe('Largest request head (request line and headers), in bytes.'),
    headersTimeoutMs: positiveMs
      .default(10_000)
      .describe('Time a client has to send the request head, in ms.'),
    requestTimeoutMs: positiveMs
      .default(30_000)
      .describe('Time a client has to send the whole request (head and body), in ms.'),
    keepAliveTimeoutMs: positiveMs
      .default(5_000)
      .describe('How long an idle keep-alive connection stays open, in ms.'),
    maxConnections: z
      .number()
      .int()
      .positive()
      .default(10_000)
      .describe('Open connections at most; more are refused.'),
    maxConcurrentCalls: z
      .number()
      .int()
      .positive()
      .default(64)
      .describe(
        'Tool calls (REST and MCP together) running at once; more wait in a FIFO queue. Each can hold a few MB.',
      ),
    maxQueuedCalls: z
      .number()
      .int()
      .min(0)
      .default(1000)
      .describe(
        'Tool calls waiting for a free slot at most; past it a call is refused at once (503 with `Retry-After: 1`; MCP: an error result).',
      ),
    shutdownTimeoutMs: positiveMs
      .default(30_000)
      .describe(
        'On SIGTERM/SIGINT: how long calls in flight may take to finish before connections are cut, in ms.',
      ),
    authFailuresPerMinute: z
      .number()
      .int()
      .positive()
      .default(10)
      .describe(
        'Failed authentications per client IP per minute, counted in the store across workers and instances, before that IP gets 429 until the oldest of them is a minute old.',
      ),
    allowedHosts: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'Extra Host names (with or without port) accepted on /mcp, e.g. the public name behind a reverse proxy.',
      ),
    allowedOrigins: z
      .array(z.string().min(1))
      .default([])
      .describe('Extra browser origins accepted on /mcp, e.g. `https://inspector.example.com`.'),
    defaultAgent: z
      .string()
      .min(1)
      .max(128)
      .default('default')
      .describe('The agent id calls run as when no API key exists (open loopback mode).'),
    console: z
      .strictObject({
        enabled: z
          .boolean()
          .default(true)
          .describe(
            'Serve the operator console at `/console` (admin keys only; open loopback mode when no key exists). `false`: `/console` and its API answer 404 and no recent calls or overview counts are kept.',
          ),
        recentCalls: z
          .number()
          .int()
          .min(0)
          .max(100_000)
          .default(1000)
          .describe(
            "Recent tool calls kept in memory for the console's live tail and call details (a ring buffer; 0 keeps none). The overview's per-minute counts (one day) are kept apart and count every call.",
          ),
        recentCallsMaxAgeMs: positiveMs
          .default(3_600_000)
          .describe('Recent calls older than this are dropped from the ring buffer, in ms.'),
      })
      .prefault({})
      .describe(
        'The operator console (`/console`): whether it is served and how many recent calls it keeps.',
      ),
  })
  .prefault({})
  .describe(
    '`periscope serve`: the HTTP gateway and MCP over HTTP (`/mcp`): bind address, request limits, queueing.',
  );

export type GatewayConfig = z.infer<typeof gatewaySchema>;
