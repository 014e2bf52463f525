import type { IncomingMessage } from 'node:http';
import { type ApiKeyRecord, listApiKeys, verifyApiKey } from '../../keys/api-keys.ts';
import type { Store } from '../../store/store.ts';
import { createAuthFailureLimit } from './auth-failures.ts';
import { GatewayError } from './http-io.ts';

/** Who a request runs as. */
export interface Principal {
  agent: string;
  admin: boolean;
  /** The key's record; absent in open mode (no keys, loopback only). */
  key?: ApiKeyRecord;
}

export interface AuthenticatorOptions {
  store: Store;
  /** Bound to a non-loopback address: a key is always required, even if every key has been revoked. */
  alwaysRequireKey: boolean;
  defaultAgent: string;
  failuresPerMinute: number;
  onFailure?: (reason: string) => void;
}

/** How long "are there any keys?" is remembered (keys created or revoked by the CLI show up within it). */
const KEYS_PRESENT_TTL_MS = 1000;

/**
 * Bearer-key authentication with a per-client-IP limit on failures. Once an IP has failed `failuresPerMinute` times
 * in a minute, every request from it gets 429 until the oldest of those failures is a minute old, whatever key it
 * presents. The count is kept in the store (auth-failures.ts): one for every worker and instance sharing it.
 *
 * Keys are required when any active key exists (checked at most once a second) or when the gateway is bound to a
 * non-loopback address. A presented key is always checked: a wrong or revoked key is 401 even in open mode.
 */
export function createAuthenticator(options: AuthenticatorOptions) {
  const failures = createAuthFailureLimit(options.store, options.failuresPerMinute);
  let keysPresent: { value: boolean; at: number } | undefined;
  /**
   * The key checks of this turn of the event loop: requests parsed in the same turn (a busy gateway reads many a
   * turn) presenting the same key share one read of its record, a store read with its file locks each time. The
   * next turn reads again, so a revocation still holds from the next request on.
   */
  const checkedThisTurn = new Map<string, Promise<ApiKeyRecord | undefined>>();
  function verify(token: string): Promise<ApiKeyRecord | undefined> {
    let checked = checkedThisTurn.get(token);
    if (checked === undefined) {
      if (checkedThisTurn.size === 0) setImmediate(() => checkedThisTurn.clear());
      checked = verifyApiKey(options.store, token);
      checkedThisTurn.set(token, checked);
    }
    return checked;
  }

  async function keysRequired(): Promise<boolean> {
    if (options.alwaysRequireKey) return true;
    const now = Date.now();
    if (!keysPresent || now - keysPresent.at > KEYS_PRESENT_TTL_MS) {
      const keys = await listApiKeys(options.store);
      keysPresent = { value: keys.some((key) => !key.revokedAt), at: now };
    }
    return keysPresent.value;
  }

  async function fail(ip: string, reason: string, message: string): Promise<GatewayError> {
    options.onFailure?.(reason);
    const waitMs = await failures.record(ip);
    if (waitMs > 0) return tooMany(ip, waitMs);
    return new GatewayError(401, 'UNAUTHORIZED', message, {
      'www-authenticate': 'Bearer realm="periscope"',
    });
  }

  return {
    keysRequired,
    /** The principal, or a GatewayError (401 or 429) to send. */
    async authenticate(request: IncomingMessage): Promise<Principal> {
      const ip = request.socket.remoteAddress ?? 'unknown';
      const waitMs = await failures.blockedFor(ip);
      if (waitMs > 0) throw tooMany(ip, waitMs);
      const header = request.headers.authorization;
      if (header === undefined) {
        if (!(await keysRequired())) return { agent: options.defaultAgent, admin: false };
        throw await fail(ip, 'missing', 'an API key is required: send Authorization: Bearer <key>');
      }
      const token = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header)?.[1];
      if (token === undefined) {
        throw await fail(ip, 'malformed', 'the Authorization header must be Bearer <key>');
      }
      const record = await verify(token);
      if (!record) throw await fail(ip, 'invalid', 'the API key is not valid (unknown, mistyped or revoked)');
      return { agent: record.agent, admin: record.admin, key: record };
    },
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;

function tooMany(ip: string, waitMs: number): GatewayError {
  const seconds = String(Math.max(1, Math.ceil(waitMs / 1000)));
  return new GatewayError(
    429,
    'TOO_MANY_REQUESTS',
    `too many failed authentications from ${ip}; try again in ${seconds} s`,
    { 'retry-after': seconds },
  );
}
