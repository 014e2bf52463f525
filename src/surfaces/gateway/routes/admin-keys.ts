import type { SessionBudget } from '../../../index.ts';
import { GatewayError, sendJson } from '../http-io.ts';
import type { Call, GatewayServices } from '../route.ts';
import { asObject, invalidInputAs400 } from './admin-input.ts';

// /v1/admin/keys: the Periscope's key operations (admin keys only; the router checks).

/** GET /v1/admin/keys: every key, without its hash. */
export async function listKeys(call: Call, gateway: GatewayServices): Promise<void> {
  sendJson(call.response, 200, { keys: await gateway.periscope.keys.list() });
}

/** POST /v1/admin/keys: a new key, printed once. */
export async function createKey(call: Call, gateway: GatewayServices): Promise<void> {
  const body = asObject(call.body);
  // The agent id, credits, rate, domains, session budget and note are judged by the key operation, before anything
  // is written.
  const created = await invalidInputAs400(() =>
    gateway.periscope.keys.create({
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
  sendJson(call.response, 201, created);
}

/** PATCH /v1/admin/keys/{id} `{ rate }`: sets a key's rate, or with null removes it. */
export async function setKeyRate(call: Call, gateway: GatewayServices): Promise<void> {
  const body = asObject(call.body);
  if (!('rate' in body) || (body.rate !== null && typeof body.rate !== 'string')) {
    throw new GatewayError(400, 'BAD_REQUEST', 'send { "rate": "60/min" }, or { "rate": null } to remove it');
  }
  const reference = call.params.id ?? '';
  const key = await invalidInputAs400(() =>
    gateway.periscope.keys.setRate(reference, body.rate as string | null),
  );
  sendJson(call.response, 200, { key });
}

/** DELETE /v1/admin/keys/{id}: revokes it (404 when there is no such key). */
export async function revokeKey(call: Call, gateway: GatewayServices): Promise<void> {
  const reference = call.params.id ?? '';
  const revoked = await invalidInputAs400(() => gateway.periscope.keys.revoke(reference), 404);
  sendJson(call.response, 200, { revoked });
}
