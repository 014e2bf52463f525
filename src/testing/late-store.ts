import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from '../store/store.ts';

/**
 * `store` with every call answered `delayMs` late (`close` excepted): a loaded machine, made repeatable. Scenarios
 * about expiry times must still hold against it.
 */
export function lateStore(store: Store, delayMs: number): Store {
  return new Proxy(store, {
    get(target, name) {
      const value: unknown = Reflect.get(target, name);
      if (typeof value !== 'function') return value;
      if (name === 'close') return value.bind(target);
      return async (...args: unknown[]) => {
        await sleep(delayMs);
        return value.apply(target, args);
      };
    },
  });
}
