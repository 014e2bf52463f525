import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SessionBudget } from '../egress/egress-check.ts';
import { PeriscopeError } from '../errors.ts';
import type { Store } from '../store/store.ts';

/**
 * Gateway API keys, kept in the Store. A key is `psk_<id>_<secret>`: `id` (12 hex digits) names the record and is
 * not secret; `secret` is 32 random bytes (base64url). Only the SHA-256 of the whole key is stored, and the presented
 * key's hash is compared in constant time. The key itself is shown once, when it is created.
 *
 * Store layout: one value per key, `gateway:key:<id>`, the record (revoked ones stay, marked).
 */
export interface ApiKeyRecord {
  id: string;
  /** The principal its calls run as: limits, credits and usage are the agent's. */
  agent: string;
  /** May create and revoke keys and grant credits over HTTP. */
  admin: boolean;
  /** What people see instead of the key: `psk_<id>_…`. */
  prefix: string;
  /** SHA-256 of the whole key, hex. */
  hash: string;
  /** ISO 8601. */
  createdAt: string;
  revokedAt?: string;
  /** The rate limit this key's calls get, when it has its own (`--rate 60/min`). */
  rate?: RateSetting;
  /**
   * The domains this key's calls are narrowed to (`--allow-domain`, `--block-domain`): only ever narrower than the
   * deployment's `egress.domains` (src/egress/domain-check.ts), normalised patterns.
   */
  domains?: KeyDomains;
  /**
   * The session budget of this key's calls (`--session-max-calls`, `--session-max-credits`): calls per tool and
   * credits one session may spend; only ever narrower than the deployment's `limits.session`.
   */
  session?: SessionBudget;
  note?: string;
}

export interface KeyDomains {
  allow?: string[];
  block?: string[];
}

export interface RateSetting {
  limit: number;
  windowMs: number;
}

export interface CreateKeyOptions {
  agent: string;
  admin?: boolean;
  rate?: RateSetting;
  domains?: KeyDomains;
  session?: SessionBudget;
  note?: string;
}

const KEY_PATTERN = /^psk_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;
const AGENT_PATTERN = /^[A-Za-z0-9._:@-]{1,128}$/;
const RECORD_PREFIX = 'gateway:key:';
const recordKey = (id: string) => `${RECORD_PREFIX}${id}`;

export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** Agent ids are short and printable: letters, digits and `._:@-`. */
export function checkAgentId(agent: string): string {
  if (!AGENT_PATTERN.test(agent)) {
    throw new PeriscopeError(
      'INVALID_INPUT',
      `agent id ${JSON.stringify(agent)} is not valid: use 1–128 letters, digits or . _ : @ -`,
    );
  }
  return agent;
}

/** Creates a key; the returned `key` is the only time it exists in clear. */
export async function createApiKey(
  store: Store,
  options: CreateKeyOptions,
): Promise<{ key: string; record: ApiKeyRecord }> {
  const id = randomBytes(6).toString('hex');
  const key = `psk_${id}_${randomBytes(32).toString('base64url')}`;
  const record: ApiKeyRecord = {
    id,
    agent: checkAgentId(options.agent),
    admin: options.admin ?? false,
    prefix: `psk_${id}_…`,
    hash: hashKey(key),
    createdAt: new Date().toISOString(),
    ...(options.rate ? { rate: options.rate } : {}),
    ...(options.domains ? { domains: options.domains } : {}),
    ...(options.session ? { session: options.session } : {}),
    ...(options.note ? { note: options.note } : {}),
  };
  await store.set(recordKey(id), record);
  return { key, record };
}

