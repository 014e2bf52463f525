/** The store the CLI, `serve` and `mcp` use when `store.url` is unset: SQLite in the user's state folder. */
export const DEFAULT_STORE_URL = 'sqlite://default';
