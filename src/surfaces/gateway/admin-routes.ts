import type { IncomingMessage, ServerResponse } from 'node:http';
import { isPeriscopeError } from '../../errors.ts';
import type { Periscope, SessionBudget } from '../../index.ts';
import { checkAgentId } from '../../keys/api-keys.ts';
import type { Principal } from './auth.ts';
import { GatewayError, readJsonBody, sendJson } from './http-io.ts';

/**
 * `/v1/admin/keys` (GET list, POST create), `/v1/admin/keys/{id}` (DELETE revoke; PATCH `{ rate }`: set or, with null, remove its rate), `/v1/admin/credits` (GET every
 * agent's balance; POST `{ agent, amount, reason? }`: a grant) and `/v1/admin/credits/{agent}` (GET its balance and
 * ledger, newest `?limit=` entries, default 100), through the Periscope's key and credit operations. Admin keys only.
 */
export async function handleAdmin(
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  context: { periscope: Periscope; principal: Principal; maxBodyBytes: number },
): Promise<void> {
  const { principal } = context;
  if (!principal.admin) {
    throw new GatewayError(
      403,
      'FORBIDDEN',
      principal.key
        ? 'this route needs an admin key (periscope keys create --admin)'
        : 'this route needs an admin key; create one with `periscope keys create --agent NAME --admin`',
    );
  }
  const method = request.method ?? 'GET';
  if (path === '/v1/admin/keys') {
    if (method === 'GET') {
      sendJson(response, 200, { keys: await context.periscope.keys.list() });
      return;
    }
    if (method === 'POST') {
      const body = asObject(await readJsonBody(request, context.maxBodyBytes));
      // The agent id, credits, rate, domains, session budget and note are judged by the key operation, before
      // anything is written.
      const created = await invalidInputAs400(() =>
        context.periscope.keys.create({
          agent: String(body.agent ?? ''),
          admin: body.admin === true,
          ...(body.credits === undefined || body.credits === null ? {} : { credits: body.credits as number }),
          ...(typeof body.rate === 'string' ? { rate: body.rate } : {}),
          ...(body.allowDomains === undefined ? {} : { allowDomains: body.allowDomains as string[] }),
          ...(body.blockDomains === undefined ? {} : { blockDomains: body.blockDomains as string[] }),
          ...(body.session === undefined ? {} : { session: body.session as SessionBudget }),
          ...(typeof body.note === 'string' ? { note: body.note } : {}),
        }),
      );
      sendJson(response, 201, created);
      return;
    }
    throw new GatewayError(405, 'METHOD_NOT_ALLOWED', 'use GET or POST on /v1/admin/keys', {
      allow: 'GET, POST',
    });
  }
  const keyRoute = /^\/v1\/admin\/keys\/([^/]+)$/.exec(path);
  if (keyRoute?.[1]) {
    const reference = safeDecode(keyRoute[1]);
    if (method === 'PATCH') {
      const body = asObject(await readJsonBody(request, context.maxBodyBytes));
      if (!('rate' in body) || (body.rate !== null && typeof body.rate !== 'string')) {
        throw new GatewayError(
          400,
          'BAD_REQUEST',
          'send { "rate": "60/min" }, or { "rate": null } to remove it',
        );
      }
      const key = await invalidInputAs400(() =>
        context.periscope.keys.setRate(reference, body.rate as string | null),
      );
      sendJson(response, 200, { key });
      return;
    }
    if (method !== 'DELETE') {
      throw new GatewayError(
        405,
        'METHOD_NOT_ALLOWED',
        'use DELETE to revoke a key or PATCH to set its rate',
        {
          allow: 'DELETE, PATCH',
        },
      );
    }
    const revoked = await invalidInputAs400(() => context.periscope.keys.revoke(reference), 404);
    sendJson(response, 200, { revoked });
    return;
  }
  if (path === '/v1/admin/credits' && method === 'GET') {
    sendJson(response, 200, { accounts: await context.periscope.credits.list() });
    return;
  }
  const ledgerRoute = /^\/v1\/admin\/credits\/([^/]+)$/.exec(path);
  if (ledgerRoute?.[1]) {
    if (method !== 'GET') {
      throw new GatewayError(405, 'METHOD_NOT_ALLOWED', "use GET to read an agent's ledger", {
        allow: 'GET',
      });
    }
    const reference = safeDecode(ledgerRoute[1]);
    const result = await invalidInputAs400(async () => {
      const agent = checkAgentId(reference);
      const limit = Number(new URL(request.url ?? '/', 'http://gateway').searchParams.get('limit') ?? 100);
      return {
        agent,
        balance: await context.periscope.credits.balance(agent),
        ledger: await context.periscope.credits.ledger(agent, {
          limit: Number.isSafeInteger(limit) && limit > 0 ? Math.min(limit, 1000) : 100,
        }),
      };
    });
    sendJson(response, 200, result);
    return;
  }
  if (path === '/v1/admin/credits') {
    if (method !== 'POST') {
      throw new GatewayError(405, 'METHOD_NOT_ALLOWED', 'use GET to list balances or POST to grant credits', {
        allow: 'GET, POST',
      });
    }
    const body = asObject(await readJsonBody(request, context.maxBodyBytes));
    const result = await invalidInputAs400(async () => {
      const agent = checkAgentId(String(body.agent ?? ''));
      const amount = optionalInteger(body.amount, 'amount') ?? 0;
      const reason =
        typeof body.reason === 'string' && body.reason !== '' ? body.reason.slice(0, 200) : 'grant';
      const entry = await context.periscope.credits.grant(agent, amount, { reason });
      return { agent, balance: entry.balanceAfter, entry };
    });
    sendJson(response, 200, result);
    return;
  }
  throw new GatewayError(404, 'NOT_FOUND', `no admin route ${path}`);
}

function asObject(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new GatewayError(400, 'BAD_REQUEST', 'the body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

function optionalInteger(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new GatewayError(400, 'BAD_REQUEST', `${name} must be a whole number`);
  }
  return value;
}

/** INVALID_INPUT from the key and credit operations is the client's mistake: 400 (or `status`). */
async function invalidInputAs400<T>(run: () => Promise<T>, status = 400): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isPeriscopeError(error) && error.code === 'INVALID_INPUT') {
      throw new GatewayError(status, status === 404 ? 'NOT_FOUND' : 'BAD_REQUEST', error.message);
    }
    throw error;
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new GatewayError(400, 'BAD_REQUEST', `'${text}' is not a valid path segment`);
  }
}
