import type { SessionBudget } from '../egress/egress-check.ts';
import { PeriscopeError } from '../errors.ts';
import type { InputConstraint } from '../input-issue.ts';
import { formatDomainPattern, parseDomainPattern } from '../net/domain-pattern.ts';
import type { CreditAccounts } from '../policy/credit-accounts.ts';
import type { Store } from '../store/store.ts';
import type { ToolName } from '../tool-call.ts';
import {
  type ApiKeyRecord,
  checkAgentId,
  createApiKey,
  type KeyDomains,
  listApiKeys,
  parseRate,
  type RateSetting,
  revokeApiKey,
  setApiKeyRate,
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
  /**
   * Domain patterns the key's calls may reach (`example.com`, `*.example.com`, `=www.example.com`): narrows the
   * deployment's `egress.domains.allow`, never widens it.
   */
  allowDomains?: readonly string[];
  /** Domain patterns the key's calls may never reach, on top of the deployment's `egress.domains.block`. */
  blockDomains?: readonly string[];
  /**
   * The session budget of the key's calls: `{ maxCalls: { web_fetch: 20 }, maxCredits: 100 }`, whole numbers ≥ 0;
   * the tighter of it and the deployment's `limits.session` holds.
   */
  session?: SessionBudget;
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
  /** Sets a key's own rate (`60/min`), or removes it with null. Throws INVALID_INPUT. */
  setRate(reference: string, rate: string | null): Promise<ApiKeyInfo>;
}

export const MAX_NOTE_CHARS = 200;

export function createKeyAccounts(store: { get(): Promise<Store> }, credits: CreditAccounts): KeyAccounts {
  return {
    async create(input) {
      const agent = checkAgentId(String(input.agent ?? ''));
      const granted = checkCredits(input.credits);
      const rate = typeof input.rate === 'string' ? parseRate(input.rate) : input.rate;
      const note = typeof input.note === 'string' ? input.note.slice(0, MAX_NOTE_CHARS) : undefined;
      const domains = checkDomains(input.allowDomains, input.blockDomains);
      const session = checkSession(input.session);
      const { key, record } = await createApiKey(await store.get(), {
        agent,
        admin: input.admin === true,
        ...(rate ? { rate } : {}),
        ...(domains ? { domains } : {}),
        ...(session ? { session } : {}),
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
    async setRate(reference, rate) {
      const parsed = rate === null ? null : parseRate(String(rate));
      return withoutHash(await setApiKeyRate(await store.get(), reference, parsed));
    },
  };
}

function withoutHash(record: ApiKeyRecord): ApiKeyInfo {
  const { hash: _hash, ...shown } = record;
  return shown;
}

/** The key's domain lists, each pattern checked and normalised; undefined when both are empty. */
function checkDomains(allow: unknown, block: unknown): KeyDomains | undefined {
  const list = (value: unknown, field: 'allowDomains' | 'blockDomains'): string[] => {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value))
      throw new PeriscopeError('INVALID_INPUT', `${field} must be a list of domain patterns`, {
        details: { field, constraint: { kind: 'type', expected: 'array' } },
      });
    return value.map((text) => {
      const parsed = parseDomainPattern(String(text));
      if ('error' in parsed)
        throw new PeriscopeError('INVALID_INPUT', `${field}: ${parsed.error}`, { details: { field } });
      return formatDomainPattern(parsed);
    });
  };
  const domains: KeyDomains = {};
  const allowed = list(allow, 'allowDomains');
  const blocked = list(block, 'blockDomains');
  if (allowed.length > 0) domains.allow = allowed;
  if (blocked.length > 0) domains.block = blocked;
  return allowed.length + blocked.length > 0 ? domains : undefined;
}

const SESSION_TOOLS: readonly ToolName[] = ['web_fetch', 'web_search', 'image_search', 'verify_citation'];

/** The key's session budget, checked (whole numbers ≥ 0, known tools); undefined when it sets nothing. */
function checkSession(value: unknown): SessionBudget | undefined {
  if (value === undefined || value === null) return undefined;
  const invalid = (message: string) =>
    new PeriscopeError('INVALID_INPUT', `session: ${message}`, { details: { field: 'session' } });
  const count = (name: string, given: unknown): number => {
    if (typeof given === 'number' && Number.isSafeInteger(given) && given >= 0) return given;
    throw invalid(`${name} must be a whole number ≥ 0, not ${JSON.stringify(given)}`);
  };
  if (typeof value !== 'object' || Array.isArray(value))
    throw invalid('expected { maxCalls: { web_fetch: N, … }, maxCredits: N }');
  const { maxCalls, maxCredits, ...other } = value as Record<string, unknown>;
  const unknown = Object.keys(other);
  if (unknown.length > 0)
    throw invalid(`unknown field ${unknown[0]}; the fields are maxCalls and maxCredits`);
  const budget: SessionBudget = {};
  if (maxCalls !== undefined && maxCalls !== null) {
    if (typeof maxCalls !== 'object' || Array.isArray(maxCalls))
      throw invalid('maxCalls must be an object of tool → calls, e.g. { "web_fetch": 20 }');
    const calls: Partial<Record<ToolName, number>> = {};
    for (const [tool, given] of Object.entries(maxCalls)) {
      if (!SESSION_TOOLS.includes(tool as ToolName))
        throw invalid(`maxCalls.${tool}: not a tool; the tools are ${SESSION_TOOLS.join(', ')}`);
      calls[tool as ToolName] = count(`maxCalls.${tool}`, given);
    }
    if (Object.keys(calls).length > 0) budget.maxCalls = calls;
  }
  if (maxCredits !== undefined && maxCredits !== null) budget.maxCredits = count('maxCredits', maxCredits);
  return Object.keys(budget).length > 0 ? budget : undefined;
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
