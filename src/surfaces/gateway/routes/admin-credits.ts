import { checkAgentId } from '../../../keys/api-keys.ts';
import { sendJson } from '../http-io.ts';
import type { Call, GatewayServices } from '../route.ts';
import { asObject, invalidInputAs400, optionalInteger } from './admin-input.ts';

// /v1/admin/credits: the Periscope's credit operations (admin keys only; the router checks).

/** GET /v1/admin/credits: every agent's balance. */
export async function listBalances(call: Call, gateway: GatewayServices): Promise<void> {
  sendJson(call.response, 200, { accounts: await gateway.periscope.credits.list() });
}

/** POST /v1/admin/credits `{ agent, amount, reason? }`: a grant (a negative amount takes credits back). */
export async function grantCredits(call: Call, gateway: GatewayServices): Promise<void> {
  const body = asObject(call.body);
  const result = await invalidInputAs400(async () => {
    const agent = checkAgentId(String(body.agent ?? ''));
    const amount = optionalInteger(body.amount, 'amount') ?? 0;
    const reason =
      typeof body.reason === 'string' && body.reason !== '' ? body.reason.slice(0, 200) : 'grant';
    const entry = await gateway.periscope.credits.grant(agent, amount, { reason });
    return { agent, balance: entry.balanceAfter, entry };
  });
  sendJson(call.response, 200, result);
}

/** GET /v1/admin/credits/{agent}: its balance and ledger, the newest `?limit=` entries (default 100, at most 1 000). */
export async function agentLedger(call: Call, gateway: GatewayServices): Promise<void> {
  const reference = call.params.agent ?? '';
  const result = await invalidInputAs400(async () => {
    const agent = checkAgentId(reference);
    const limit = Number(call.query.get('limit') ?? 100);
    return {
      agent,
      balance: await gateway.periscope.credits.balance(agent),
      ledger: await gateway.periscope.credits.ledger(agent, {
        limit: Number.isSafeInteger(limit) && limit > 0 ? Math.min(limit, 1000) : 100,
      }),
    };
  });
  sendJson(call.response, 200, result);
}
