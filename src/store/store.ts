/**
 * The state Periscope keeps between calls (DESIGN §8): cache entries, rate-limit windows, usage counters and the
 * credit ledger. Three implementations share this contract and one conformance suite
 * (src/testing/store-conformance.ts): memory, SQLite (`node:sqlite`, the embedded default) and Redis.
 *
 * Every method is atomic on its own. Failures are `PeriscopeError`s: bad arguments `INVALID_INPUT`; the store
 * being unreachable, locked or damaged `NETWORK`, `TIMEOUT` or `CONFIG_INVALID` with
 * `details.reason === 'store-unavailable'`, so a caller can fail closed.
 */
export interface Store {
  /** `memory`, `sqlite` or `redis`. */
  readonly kind: StoreKind;
  /** Where it lives, for messages: `memory:`, a file path, or a Redis URL with the password masked. */
  readonly location: string;

  /** The value stored under `key`, or `undefined` when absent or expired. */
  get<VALUE = unknown>(key: string): Promise<VALUE | undefined>;
  /** Stores a JSON-serialisable value; `ttlMs` makes it expire (default: never). */
  set(key: string, value: unknown, options?: SetOptions): Promise<void>;
  /** Removes `key`; true when something was there. */
  delete(key: string): Promise<boolean>;
  /**
   * The live keys of values and counters that start with `prefix`, in no particular order (not rate windows
   * or ledgers). For listings such as a day's usage counters; it scans, so keep it off hot paths.
   */
  keys(prefix: string): Promise<string[]>;

  /**
   * Takes `amount` from a sliding window of `windowMs` holding at most `limit`, atomically: either all of
   * `amount` is taken or none. `amount` 0 only reports the window. See `sliding-window.ts` for the algorithm.
   */
  consume(key: string, amount: number, limit: number, windowMs: number): Promise<ConsumeResult>;

  /**
   * Adds `by` (a safe integer, may be negative) to the counter `key` and returns the new value. A missing key
   * starts at 0; `ttlMs` applies when the counter is created and is kept by later increments. The counter is
   * an ordinary value: `get(key)` reads it.
   */
  increment(key: string, by: number, options?: SetOptions): Promise<number>;

  /**
   * Adds `amounts` to the counters kept together under `key` (a JSON object of whole numbers, which `get(key)`
   * reads), all or none, in one atomic step. Refused, with nothing written, when a counter given a positive amount
   * would end above its limit in `limits`; a counter without a limit, or one only given back to, is never refused,
   * and none goes below 0. An applied step with `ttlMs` (re)sets the expiry to `ttlMs` from now; without, the key
   * keeps the expiry it had. Session budgets: a call and its credits taken together, given back together.
   */
  incrementWithin(
    key: string,
    amounts: Readonly<Record<string, number>>,
    limits: Readonly<Record<string, number>>,
    options?: SetOptions,
  ): Promise<IncrementWithinResult>;

  /**
   * Applies one credit change for `agent` in one atomic step: checks the balance, appends a ledger entry and
   * updates the balance. With `requireNonNegative`, a debit that would take the balance below zero is refused
   * (nothing is written). Credits go through always.
   */
  ledgerApply(agent: string, entry: LedgerEntryInput): Promise<LedgerApplyResult>;
  /** The current balance (0 for an agent never seen). */
  balance(agent: string): Promise<number>;
  /** Ledger entries, oldest first; with `limit`, the latest `limit` of them. */
  ledger(agent: string, options?: LedgerOptions): Promise<LedgerEntry[]>;
  /** Sets the balance to the sum of the ledger's deltas (repairing any drift) and returns it. */
  rebuildBalance(agent: string): Promise<number>;
  /** Every agent that has a balance (ever had a ledger entry), in no particular order. */
  agents(): Promise<string[]>;

  /** Releases the file or connection. Later calls fail; closing twice is fine. */
  close(): Promise<void>;

