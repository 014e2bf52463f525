import { type OpenStoreOptions, openStore } from './open-store.ts';
import type { Store } from './store.ts';

/** The state store, opened by the first call that needs it (so `--help` or `extract` never touch it). */
export interface LazyStore {
  /** The open store; a failed open is retried by the next call. */
  get(): Promise<Store>;
  /** Whether it has been opened. */
  readonly isOpen: boolean;
  /** Closes it if this object opened it (a store handed in stays open: its owner closes it). */
  close(): Promise<void>;
}

export function createLazyStore(source: string | Store, options: OpenStoreOptions = {}): LazyStore {
  const owned = typeof source === 'string';
  let opening: Promise<Store> | undefined = owned ? undefined : Promise.resolve(source);
  let closed = false;
  return {
    get() {
      if (opening === undefined) {
        const attempt = openStore(source as string, options);
        opening = attempt;
        attempt.catch(() => {
          if (opening === attempt) opening = undefined;
        });
      }
      return opening;
    },
    get isOpen() {
      return opening !== undefined && !closed;
    },
    async close() {
      if (closed) return;
      closed = true;
      if (!owned || opening === undefined) return;
      const store = await opening.catch(() => undefined);
      await store?.close();
    },
  };
}
