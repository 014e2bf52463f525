import { readdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, sep } from 'node:path';
import type { Periscope } from '../../index.ts';
import type { ApiKeyRecord } from '../../keys/api-keys.ts';
import type { Principal } from './auth.ts';
import { createCallStats, type StatsWindow, WINDOWS } from './call-stats.ts';
import { createFetchHealth } from './fetch-health.ts';
import { GatewayError, sendJson } from './http-io.ts';
import { createRecentCalls, type FinishedCall, outcomeOf, type RecentCall } from './recent-calls.ts';

/** What the console's pages may load: their own files, nothing inline, no frames, no forms, no plug-ins. */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'none'; object-src 'none'";

const SECURITY_HEADERS = {
  'content-security-policy': CONSOLE_CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

const HTML = 'text/html; charset=utf-8';
const CONTENT_TYPES: Record<string, string> = {
  '.html': HTML,
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

const FOLDER = new URL('./console/', import.meta.url);
/**
 * The console's files by URL path, listed once at load: its page at `/console`, and every .html, .js and .css under
 * `console/` (its ES modules import each other by relative URL: a new module is served without being named here).
 */
const FILES = new Map<string, { name: string; type: string }>([
  ['/console', { name: 'index.html', type: HTML }],
  ['/console/', { name: 'index.html', type: HTML }],
]);
for (const found of readdirSync(FOLDER, { recursive: true, encoding: 'utf8' })) {
  const name = found.split(sep).join('/');
  const type = CONTENT_TYPES[extname(name)];
  if (type) FILES.set(`/console/${name}`, { name, type });
}

/** Calls an event stream sends first (the newest), before the live ones. */
const BACKLOG = 200;
/** Bytes an event stream may have waiting for a slow reader before it is closed. */
const MAX_UNSENT_BYTES = 1_048_576;
/** A comment line this often keeps proxies from closing an idle stream. */
const HEARTBEAT_MS = 15_000;

/**
 * The operator console: its static files under `/console` (no build step, no CDN) and its API under
 * `/v1/admin/console/` — `events` (server-sent events: each recent call as it ends), `calls/{id}` (one call with
 * its input and result as the model saw it), `overview?window=hour|day` (per-minute counts of the last hour or
 * day, in-flight and queued calls), `fetch-chain` (the web_fetch back-ends in order, with how calls met them) and
 * `as/{keyId}/tools/{tool}` (the playground, run by the gateway through `actAs`). The API needs an admin key, or
 * open mode (no keys, loopback only); the gateway checks Host and Origin first.
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
  const files = new Map<string, Buffer>();
  const streams = new Set<ServerResponse>();
  const recent = createRecentCalls({ capacity: context.recentCalls, maxAgeMs: context.recentCallsMaxAgeMs });
  const stats = createCallStats();
  const fetchHealth = createFetchHealth();

  function file(name: string): Buffer {
    let body = files.get(name);
    if (!body) {
      body = readFileSync(new URL(name, FOLDER));
      files.set(name, body);
    }
    return body;
  }

  function requireAdmin(principal: Principal): void {
    if (!principal.admin && principal.key) {
      throw new GatewayError(
        403,
        'FORBIDDEN',
        'the console needs an admin key (periscope keys create --admin)',
      );
    }
  }

  return {
    recent,
    /** Every call that ran, at its end (the gateway metrics' `onCall`): the tail, the counts, the fetch health. */
    record(call: FinishedCall): void {
      recent.add(call);
      stats.add({ time: Date.now(), ms: call.ms, ...outcomeOf(call.result) });
      fetchHealth.add(call.tool, call.result);
    },
    isStatic: (path: string) => FILES.has(path),
    /**
     * The playground's "run as": the principal a real call with key `keyId` would run as (its agent, its rate, its
     * domains and session budget), for an admin (or open mode). A revoked or unknown key is refused: a call with it
     * would be.
     */
    actAs(principal: Principal, keyId: string, keys: readonly ApiKeyRecord[]): Principal {
      requireAdmin(principal);
      const key = keys.find((record) => record.id === keyId);
      if (!key) throw new GatewayError(404, 'NOT_FOUND', `no key ${keyId.slice(0, 64)}; see /v1/admin/keys`);
      if (key.revokedAt) {
        throw new GatewayError(
          400,
          'BAD_REQUEST',
          `key ${key.id} was revoked (its calls are refused); pick an active key`,
        );
      }
      return { agent: key.agent, admin: key.admin, key };
    },
    /** GET a console file, with the console's Content-Security-Policy. */
    serveStatic(request: IncomingMessage, response: ServerResponse, path: string): void {
      const entry = FILES.get(path);
      if (!entry) throw new GatewayError(404, 'NOT_FOUND', `no console file ${path}`);
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        throw new GatewayError(405, 'METHOD_NOT_ALLOWED', 'use GET here', { allow: 'GET, HEAD' });
      }
      const body = file(entry.name);
      response.writeHead(200, {
        'content-type': entry.type,
        'content-length': String(body.length),
        'cache-control': 'no-cache',
        ...SECURITY_HEADERS,
      });
      response.end(request.method === 'HEAD' ? undefined : body);
    },
    /** `/v1/admin/console/*`, for a principal the gateway has authenticated. */
    async handleApi(
      request: IncomingMessage,
      response: ServerResponse,
      path: string,
      principal: Principal,
    ): Promise<void> {
      requireAdmin(principal);
      if (request.method !== 'GET') {
        throw new GatewayError(405, 'METHOD_NOT_ALLOWED', 'use GET here', { allow: 'GET' });
      }
      if (path === '/v1/admin/console/events') {
        openStream(request, response);
        return;
      }
      if (path === '/v1/admin/console/calls') {
        sendJson(response, 200, { calls: recent.list().map(summary) }, SECURITY_HEADERS);
        return;
      }
      const callRoute = /^\/v1\/admin\/console\/calls\/(\d{1,16})$/.exec(path);
      if (callRoute?.[1]) {
        const id = Number(callRoute[1]);
        const call = recent.get(id);
        if (!call) throw new GatewayError(404, 'NOT_FOUND', 'no such recent call (it may have aged out)');
        // Another worker's call is here in brief: that worker has it whole (its brief, if it cannot tell in time).
        const whole = call.elsewhere && context.lookup ? await context.lookup(id) : undefined;
        sendJson(response, 200, whole ?? call, SECURITY_HEADERS);
        return;
      }
      if (path === '/v1/admin/console/overview') {
        const asked = new URL(request.url ?? '/', 'http://console').searchParams.get('window') ?? 'hour';
        if (!(asked in WINDOWS)) {
          throw new GatewayError(
            400,
            'BAD_REQUEST',
            `window must be one of: ${Object.keys(WINDOWS).join(', ')}`,
          );
        }
        const gauges = await context.gauges();
        sendJson(
          response,
          200,
          {
            ...stats.query(asked as StatsWindow),
            inFlight: gauges.inFlight,
            queued: gauges.queued,
            recentCallsKept: recent.capacity,
            today: await context.periscope.usage(),
          },
          SECURITY_HEADERS,
        );
        return;
      }
      if (path === '/v1/admin/console/fetch-chain') {
        const health = fetchHealth.snapshot();
        const { fetchBackends } = await context.periscope.status();
        sendJson(
          response,
          200,
          { backends: fetchBackends.map((backend) => ({ ...backend, health: health[backend.id] ?? null })) },
          SECURITY_HEADERS,
        );
        return;
      }
      throw new GatewayError(404, 'NOT_FOUND', `no console route ${path}`);
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

  function openStream(request: IncomingMessage, response: ServerResponse): void {
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
      response.write(`id: ${call.id}\nevent: call\ndata: ${JSON.stringify(summary(call))}\n\n`);
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
  }
}

export type Console = ReturnType<typeof createConsole>;

/** A call without its input and result: what the tail shows and the event stream sends. */
function summary(call: RecentCall): Omit<RecentCall, 'input' | 'result'> {
  const { input: _input, result: _result, ...rest } = call;
  return rest;
}
