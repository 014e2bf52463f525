/** The SQLite store's tables, created in one transaction when a file is first opened. */
export const SCHEMA_VERSION = 1;

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
`;