  /**
   * Turns shared by every process using the store (search pacing, src/search/shared-pacer.ts), in one atomic step.
   * `reserve` grants a turn that starts now, with a lease, when at least `intervalMs` have passed since the last
   * turn granted for `key` and fewer than `maxConcurrent` leases are held; otherwise it writes nothing and answers
   * `wait` (`waitMs` until the next start is due) or `busy` (every lease held; `waitMs` until the first would
   * expire). A lease ends at `release` or, so a crashed holder frees its place, `leaseMs` after it was granted. With
   * `startingMs`, a granted turn also holds a starting claim: no other turn for `key` is granted until the holder
   * reports its request sent (`sent`, or `release`), and the next start is `intervalMs` after that report, by the
   * store's clock; an unreported claim counts as sent when it expires, `startingMs` after the grant. A release with
   * `unsent` (the request never left: refused before connecting, a failed lookup or connection) of a turn still
   * holding its claim gives the turn back: the next start is as it was before the grant. See `turn-slots.ts` for the
   * algorithm.
   */
  turn(key: string, step: TurnStep): Promise<TurnOutcome>;
}

export type StoreKind = 'memory' | 'sqlite' | 'redis';

export interface SetOptions {
  /** Milliseconds until the value expires; a positive integer. */
  ttlMs?: number;
}

export interface ConsumeResult {
  allowed: boolean;
  /** Taken in the window, after this call when allowed. */
  used: number;
  /** `limit - used`, never below 0. */
  remaining: number;
  limit: number;
  /** 0 when allowed; otherwise how long until the same call would be allowed (if nobody else consumes). */
  retryAfterMs: number;
}

export interface IncrementWithinResult {
  applied: boolean;
  /** Every counter under the key after the step (as they were, when refused). */
  values: Record<string, number>;
  /** Refused: the first counter, in the order of `amounts`, that would have gone over its limit. */
  over?: string;
}

export interface LedgerEntryInput {
  /** Credits added (positive) or spent (negative); a safe integer. */
  delta: number;
  /** The tool the change is for, e.g. `web_search`. */
  tool?: string;
  /** Why: `grant`, `reserve`, `refund`, … */
  reason: string;
  /** Refuse a debit that would take the balance below zero. */
  requireNonNegative: boolean;
}

export interface LedgerEntry {
  /** Unique, assigned by the store. */
  id: string;
  agent: string;
  tool: string | null;
  delta: number;
  balanceAfter: number;
  /** ISO 8601 time of the change. */
  at: string;
  reason: string;
}

export type LedgerApplyResult =
  | { applied: true; balance: number; entry: LedgerEntry }
  | { applied: false; balance: number };

export interface LedgerOptions {
  /** Only the latest `limit` entries. */
  limit?: number;
}

export type TurnStep =
  | { reserve: TurnReserve }
  | { sent: string }
  /** `unsent`: the turn's request never left, so its turn is given back (when it still holds its claim). */
  | { release: string; unsent?: boolean };

export interface TurnReserve {
  /** Least time between two starts, whole ms ≥ 0. */
  intervalMs: number;
  /** Leases held at once at most, a whole number ≥ 1. Default: no limit. */
  maxConcurrent?: number;
  /** A lease not released `leaseMs` after it was granted is dropped; whole ms ≥ 1. */
  leaseMs: number;
  /**
   * Hold a starting claim (when `intervalMs` > 0): the next turn is granted only `intervalMs` after the holder
   * reported its request sent (`{ sent: lease }` or its release), or after the claim expired unreported, at most
   * `startingMs` (and `leaseMs`) after the grant; whole ms ≥ 1. Default: none, turns spaced from their grants.
   */
  startingMs?: number;
}

export type TurnOutcome =
  | { outcome: 'granted'; lease: string }
  | { outcome: 'wait' | 'busy'; waitMs: number }
  /** `held`: the lease was still held (not released before, not expired). */
  | { outcome: 'released'; held: boolean }
  /** `held`: the lease's starting claim was still held (not reported before, not expired). */
  | { outcome: 'sent'; held: boolean };
