// The console's recent-calls ring buffer (src/surfaces/gateway/recent-calls.ts) on the call path: the time one
// `add` takes for a large web_fetch result, and the heap 1 000 kept calls hold when every page is a distinct 200 KB
// string (long strings are copied when cut, so a kept call never holds its whole page).
//
// Run: npx node --expose-gc bench/recent-calls.bench.ts   (without --expose-gc the heap figure is skipped)
import { createRecentCalls } from '../src/surfaces/gateway/recent-calls.ts';

const gc = (globalThis as { gc?: () => void }).gc;

function entry(text: string) {
  return {
    tool: 'web_fetch',
    surface: 'rest',
    agent: 'bench',
    session: 'bench/s1',
    input: { url: 'http://127.0.0.1/page' },
    result: {
      isError: false,
      output: text,
      data: { url: 'http://127.0.0.1/page', text, cached: false },
      display: 'fetch',
    },
    ms: 12,
  };
}

const timed = createRecentCalls({ capacity: 1000, maxAgeMs: 3_600_000 });
const page = 'High tide is at 06:12 and again at 18:40. '.repeat(1100); // 46 KB
const calls = 100_000;
for (let index = 0; index < 10_000; index += 1) timed.add(entry(page));
const started = performance.now();
for (let index = 0; index < calls; index += 1) timed.add(entry(page));
const perCallUs = ((performance.now() - started) * 1000) / calls;
console.log(`add, 46 KB result (output and data.text), capacity 1000: ${perCallUs.toFixed(1)} µs per call`);

if (gc) {
  const kept = createRecentCalls({ capacity: 1000, maxAgeMs: 3_600_000 });
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let index = 0; index < 3000; index += 1) {
    kept.add(entry(JSON.stringify({ index, body: 'x'.repeat(200_000) })));
  }
  gc();
  const mb = (process.memoryUsage().heapUsed - before) / 1e6;
  console.log(`heap held by ${kept.list().length} kept calls of distinct 200 KB pages: ${mb.toFixed(1)} MB`);
} else console.log('heap: skipped (run with --expose-gc)');
