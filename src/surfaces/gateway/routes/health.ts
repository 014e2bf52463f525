import { sendJson } from '../http-io.ts';
import type { Call } from '../route.ts';

/** GET /healthz: liveness for load balancers (the router answers 503 once shutdown has begun). */
export function health(call: Call): void {
  sendJson(call.response, 200, { status: 'ok' });
}
