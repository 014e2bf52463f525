import type { DatabaseSync, StatementSync } from 'node:sqlite';

/** The SQLite store's tables, created in one transaction when a file is first opened. */
export const SCHEMA_VERSION = 1;

/**
 * Shared turns (`Store.turn`), one row per key holding its TurnState as JSON. Added to schema 1 without a new version:
 * created when missing on every open, and a Periscope that predates it never reads it, so both can share a file.
 */
export const TURN_TABLE = `
CREATE TABLE IF NOT EXISTS turn (
  key TEXT PRIMARY KEY,
  state TEXT NOT NULL,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
`;

export const SQLITE_SCHEMA = `
CREATE TABLE kv (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  expires_at INTEGER
);
CREATE INDEX kv_expires_at ON kv (expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE rate_window (
  key TEXT NOT NULL,
  bucket INTEGER NOT NULL,
  amount INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (key, bucket)
) WITHOUT ROWID;
CREATE INDEX rate_window_expires_at ON rate_window (expires_at);

CREATE TABLE credit_balance (
  agent TEXT PRIMARY KEY,
  balance INTEGER NOT NULL
);

CREATE TABLE credit_ledger (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  agent TEXT NOT NULL,
  tool TEXT,
  delta INTEGER NOT NULL,
  balance_after INTEGER NOT NULL,
  at TEXT NOT NULL,
  reason TEXT NOT NULL
);
CREATE INDEX credit_ledger_agent ON credit_ledger (agent, seq);
CREATE TRIGGER credit_ledger_no_update BEFORE UPDATE ON credit_ledger
  BEGIN SELECT RAISE(ABORT, 'the credit ledger is append-only'); END;
CREATE TRIGGER credit_ledger_no_delete BEFORE DELETE ON credit_ledger
  BEGIN SELECT RAISE(ABORT, 'the credit ledger is append-only'); END;
${TURN_TABLE}`;

/** Writes a value (key, JSON, expiry ms or null); also run by the writer thread (sqlite-writer.ts). */
export const PUT_VALUE_SQL =
  'INSERT INTO kv (key, value, expires_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at';
/** Deletes the values expired at a time (ms). */
export const SWEEP_VALUES_SQL = 'DELETE FROM kv WHERE expires_at <= ?';

/** Every statement the store runs, prepared once per connection. */
export function prepareStatements(db: DatabaseSync) {
  const statement = (sql: string): StatementSync => db.prepare(sql);
  return {
    get: statement('SELECT value, expires_at FROM kv WHERE key = ?'),
    put: statement(PUT_VALUE_SQL),
    remove: statement('DELETE FROM kv WHERE key = ? RETURNING expires_at'),
    keysFrom: statement(
      'SELECT key FROM kv WHERE key >= ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY key',
    ),
    agents: statement('SELECT agent FROM credit_balance'),
    dropExpiredBuckets: statement('DELETE FROM rate_window WHERE key = ? AND expires_at <= ?'),
    buckets: statement(
      'SELECT bucket AS startMs, amount, expires_at AS expiresAtMs FROM rate_window WHERE key = ?',
    ),
    addToBucket: statement(
      'INSERT INTO rate_window (key, bucket, amount, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (key, bucket) DO UPDATE SET amount = amount + excluded.amount, expires_at = max(expires_at, excluded.expires_at)',
    ),
    balance: statement('SELECT balance FROM credit_balance WHERE agent = ?'),
    setBalance: statement(
      'INSERT INTO credit_balance (agent, balance) VALUES (?, ?) ON CONFLICT (agent) DO UPDATE SET balance = excluded.balance',
    ),
    append: statement(
      'INSERT INTO credit_ledger (id, agent, tool, delta, balance_after, at, reason) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    ledger: statement(
      'SELECT * FROM (SELECT * FROM credit_ledger WHERE agent = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq',
    ),
    ledgerSum: statement('SELECT coalesce(sum(delta), 0) AS total FROM credit_ledger WHERE agent = ?'),
    sweepValues: statement(SWEEP_VALUES_SQL),
    sweepBuckets: statement('DELETE FROM rate_window WHERE expires_at <= ?'),
    turn: statement('SELECT state FROM turn WHERE key = ? AND expires_at > ?'),
    putTurn: statement(
      'INSERT INTO turn (key, state, expires_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET state = excluded.state, expires_at = excluded.expires_at',
    ),
    sweepTurns: statement('DELETE FROM turn WHERE expires_at <= ?'),
  };
}
