// Store `consume` throughput and latency on memory, SQLite and Redis, in one run.
// Each store: one caller awaiting each call (latency: p50/p99), then 64 calls in flight (throughput), over
// 100 keys with a limit that is never reached (every call is a full read-modify-write).
// Redis runs against a redis-server started here on 127.0.0.1 (skipped, with the reason, when there is none).
// Run: npx node bench/store.bench.ts [secondsPerCase]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryStore } from '../src/store/memory-store.ts';
import { createRedisStore } from '../src/store/redis-store.ts';
import { createSqliteStore } from '../src/store/sqlite-store.ts';
import type { Store } from '../src/store/store.ts';
import { redisUnavailableReason, startRedisServer } from '../src/testing/redis-server.ts';

const secondsPerCase = Number(process.argv[2] ?? 1.5);
const KEYS = 100;
const LIMIT = 1_000_000_000;
const WINDOW_MS = 60_000;

interface Figures {
  opsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

function percentile(sorted: Float64Array, fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

/** `inFlight` callers, each awaiting its own calls, for `secondsPerCase`; latency of every call recorded. */
async function measure(store: Store, inFlight: number): Promise<Figures> {
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + secondsPerCase * 1000;
  let counter = 0;
  const caller = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const key = `bench:${counter++ % KEYS}`;
      const before = performance.now();
      await store.consume(key, 1, LIMIT, WINDOW_MS);
      latencies.push(performance.now() - before);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, caller));
  const elapsed = (performance.now() - started) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  return {
    opsPerSecond: latencies.length / elapsed,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
  };
}

async function bench(name: string, store: Store): Promise<void> {
  for (let index = 0; index < 2000; index++)
    await store.consume(`bench:${index % KEYS}`, 1, LIMIT, WINDOW_MS);
  const serial = await measure(store, 1);
  const parallel = await measure(store, 64);
  const row = (label: string, figures: Figures): string =>
    `${`${name} ${label}`.padEnd(24)} ${Math.round(figures.opsPerSecond).toLocaleString('en').padStart(10)} ops/s   p50 ${figures.p50Ms.toFixed(3).padStart(7)} ms   p99 ${figures.p99Ms.toFixed(3).padStart(7)} ms`;
  console.log(row('1 caller', serial));
  console.log(row('64 in flight', parallel));
  await store.close();
}

console.log(`Store consume(), ${secondsPerCase} s per case (node ${process.version})`);
await bench('memory', createMemoryStore());

const dir = mkdtempSync(join(tmpdir(), 'periscope-store-bench-'));
try {
  await bench('sqlite', createSqliteStore({ path: join(dir, 'state.db') }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const reason = redisUnavailableReason();
if (reason === false) {
  const server = await startRedisServer();
  try {
    await bench('redis', await createRedisStore({ url: server.url }));
  } finally {
    await server.stop();
  }
} else {
  console.log(`redis: skipped (${reason})`);
}
