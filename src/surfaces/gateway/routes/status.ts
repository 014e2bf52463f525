import type { Periscope } from '../../../index.ts';
import { checkAgentId, formatRate } from '../../../keys/api-keys.ts';
import type { Principal } from '../auth.ts';
import { GatewayError, sendJson } from '../http-io.ts';
import type { Call, GatewayServices } from '../route.ts';

/** GET /v1/status. */
export async function status(call: Call, gateway: GatewayServices): Promise<void> {
  const { principal, query } = call;
  sendJson(call.response, 200, await agentStatus({ periscope: gateway.periscope, principal, query }));
}

/**
 * GET /v1/status: the caller's agent (its key, credit balance and latest ledger entries, today's usage) and the
 * search providers' health. An admin key may ask about another agent with `?agent=ID`, and `?quota=1` to ask providers' quota endpoints.
 */
async function agentStatus(context: {
  periscope: Periscope;
  principal: Principal;
  query: URLSearchParams;
}): Promise<Record<string, unknown>> {
  const { periscope, principal, query } = context;
  const asked = query.get('agent');
  if (asked !== null && asked !== principal.agent && !principal.admin) {
    throw new GatewayError(403, 'FORBIDDEN', "only an admin key may read another agent's status");
  }
  const agent = asked === null ? principal.agent : checkAgentIdOr400(asked);
  // Live quota asks the providers with the operator's keys: admin keys (or open mode) only.
  const quota = query.get('quota') === '1' && (principal.admin || !principal.key);
  const { providers } = await periscope.status({ quota });
  const key = principal.key;
  return {
    agent,
    ...(asked === null
      ? {
          key: key
            ? {
                id: key.id,
                prefix: key.prefix,
                admin: key.admin,
                rate: key.rate ? formatRate(key.rate) : null,
              }
            : null,
        }
      : {}),
    credits: {
      enabled: periscope.config.limits.credits.enabled,
      balance: await periscope.credits.balance(agent),
      recent: await periscope.credits.ledger(agent, { limit: 10 }),
    },
    usage: await periscope.usage({ agentId: agent }),
    tools: periscope.tools.map((tool) => tool.name),
    providers,
  };
}

function checkAgentIdOr400(agent: string): string {
  try {
    return checkAgentId(agent);
  } catch (error) {
    throw new GatewayError(400, 'BAD_REQUEST', (error as Error).message);
  }
}
