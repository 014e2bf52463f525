import { isPeriscopeError, type PeriscopeError } from '../errors.ts';
import { storeUnavailable } from './store-errors.ts';

// SQLite primary result codes (the low byte of an extended code).
const SQLITE_READONLY = 8;
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const SQLITE_CORRUPT = 11;
const SQLITE_CANTOPEN = 14;
const SQLITE_NOTADB = 26;

/** One clear error naming the file and what to do about it. */
export function sqliteFailure(
  error: unknown,
  path: string,
  busyTimeoutMs: number,
  operation: string,
): PeriscopeError {
  if (isPeriscopeError(error)) return error;
  const code = sqliteCode(error);
  const reason =
    error instanceof Error ? ((error as { errstr?: string }).errstr ?? error.message) : String(error);
  const where = `SQLite store ${path}`;
  if (code === SQLITE_BUSY || code === SQLITE_LOCKED)
    return storeUnavailable(
      'TIMEOUT',
      'sqlite',
      `${where} stayed locked by another connection for ${busyTimeoutMs} ms while ${operation}: find the process holding it (a stuck sqlite3 shell, a backup tool) or set store.url to another file.`,
      error,
    );
  if (code === SQLITE_CORRUPT || code === SQLITE_NOTADB)
    return storeUnavailable(
      'CONFIG_INVALID',
      'sqlite',
      `${where} is damaged or not a SQLite database (${reason}): move it aside (sqlite3's .recover may save its ledger) so a new one is created, or set store.url to another file.`,
      error,
    );
  if (code === SQLITE_CANTOPEN || code === SQLITE_READONLY || isFileSystemError(error))
    return storeUnavailable(
      'CONFIG_INVALID',
      'sqlite',
      `${where} cannot be opened for writing (${reason}): check that its directory exists and is writable, or set store.url to another file.`,
      error,
    );
  return storeUnavailable('NETWORK', 'sqlite', `${where} failed while ${operation}: ${reason}`, error);
}

function sqliteCode(error: unknown): number | undefined {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' ? code & 0xff : undefined;
}

function isFileSystemError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code);
}