/** Every key ever created, revoked ones included, oldest first. */
export async function listApiKeys(store: Store): Promise<ApiKeyRecord[]> {
  const names = await store.keys(RECORD_PREFIX);
  const records = await Promise.all(names.map((name) => store.get<ApiKeyRecord>(name)));
  return records
    .filter((record): record is ApiKeyRecord => record !== undefined)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

/**
 * Revokes the key named by its id, its shown prefix (`psk_<id>`, `psk_<id>_…`), the whole key, or an unambiguous
 * start of its id (4 characters at least). Throws INVALID_INPUT when nothing or more than one key matches.
 */
export async function revokeApiKey(store: Store, reference: string): Promise<ApiKeyRecord> {
  const record = await findApiKey(store, reference);
  if (record.revokedAt) return record;
  const revoked: ApiKeyRecord = { ...record, revokedAt: new Date().toISOString() };
  await store.set(recordKey(record.id), revoked);
  return revoked;
}

/** Sets (or, with null, removes) a key's own rate limit; a revoked key is refused. Throws INVALID_INPUT. */
export async function setApiKeyRate(
  store: Store,
  reference: string,
  rate: RateSetting | null,
): Promise<ApiKeyRecord> {
  const record = await findApiKey(store, reference);
  if (record.revokedAt) throw new PeriscopeError('INVALID_INPUT', `key ${record.id} is revoked`);
  const { rate: _old, ...rest } = record;
  const updated: ApiKeyRecord = rate ? { ...rest, rate } : rest;
  await store.set(recordKey(record.id), updated);
  return updated;
}

/** The one key a reference names (see `revokeApiKey`). Throws INVALID_INPUT. */
async function findApiKey(store: Store, reference: string): Promise<ApiKeyRecord> {
  const wanted = idFromReference(reference.trim());
  const matches = (await listApiKeys(store)).filter((record) =>
    wanted.exact ? record.id === wanted.id : record.id.startsWith(wanted.id),
  );
  if (matches.length !== 1 || !matches[0]) {
    throw new PeriscopeError(
      'INVALID_INPUT',
      matches.length === 0
        ? `no API key matches '${reference}' (see 'periscope keys list')`
        : `'${reference}' matches ${matches.length} keys (${matches.map((record) => record.id).join(', ')}); give more of the id`,
    );
  }
  return matches[0];
}

function idFromReference(reference: string): { id: string; exact: boolean } {
  const whole = KEY_PATTERN.exec(reference);
  if (whole?.[1]) return { id: whole[1], exact: true };
  const shown = /^psk_([0-9a-f]{12})(?:_(?:…|\.\.\.)?)?$/.exec(reference);
  if (shown?.[1]) return { id: shown[1], exact: true };
  if (/^[0-9a-f]{4,12}$/.test(reference)) return { id: reference, exact: reference.length === 12 };
  throw new PeriscopeError(
    'INVALID_INPUT',
    `'${reference}' is not a key id: give the id from 'periscope keys list' (at least 4 of its hex digits) or psk_<id>`,
  );
}

/** The active record a presented key belongs to, or undefined (unknown, malformed, wrong secret or revoked). */
export async function verifyApiKey(store: Store, key: string): Promise<ApiKeyRecord | undefined> {
  const id = KEY_PATTERN.exec(key)?.[1];
  if (id === undefined) return undefined;
  const record = await store.get<ApiKeyRecord>(recordKey(id));
  const presented = Buffer.from(hashKey(key), 'hex');
  const expected = Buffer.from(record?.hash ?? '', 'hex');
  const matches = expected.length === presented.length && timingSafeEqual(expected, presented);
  return matches && record && !record.revokedAt ? record : undefined;
}

const UNITS: Record<string, number> = {
  s: 1000,
  sec: 1000,
  second: 1000,
  m: 60_000,
  min: 60_000,
  minute: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
};

/** `60/min`, `1000/hour`, `5/s`, `10000/day` → `{ limit, windowMs }`. */
export function parseRate(text: string): RateSetting {
  const match = /^\s*(\d[\d_]*)\s*\/\s*([a-z]+)\s*$/i.exec(text);
  const limit = Number(match?.[1]?.replace(/_/g, ''));
  const windowMs = UNITS[match?.[2]?.toLowerCase() ?? ''];
  if (!match || windowMs === undefined || !Number.isSafeInteger(limit) || limit < 1) {
    throw new PeriscopeError(
      'INVALID_INPUT',
      `rate '${text}' is not understood: write calls per unit, e.g. 60/min, 1000/hour, 5/s or 10000/day`,
    );
  }
  return { limit, windowMs };
}

export function formatRate(rate: RateSetting): string {
  const unit = Object.entries({ s: 1000, min: 60_000, hour: 3_600_000, day: 86_400_000 }).find(
    ([, ms]) => ms === rate.windowMs,
  );
  return unit ? `${rate.limit}/${unit[0]}` : `${rate.limit}/${rate.windowMs}ms`;
}
