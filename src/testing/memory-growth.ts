import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
/** V8's `gc()`, reachable once `--expose-gc` is set (a new context picks the flag up). */
const collectGarbage = runInNewContext('gc') as () => void;

const MB = 1024 * 1024;

const inUse = () => {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
};

/**
 * How far the JS heap plus Buffer memory rose above its level after a full GC while `run` ran, in MB: sampled
 * every millisecond and once at the end, so bytes a run buffered and garbage it left uncollected both count
 * (an unbounded read shows up either way). RSS is no measure here: pages an earlier test freed are reused
 * without growing it.
 */
export async function measureMemoryGrowth<T>(
  run: () => Promise<T>,
): Promise<{ result: T; growthMb: number }> {
  collectGarbage();
  const before = inUse();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, inUse());
  }, 1);
  try {
    const result = await run();
    peak = Math.max(peak, inUse());
    return { result, growthMb: (peak - before) / MB };
  } finally {
    clearInterval(sampler);
  }
}
