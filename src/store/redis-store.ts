import { randomUUID } from 'node:crypto';
import { redactUrlCredentials } from '../config/redact.ts';
import { isPeriscopeError, PeriscopeError } from '../errors.ts';
import {
  CONSUME,
  INCREMENT,
  INCREMENT_WITHIN,
  LEDGER_APPLY,
  type LuaScript,
  REBUILD_BALANCE,
  TURN,
} from './redis-lua.ts';
import type {
  ConsumeResult,
  IncrementWithinResult,
  LedgerApplyResult,
  LedgerEntry,
  LedgerEntryInput,
  SetOptions,
  Store,
  TurnOutcome,
  TurnStep,
} from './store.ts';
import {
  checkConsume,
  checkIncrement,
  checkIncrementWithin,
  checkKey,
  checkLedgerEntry,
  checkLedgerLimit,
  checkPrefix,
  checkTtl,
  storeClosed,
  storeUnavailable,
  toJson,
} from './store-errors.ts';
import { checkTurnStep } from './turn-slots.ts';

type RedisModule = typeof import('@redis/client');
type RedisClient = ReturnType<RedisModule['createClient']>;

export interface RedisStoreSettings {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS). */
  url: string;
  /** Put before every key, so several deployments can share one Redis. Default `periscope:`. */
  keyPrefix?: string;
  /** Default 5000. */
  connectTimeoutMs?: number;
  /** How long one operation may wait for its answer before failing with TIMEOUT. Default 5000. */
  operationTimeoutMs?: number;
}

/**
 * A store in Redis, for several Periscope instances sharing limits, credits and cache. Atomic steps are Lua
 * scripts (redis-lua.ts); values are JSON strings; every key starts with `keyPrefix`.
 *
 * Failing closed: commands are never queued while the connection is down (`disableOfflineQueue`): they fail at
 * once with NETWORK, and the client reconnects in the background (backoff up to 2 s) so calls work again as soon
 * as the server is back. A server that does not answer within `operationTimeoutMs` gives TIMEOUT. The first
 * connection is tried once, so a wrong URL or a stopped server fails `openStore` right away.
 */
export class RedisStore implements Store {
  readonly kind = 'redis' as const;
  readonly location: string;
  readonly #client: RedisClient;
  readonly #module: RedisModule;
  readonly #prefix: string;
  readonly #operationTimeoutMs: number;
  #closed = false;

  private constructor(
    module: RedisModule,
    client: RedisClient,
    location: string,
    settings: RedisStoreSettings,
  ) {
    this.#module = module;
    this.#client = client;
    this.location = location;
    this.#prefix = settings.keyPrefix ?? 'periscope:';
    this.#operationTimeoutMs = settings.operationTimeoutMs ?? 5000;
  }

  static async open(settings: RedisStoreSettings): Promise<RedisStore> {
    const location = redactUrlCredentials(settings.url);
    const module = await import('@redis/client');
    let connected = false;
    let client: RedisClient;
    try {
      client = module.createClient({
        url: settings.url,
        disableOfflineQueue: true,
        socket: {
          connectTimeout: settings.connectTimeoutMs ?? 5000,
          reconnectStrategy: (retries: number, cause: Error) =>
            connected ? Math.min(100 * 2 ** retries, 2000) : cause,
        },
      });
    } catch (error) {
      throw storeUnavailable(
        'CONFIG_INVALID',
        'redis',
        `store.url ${location} is not a usable Redis URL (${message(error)}): use redis://host:port or rediss://host:port.`,
        error,
      );
    }
    client.on('error', () => {
      // Reported through the failing operations; without a listener an 'error' event would crash the process.
    });
    client.on('ready', () => {
      connected = true;
    });
    try {
      await client.connect();
    } catch (error) {
      client.destroy();
      throw storeUnavailable(
        'NETWORK',
        'redis',
        `Cannot connect to the Redis store at ${location} (${message(error)}): check that the server is running and store.url is right.`,
        error,
      );
    }
    return new RedisStore(module, client, location, settings);
  }

  async get<VALUE>(key: string): Promise<VALUE | undefined> {
    checkKey(key);
    const text = await this.#call('reading', () => this.#client.get(this.#key('kv', key)));
    return text === null ? undefined : (JSON.parse(text) as VALUE);
  }

