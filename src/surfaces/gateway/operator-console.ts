import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Periscope } from '../../index.ts';
import { createCallStats } from './call-stats.ts';
import { createFetchHealth } from './fetch-health.ts';
import { createRecentCalls, type FinishedCall, outcomeOf, type RecentCall } from './recent-calls.ts';

/** What the console's pages may load: their own files, nothing inline, no frames, no forms, no plug-ins. */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'none'; object-src 'none'";

/** Sent with every console file and console API answer. */
export const SECURITY_HEADERS = {
  'content-security-policy': CONSOLE_CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** Calls an event stream sends first (the newest), before the live ones. */
const BACKLOG = 200;
/** Bytes an event stream may have waiting for a slow reader before it is closed. */
const MAX_UNSENT_BYTES = 1_048_576;
/** A comment line this often keeps proxies from closing an idle stream. */
const HEARTBEAT_MS = 15_000;

/**
 * What the operator console keeps (its routes are in routes/console-*.ts): the recent calls with their input and
 * result, per-minute counts, how calls met each fetch back-end, and the open event streams of its live tail.
 */
export function createConsole(context: {
  periscope: Periscope;
  /** `gateway.console.recentCalls` and `recentCallsMaxAgeMs`. */
  recentCalls: number;
  recentCallsMaxAgeMs: number;
  /** Calls running and queued now (under `serve --workers N`: in every worker). */
  gauges: () => Promise<{ inFlight: number; queued: number }>;
  /** Under `serve --workers N`: another worker's call whole, from that worker (SharedCalls.lookup). */
  lookup?: (id: number) => Promise<RecentCall | undefined>;
}) {
  const streams = new Set<ServerResponse>();
  const recent = createRecentCalls({ capacity: context.recentCalls, maxAgeMs: context.recentCallsMaxAgeMs });
  const stats = createCallStats();
  const fetchHealth = createFetchHealth();

  return {
    recent,
    stats,
    fetchHealth,
    gauges: context.gauges,
    /** Call `id` whole: this worker's, or (under `serve --workers N`) from the worker that ran it. */
    async call(id: number): Promise<RecentCall | undefined> {
      const call = recent.get(id);
      // Another worker's call is here in brief: that worker has it whole (its brief, if it cannot tell in time).
      const whole = call?.elsewhere && context.lookup ? await context.lookup(id) : undefined;
      return whole ?? call;
    },
    /** Every call that ran, at its end (the gateway metrics' `onCall`): the tail, the counts, the fetch health. */
    record(call: FinishedCall): void {
      recent.add(call);
      stats.add({ time: Date.now(), ms: call.ms, ...outcomeOf(call.result) });
      fetchHealth.add(call.tool, call.result);
    },
    /** The live tail: server-sent events, each recent call as it ends, resumed after `Last-Event-ID`. */
    openStream(request: IncomingMessage, response: ServerResponse): void {
      const lastId = Number(request.headers['last-event-id'] ?? 0);
      const after = Number.isSafeInteger(lastId) && lastId > 0 ? lastId : 0;
      response.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
        ...SECURITY_HEADERS,
      });
      response.flushHeaders();
      const send = (call: RecentCall) => {
        // A reader that stopped reading is cut off rather than buffered for: it reconnects with Last-Event-ID.
        if (response.writableLength > MAX_UNSENT_BYTES) {
          response.destroy();
          return;
        }
        response.write(`id: ${call.id}\nevent: call\ndata: ${JSON.stringify(callSummary(call))}\n\n`);
      };
      response.write('retry: 2000\n\n');
      for (const call of recent.list(after).slice(-BACKLOG)) send(call);
      const unsubscribe = recent.subscribe(send);
      const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), HEARTBEAT_MS);
      heartbeat.unref();
      streams.add(response);
      response.once('close', () => {
        clearInterval(heartbeat);
        unsubscribe();
        streams.delete(response);
      });
    },
    /** Shutdown: ends every open event stream. */
    closeStreams(): void {
      for (const stream of streams) stream.end();
      streams.clear();
    },
    get openStreams() {
      return streams.size;
    },
  };
}

export type Console = ReturnType<typeof createConsole>;

/** A call without its input and result: what the tail shows and the event stream sends. */
export function callSummary(call: RecentCall): Omit<RecentCall, 'input' | 'result'> {
  const { input: _input, result: _result, ...rest } = call;
  return rest;
}
