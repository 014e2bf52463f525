import type { Store } from '../../store/store.ts';
import type { Principal } from './auth.ts';
import { GatewayError } from './http-io.ts';

/**
 * A key's own `--rate`: the gateway's per-client limit, answered with 429 like the auth limit. `calls` is what
 * the request costs (a REST tool call 1, a POST to /mcp its `tools/call` messages); a request costing none is free.
 */
export async function enforceKeyRate(store: Store, principal: Principal, calls: number): Promise<void> {
  const rate = principal.key?.rate;
  if (!principal.key || !rate || calls === 0) return;
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
