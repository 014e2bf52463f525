import type { IncomingMessage, ServerResponse } from 'node:http';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { stageStart } from '../../stage-timing.ts';
import type { Principal } from './auth.ts';
import { checkHostAndOrigin } from './host-check.ts';
import { GatewayError, readJsonBody } from './http-io.ts';
import { enforceKeyRate } from './key-rate.ts';
import { handOn, peerHolding } from './mcp-relay.ts';
import { readHeaders } from './request-headers.ts';
import type { Access, Call, GatewayServices, Method, Route } from './route.ts';
import { readMcpBody } from './routes/mcp.ts';

const METHODS: readonly Method[] = ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'];

/** Answers being written, which shutdown waits for (routes.ts marks the open-ended event streams it does not). */
export interface AnswerTracker {
  track(response: ServerResponse): void;
}

/**
 * The gateway's request handler: finds the route (find-my-way, the router under Fastify), counts the answer by the
 * route's pattern (a bounded label: `other` for anything unrouted), then applies the route's declared steps in
 * their one order and hands the call to its handler. A refusal at any step is a thrown GatewayError.
 */
export function createRouter(gateway: GatewayServices, answers: AnswerTracker) {
  const router = FindMyWay({ maxParamLength: 500 });
  for (const route of gateway.routes) {
    router.on(route.method as HTTPMethod | HTTPMethod[], route.path, () => undefined, route);
  }
  const openMode: Principal = { agent: gateway.config.defaultAgent, admin: false };

  return async function dispatch(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const started = stageStart();
    const url = request.url ?? '/';
    const at = url.indexOf('?');
    const path = at < 0 ? url : url.slice(0, at);
    const method = request.method ?? 'GET';
    const found = router.find(method as HTTPMethod, path);
    const route = found?.store as Route | undefined;
    response.on('finish', () =>
      gateway.metrics.httpRequest(route?.label ?? route?.path ?? 'other', response.statusCode),
    );
    if (!route?.stream) answers.track(response);
    if (gateway.closing()) {
      const headers = { connection: 'close', 'retry-after': '1' };
      throw new GatewayError(
        503,
        'SHUTTING_DOWN',
        'the gateway is shutting down; retry on another instance',
        headers,
      );
    }
    if (!route || !found) throw unrouted(method, path);
    if (
      route.hostCheck === 'always' ||
      (route.hostCheck === 'open-mode' && !(await gateway.authenticator.keysRequired()))
    ) {
      const refused = checkHostAndOrigin(gateway.hostPolicy, request.headers);
      if (refused) throw new GatewayError(403, 'MISDIRECTED', refused);
    }
    const holder = route.relay ? peerHolding(request, gateway.peers) : undefined;
    if (holder !== undefined) return handOn(request, response, holder); // the holder authenticates and counts it
    const principal =
      route.access === 'public' ? openMode : await gateway.authenticator.authenticate(request);
    checkAccess(route.access, principal);
    const call: Call = {
      request,
      response,
      params: found.params,
      get query() {
        return new URLSearchParams(at < 0 ? '' : url.slice(at + 1));
      },
      principal,
      headers: {},
      body: undefined,
      started,
    };
    if (route.runAs) call.principal = await route.runAs(call, gateway);
    if (route.headers) call.headers = readHeaders(request, call.principal, route.headers);
    if (route.body === 'json') call.body = await readJsonBody(request, gateway.config.maxBodyBytes);
    if (route.body === 'json-rpc') {
      const read = await readMcpBody(request, response, gateway.config.maxBodyBytes);
      if (!read) return; // answered: a JSON-RPC parse error
      call.body = read.message;
    }
    if (route.rateCost) await enforceKeyRate(gateway.store, call.principal, route.rateCost(call.body));
    await route.handle(call, gateway);
  };

  /** 405 with the methods the path has, or 404. */
  function unrouted(method: string, path: string): GatewayError {
    const allowed = METHODS.filter((other) => other !== method && router.find(other, path) !== null);
    if (allowed.length > 0) {
      const allow = allowed.join(', ');
      return new GatewayError(405, 'METHOD_NOT_ALLOWED', `use ${allow} here`, { allow });
    }
    return new GatewayError(404, 'NOT_FOUND', `no route ${method} ${path.slice(0, 200)}; see /openapi.json`);
  }
}

/** The access a route declares, held against the authenticated principal: 403 when it falls short. */
function checkAccess(access: Access, principal: Principal): void {
  if (access === 'admin' && !principal.admin) {
    throw new GatewayError(
      403,
      'FORBIDDEN',
      principal.key
        ? 'this route needs an admin key (periscope keys create --admin)'
        : 'this route needs an admin key; create one with `periscope keys create --agent NAME --admin`',
    );
  }
  // Open mode (no keys, loopback only) is the operator at the console.
  if (access === 'operator' && !principal.admin && principal.key) {
    throw new GatewayError(
      403,
      'FORBIDDEN',
      'the console needs an admin key (periscope keys create --admin)',
    );
  }
}
