import { PeriscopeError } from '../errors.ts';
import type { InputConstraint } from '../input-issue.ts';
import type { CreditAccounts } from '../policy/credit-accounts.ts';
import type { Store } from '../store/store.ts';
import {
  type ApiKeyRecord,
  checkAgentId,
  createApiKey,
  listApiKeys,
  parseRate,
  type RateSetting,
  revokeApiKey,
} from './api-keys.ts';

/** A key record as it is shown (`keys list`, `/v1/admin/keys`): everything but the hash. */
export type ApiKeyInfo = Omit<ApiKeyRecord, 'hash'>;

export interface CreateKeyInput {
  /** The agent the key acts as: 1–128 letters, digits or `. _ : @ -`. */
  agent: string;
  /** Credits granted to the agent now (a ledger entry `grant`; the agent's, shared by its keys). Default 0: none. */
  credits?: number;
  /** The key's own rate limit: `60/min`, `1000/hour`, … or `{ limit, windowMs }`. */
  rate?: string | RateSetting;
  /** May create and revoke keys and grant credits over HTTP. Default false. */
  admin?: boolean;
  /** A label shown by `keys list`; cut to 200 characters. */
  note?: string;
}

export interface CreatedKey {
  /** The key in clear: shown this once, never stored. */
  key: string;
  record: ApiKeyInfo;
  /** The agent's balance after the grant, when `credits` granted some. */
  balance?: number;
}

/** Operator-side API-key operations (the CLI's `periscope keys`, the gateway's `/v1/admin/keys`). */
export interface KeyAccounts {
  /** Checks everything first, then creates the key and grants the credits. Throws INVALID_INPUT. */
  create(input: CreateKeyInput): Promise<CreatedKey>;
  /** Every key ever created, revoked ones included, oldest first. */
  list(): Promise<ApiKeyInfo[]>;
  /** Revokes a key named by its id, `psk_<id>`, the whole key or 4+ of its id's digits. Throws INVALID_INPUT. */
  revoke(reference: string): Promise<ApiKeyInfo>;
}

export const MAX_NOTE_CHARS = 200;

export function createKeyAccounts(store: { get(): Promise<Store> }, credits: CreditAccounts): KeyAccounts {
  return {
    async create(input) {
      const agent = checkAgentId(String(input.agent ?? ''));
      const granted = checkCredits(input.credits);
      const rate = typeof input.rate === 'string' ? parseRate(input.rate) : input.rate;
      const note = typeof input.note === 'string' ? input.note.slice(0, MAX_NOTE_CHARS) : undefined;
      const { key, record } = await createApiKey(await store.get(), {
        agent,
        admin: input.admin === true,
        ...(rate ? { rate } : {}),
        ...(note ? { note } : {}),
      });
      const balance = granted === 0 ? undefined : (await credits.grant(agent, granted)).balanceAfter;
      return { key, record: withoutHash(record), ...(balance === undefined ? {} : { balance }) };
    },
    async list() {
      return (await listApiKeys(await store.get())).map(withoutHash);
    },
    async revoke(reference) {
      return withoutHash(await revokeApiKey(await store.get(), reference));
    },
  };
}

function withoutHash(record: ApiKeyRecord): ApiKeyInfo {
  const { hash: _hash, ...shown } = record;
  return shown;
}

function checkCredits(credits: unknown): number {
  if (credits === undefined || credits === null) return 0;
  const isWhole = typeof credits === 'number' && Number.isSafeInteger(credits);
  if (isWhole && credits >= 0) return credits;
  const constraint: InputConstraint = isWhole ? { kind: 'at-least', minimum: 0 } : { kind: 'whole-number' };
  throw new PeriscopeError(
    'INVALID_INPUT',
    `credits must be a whole number ≥ 0, not ${JSON.stringify(credits)}`,
    { details: { field: 'credits', constraint } },
  );
}
