import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { redactUrlCredentials } from '../config/redact.ts';
import { DEFAULT_STORE_URL } from '../config/store-url.ts';
import { PeriscopeError } from '../errors.ts';
import { createMemoryStore } from './memory-store.ts';
import type { Store } from './store.ts';

/** `$XDG_STATE_HOME/periscope/state.db`, else `~/.local/state/periscope/state.db`. */
export function defaultSqlitePath(env: NodeJS.ProcessEnv = process.env): string {
  const stateHome = env.XDG_STATE_HOME?.trim() ? env.XDG_STATE_HOME : join(homedir(), '.local', 'state');
  return join(stateHome, 'periscope', 'state.db');
}

/**
 * The file a `sqlite:` URL names: `sqlite://default` (or `sqlite://`) the default path, `sqlite:///abs/file.db`,
 * `sqlite://~/file.db`, or `sqlite://relative/file.db` (from the working directory).
 */
export function sqlitePathFromUrl(url: string, env: NodeJS.ProcessEnv = process.env): string {
  const rest = url.replace(/^sqlite:(\/\/)?/i, '');
  if (rest === '' || rest === 'default') return defaultSqlitePath(env);
  if (rest === '~') return homedir();
  if (rest.startsWith('~/')) return join(homedir(), rest.slice(2));
  return resolve(rest);
}

/**
 * Opens the store `url` names (config `store.url`): `memory:`, `sqlite://PATH` or `redis://…`/`rediss://…`.
 * The SQLite and Redis modules are loaded only when used, the Redis client only for a Redis URL.
 */
export interface OpenStoreOptions {
  /** SQLite: write values on a thread of its own (a long-running server; see sqlite-writer.ts). */
  writerThread?: boolean;
}

export async function openStore(
  url: string = DEFAULT_STORE_URL,
  options: OpenStoreOptions = {},
): Promise<Store> {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url.trim())?.[1]?.toLowerCase();
  if (scheme === 'memory') return createMemoryStore();
  if (scheme === 'sqlite') {
    const { createSqliteStore } = await import('./sqlite-store.ts');
    return createSqliteStore({
      path: sqlitePathFromUrl(url.trim()),
      ...(options.writerThread ? { writerThread: true } : {}),
    });
  }
  if (scheme === 'redis' || scheme === 'rediss') {
    const { createRedisStore } = await import('./redis-store.ts');
    return createRedisStore({ url: url.trim() });
  }
  throw new PeriscopeError(
    'CONFIG_INVALID',
    `store.url ${JSON.stringify(redactUrlCredentials(url))} is not supported: use memory:, sqlite://PATH (sqlite://default for ${defaultSqlitePath()}) or redis://HOST:PORT.`,
  );
}
