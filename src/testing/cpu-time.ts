/**
 * The CPU time this process spent while `run` ran, in ms (user + system, every thread). A guard against
 * super-linear work measured this way holds on a loaded machine, where wall-clock time stretches with the
 * other processes' share of the cores and CPU time does not.
 */
export function cpuTimeOf<T>(run: () => T): { result: T; cpuMs: number } {
  const before = process.cpuUsage();
  const result = run();
  const { user, system } = process.cpuUsage(before);
  return { result, cpuMs: (user + system) / 1000 };
}

/** `cpuTimeOf` for asynchronous work: the span counts whatever else this process ran meanwhile. */
export async function cpuTimeOfAsync<T>(run: () => Promise<T>): Promise<{ result: T; cpuMs: number }> {
  const before = process.cpuUsage();
  const result = await run();
  const { user, system } = process.cpuUsage(before);
  return { result, cpuMs: (user + system) / 1000 };
}
