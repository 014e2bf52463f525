/**
 * Concurrent calls for one key share one promise: the first runs `load`, the rest wait for it. In-process only;
 * the key is forgotten as soon as the promise settles.
 */
export interface SingleFlight {
  run<VALUE>(key: string, load: () => Promise<VALUE>): { promise: Promise<VALUE>; shared: boolean };
}

export function createSingleFlight(): SingleFlight {
  const flights = new Map<string, Promise<unknown>>();
  return {
    run<VALUE>(key: string, load: () => Promise<VALUE>) {
      const existing = flights.get(key) as Promise<VALUE> | undefined;
      if (existing !== undefined) return { promise: existing, shared: true };
      const promise = load().finally(() => flights.delete(key));
      flights.set(key, promise);
      promise.catch(() => {}); // the callers handle it; this copy must not count as unhandled
      return { promise, shared: false };
    },
  };
}