  async set(key: string, value: unknown, options?: SetOptions): Promise<void> {
    checkKey(key);
    const ttlMs = checkTtl(options);
    const json = toJson(key, value);
    await this.#call('writing', () =>
      this.#client.set(
        this.#key('kv', key),
        json,
        ttlMs === undefined ? {} : { expiration: { type: 'PX', value: ttlMs } },
      ),
    );
  }

  async delete(key: string): Promise<boolean> {
    checkKey(key);
    return (await this.#call('deleting', () => this.#client.del(this.#key('kv', key)))) > 0;
  }

  async keys(prefix: string): Promise<string[]> {
    checkPrefix(prefix);
    const space = this.#key('kv', '');
    const match = `${globEscape(space + prefix)}*`;
    return this.#call('listing keys', async () => {
      const found = new Set<string>();
      for await (const batch of this.#client.scanIterator({ MATCH: match, COUNT: 1000 }))
        for (const key of batch) found.add(key.slice(space.length));
      return [...found];
    });
  }

  async consume(key: string, amount: number, limit: number, windowMs: number): Promise<ConsumeResult> {
    checkKey(key);
    checkConsume(amount, limit, windowMs);
    const reply = (await this.#script(
      'consuming',
      CONSUME,
      [this.#key('rate', key)],
      [amount, limit, windowMs],
    )) as [number, number, number];
    const [allowed, used, retryAfterMs] = reply;
    return { allowed: allowed === 1, used, remaining: Math.max(0, limit - used), limit, retryAfterMs };
  }

  async increment(key: string, by: number, options?: SetOptions): Promise<number> {
    checkKey(key);
    checkIncrement(by);
    const ttlMs = checkTtl(options) ?? 0;
    return (await this.#script(
      `incrementing ${key}`,
      INCREMENT,
      [this.#key('kv', key)],
      [by, ttlMs],
    )) as number;
  }

  async incrementWithin(
    key: string,
    amounts: Readonly<Record<string, number>>,
    limits: Readonly<Record<string, number>>,
    options?: SetOptions,
  ): Promise<IncrementWithinResult> {
    checkKey(key);
    checkIncrementWithin(amounts, limits);
    const ttlMs = checkTtl(options) ?? 0;
    const [applied, json, over] = (await this.#script(
      `incrementing ${key}`,
      INCREMENT_WITHIN,
      [this.#key('kv', key)],
      [JSON.stringify(Object.entries(amounts)), JSON.stringify(limits), ttlMs],
    )) as [number, string, string];
    const values = JSON.parse(json) as Record<string, number>;
    return applied === 1 ? { applied: true, values } : { applied: false, values, over };
  }

  async ledgerApply(agent: string, input: LedgerEntryInput): Promise<LedgerApplyResult> {
    checkLedgerEntry(agent, input);
    const id = randomUUID();
    const tool = input.tool ?? null;
    const head = JSON.stringify({ id, agent, tool, delta: input.delta, reason: input.reason }).slice(0, -1);
    const [applied, balanceText, atText] = (await this.#script(
      'applying a credit change',
      LEDGER_APPLY,
      this.#creditKeys(agent),
      [input.delta, input.requireNonNegative ? 1 : 0, head],
    )) as [number, string, string];
    const balance = Number(balanceText);
    if (applied !== 1) return { applied: false, balance };
    const at = new Date(Number(atText)).toISOString();
    return {
      applied: true,
      balance,
      entry: { id, agent, tool, delta: input.delta, balanceAfter: balance, at, reason: input.reason },
    };
  }

  async balance(agent: string): Promise<number> {
    checkKey(agent, 'agent');
    const [balanceKey] = this.#creditKeys(agent);
    const text = await this.#call('reading a balance', () => this.#client.get(balanceKey));
    return text === null ? 0 : Number(text);
  }

  async ledger(agent: string, options?: { limit?: number }): Promise<LedgerEntry[]> {
    checkKey(agent, 'agent');
    const limit = checkLedgerLimit(options);
    if (limit === 0) return [];
    const [, ledgerKey] = this.#creditKeys(agent);
    const items = await this.#call('reading the ledger', () =>
      this.#client.lRange(ledgerKey, limit === undefined ? 0 : -limit, -1),
    );
    return items.map((item) => {
      const stored = JSON.parse(item) as Omit<LedgerEntry, 'at'> & { atMs: number };
      const { id, tool, delta, balanceAfter, reason } = stored;
      return {
        id,
        agent: stored.agent,
        tool,
        delta,
        balanceAfter,
        at: new Date(stored.atMs).toISOString(),
        reason,
      };
    });
  }

  async rebuildBalance(agent: string): Promise<number> {
    checkKey(agent, 'agent');
    return Number(await this.#script('rebuilding a balance', REBUILD_BALANCE, this.#creditKeys(agent), []));
  }

  async agents(): Promise<string[]> {
    const head = `${this.#prefix}credits:{`;
    const tail = '}:balance';
    return this.#call('listing agents', async () => {
      const found = new Set<string>();
      for await (const batch of this.#client.scanIterator({
        MATCH: `${globEscape(head)}*${tail}`,
        COUNT: 1000,
      }))
        for (const key of batch) found.add(key.slice(head.length, -tail.length));
      return [...found];
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#client.isReady) await this.#client.close().catch(() => this.#client.destroy());
    else if (this.#client.isOpen) this.#client.destroy();
  }

  async turn(key: string, step: TurnStep): Promise<TurnOutcome> {
    checkKey(key);
    checkTurnStep(step);
    if ('release' in step || 'sent' in step) {
      const [outcome, held] = (await this.#script(
        'release' in step ? 'releasing a turn' : 'reporting a turn sent',
        TURN,
        [this.#key('turn', key)],
        'release' in step
          ? [step.unsent === true ? 'unsent' : 'release', step.release, 0, 0, 0, 0]
          : ['sent', step.sent, 0, 0, 0, 0],
      )) as ['released' | 'sent', number];
      return { outcome, held: held === 1 };
    }
    const { intervalMs, maxConcurrent, leaseMs, startingMs } = step.reserve;
    const lease = randomUUID();
    const [outcome, waitMs] = (await this.#script(
      'taking a turn',
      TURN,
      [this.#key('turn', key)],
      ['reserve', lease, intervalMs, maxConcurrent ?? 0, leaseMs, startingMs ?? 0],
    )) as ['granted' | 'wait' | 'busy', number];
    return outcome === 'granted' ? { outcome, lease } : { outcome, waitMs };
  }

  #key(space: 'kv' | 'rate' | 'turn', key: string): string {
    return `${this.#prefix}${space}:${key}`;
  }

  /** Balance and ledger of one agent; the hash tag keeps both in one slot should the server be a cluster. */
  #creditKeys(agent: string): [string, string] {
    const base = `${this.#prefix}credits:{${agent}}`;
    return [`${base}:balance`, `${base}:ledger`];
  }

  /** EVALSHA, loading the script with EVAL when the server does not know it yet (first use, restart, FLUSH). */
  #script(
    operation: string,
    script: LuaScript,
    keys: string[],
    args: Array<string | number>,
  ): Promise<unknown> {
    const options = { keys, arguments: args.map(String) };
    return this.#call(operation, async () => {
      try {
        return await this.#client.evalSha(script.sha, options);
      } catch (error) {
        if (error instanceof this.#module.ErrorReply && error.message.startsWith('NOSCRIPT'))
          return await this.#client.eval(script.source, options);
        throw error;
      }
    });
  }

  async #call<RESULT>(operation: string, step: () => Promise<RESULT>): Promise<RESULT> {
    if (this.#closed) throw storeClosed('redis', this.location);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DeadlineError()), this.#operationTimeoutMs);
    });
    try {
      return await Promise.race([step(), deadline]);
    } catch (error) {
      throw this.#failure(error, operation);
    } finally {
      clearTimeout(timer);
    }
  }

  #failure(error: unknown, operation: string): PeriscopeError {
    if (isPeriscopeError(error)) return error;
    const where = `Redis store at ${this.location}`;
    const unknownOutcome = operation.startsWith('applying')
      ? ' The outcome of this credit change is unknown: check the ledger.'
      : '';
    if (error instanceof DeadlineError)
      return storeUnavailable(
        'TIMEOUT',
        'redis',
        `${where} did not answer within ${this.#operationTimeoutMs} ms while ${operation}; calls fail closed until it does.${unknownOutcome}`,
        error,
      );
    if (error instanceof this.#module.ErrorReply && /not an integer/.test(error.message))
      return new PeriscopeError(
        'INVALID_INPUT',
        `${where} refused ${operation}: it holds a value that is not a whole number.`,
        { cause: error },
      );
    if (error instanceof this.#module.ErrorReply)
      return storeUnavailable('NETWORK', 'redis', `${where} refused ${operation}: ${error.message}`, error);
    if (error instanceof this.#module.ClientClosedError) return storeClosed('redis', this.location);
    return storeUnavailable(
      'NETWORK',
      'redis',
      `${where} is unreachable while ${operation} (${message(error)}): check that the server is running; calls fail closed until it is back.${unknownOutcome}`,
      error,
    );
  }
}

class DeadlineError extends Error {}

/** `text` matched literally in a SCAN pattern. */
function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function createRedisStore(settings: RedisStoreSettings): Promise<RedisStore> {
  return RedisStore.open(settings);
}
