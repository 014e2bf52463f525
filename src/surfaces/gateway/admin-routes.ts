import type { IncomingMessage, ServerResponse } from 'node:http';
import { isPeriscopeError } from '../../errors.ts';
import type { Periscope } from '../../index.ts';
import {
  type ApiKeyRecord,
  checkAgentId,
  createApiKey,
  listApiKeys,
  parseRate,
  revokeApiKey,
} from '../../keys/api-keys.ts';
import type { Store } from '../../store/store.ts';
import type { Principal } from './auth.ts';
import { GatewayError, readJsonBody, sendJson } from './http-io.ts';

/** What a key record shows over HTTP: everything but the hash. */
export function publicKey(record: ApiKeyRecord): Omit<ApiKeyRecord, 'hash'> {
  const { hash: _hash, ...shown } = record;
  return shown;
}

/**
 * `/v1/admin/keys` (GET list, POST create), `/v1/admin/keys/{id}` (DELETE revoke) and `/v1/admin/credits`
 * (POST `{ agent, amount, reason? }`: a grant). Admin keys only.
 */
export async function handleAdmin(
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  context: { periscope: Periscope; store: Store; principal: Principal; maxBodyBytes: number },
): Promise<void> {
  const { store, principal } = context;
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
      sendJson(response, 200, { keys: (await listApiKeys(store)).map(publicKey) });
      return;
    }
    if (method === 'POST') {
      const body = asObject(await readJsonBody(request, context.maxBodyBytes));
      const created = await invalidInputAs400(async () => {
        const agent = checkAgentId(String(body.agent ?? ''));
        const credits = optionalInteger(body.credits, 'credits');
        const { key, record } = await createApiKey(store, {
          agent,
          admin: body.admin === true,
          ...(typeof body.rate === 'string' ? { rate: parseRate(body.rate) } : {}),
          ...(typeof body.note === 'string' ? { note: body.note.slice(0, 200) } : {}),
        });
        const balance =
          credits === undefined || credits === 0
            ? undefined
            : (await context.periscope.credits.grant(agent, credits)).balanceAfter;
        return { key, record: publicKey(record), ...(balance === undefined ? {} : { balance }) };
      });
      sendJson(response, 201, created);
      return;
    }
    throw new GatewayError(405, 'METHOD_NOT_ALLOWED', 'use GET or POST on /v1/admin/keys', {
      allow: 'GET, POST',
    });
  }
  const keyRoute = /^\/v1\/admin\/keys\/([^/]+)$/.exec(path);
  if (keyRoute?.[1]) {
    if (method !== 'DELETE') {
      throw new GatewayError(405, 'METHOD_NOT_ALLOWED', 'use DELETE to revoke a key', { allow: 'DELETE' });
    }
    const reference = safeDecode(keyRoute[1]);
    const revoked = await invalidInputAs400(() => revokeApiKey(store, reference), 404);
    sendJson(response, 200, { revoked: publicKey(revoked) });
    return;
  }
  if (path === '/v1/admin/credits') {
    if (method !== 'POST') {
      throw new GatewayError(405, 'METHOD_NOT_ALLOWED', 'use POST to grant credits', { allow: 'POST' });
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

/** INVALID_INPUT from the key functions is the client's mistake: 400 (or `status`). */
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
