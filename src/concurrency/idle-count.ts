/**
 * A count of things under way (calls running, answers being written) and a wait for none: what a graceful shutdown
 * waits on.
 */
export function createIdleCount() {
  let count = 0;
  const waiting = new Set<() => void>();
  return {
    get count(): number {
      return count;
    },
    enter(): void {
      count += 1;
    },
    leave(): void {
      count -= 1;
      if (count === 0) for (const wake of [...waiting]) wake();
    },
    /** Resolves once the count is zero (at once when it is). */
    idle(): Promise<void> {
      if (count === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const wake = () => {
          waiting.delete(wake);
          resolve();
        };
        waiting.add(wake);
      });
    },
  };
}

export type IdleCount = ReturnType<typeof createIdleCount>;
