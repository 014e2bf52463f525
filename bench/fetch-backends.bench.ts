// web_fetch back-ends side by side: `local` and `browser` (real Chromium) on a client-rendered app and a static
// article, both served here on 127.0.0.1. Per fetch: median time and the peak RSS of Node plus every Chromium
// process (the process tree, sampled every 20 ms; a sum of RSS counts pages shared between Chromium's processes
// once per process, so the PSS of the tree is shown too, read once with the pool warm). Browser: cold (launch
// included, a new browser each run), warm (pool ready, one at a time), and warm throughput with 4 fetches in
// flight. CPU/fetch is the user + system time of Node and every Chromium process per fetch: on a shared machine
// it says more than the wall-clock median, which also waits for CPUs that other work is using. The browser runs
// with its defaults (network idle 500 ms), and with the quickest fitting wait: `waitUntil: load` for the article,
// `waitForSelector` for the app.
// Loopback only: the client's connect guard refuses anything but 127.0.0.0/8 and ::1, and Chromium's own network
// goes to the refusing sink proxy (its count is printed). Stops by itself (a 15-minute safety timer exits too).
// Run: npx node bench/fetch-backends.bench.ts [warmRuns]
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { CallContext } from '../src/call-context.ts';
import { browserSchema } from '../src/config/fetch-schema.ts';
import { createBrowserFetchBackend } from '../src/fetch/backends/browser.ts';
import { createLocalFetchBackend } from '../src/fetch/backends/local.ts';
import type { FetchBackend } from '../src/fetch/fetch-backend.ts';
import { createHttpClient } from '../src/net/http-client.ts';
import { chromiumTestGate } from '../src/testing/chromium.ts';
import { createLoopbackConnectGuard } from '../src/testing/connect-guard.ts';
import { startTestServer } from '../src/testing/test-server.ts';

const warmRuns = Number(process.argv[2] ?? 20);
setTimeout(() => {
  console.error('fetch-backends bench: still running after 15 minutes; giving up');
  process.exit(2);
}, 15 * 60_000).unref();
const spa = (name: string) =>
  readFileSync(new URL(`../src/fetch/__fixtures__/spa/${name}`, import.meta.url), 'utf8');
const ARTICLE = `<!doctype html><html lang="en"><head><title>Rivers of Europe</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav><article><h1>Rivers of Europe</h1>
${Array.from({ length: 60 }, (_, index) => `<p>Paragraph ${index}: the Danube flows through ten countries, more than any other river in the world, and its basin drains a large part of central Europe.</p>`).join('\n')}
</article><footer>Copyright 2026 Example Corp.</footer></body></html>`;

const server = await startTestServer({
  '/article': (_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE),
  '/app': (_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(spa('index.html')),
  '/assets/index-4f2a9c.js': (_request, response) =>
    response.writeHead(200, { 'content-type': 'text/javascript' }).end(spa('app.js')),
  '/api/articles': (_request, response) =>
    response.writeHead(200, { 'content-type': 'application/json' }).end(spa('articles.json')),
});
const guard = createLoopbackConnectGuard();
const httpFetch = createHttpClient({
  allowPrivateNetwork: ['127.0.0.1/32'],
  beforeConnect: guard.beforeConnect,
});
let escapedToSink = 0;
const context = (): CallContext => ({ signal: new AbortController().signal, fetch: httpFetch });

const hasChildrenFiles = existsSync(`/proc/${process.pid}/task/${process.pid}/children`);

/** This process and every descendant (Chromium's browser, renderer, GPU and utility processes). */
function processTree(): number[] {
  const tree: number[] = [];
  const queue = [process.pid];
  while (queue.length > 0) {
    const pid = queue.pop() as number;
    tree.push(pid);
    if (!hasChildrenFiles) continue;
    try {
      for (const task of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ')) {
        if (task.trim() !== '') queue.push(Number(task));
      }
    } catch {
      // the process ended while being read
    }
  }
  return tree;
}

/** `field` (kB) of each process of the tree, summed, in bytes: VmRSS from status, Pss from smaps_rollup. */
function treeMemory(file: 'status' | 'smaps_rollup', field: 'VmRSS' | 'Pss'): number {
  let total = 0;
  for (const pid of processTree()) {
    try {
      const text = readFileSync(`/proc/${pid}/${file}`, 'utf8');
      total += Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0) * 1024;
    } catch {
      // the process ended while being read
    }
  }
  return total;
}
const treeRss = () => treeMemory('status', 'VmRSS');
/** CPU time (user + system) used so far by the tree's living processes, in ms (clock ticks of 10 ms). */
function treeCpuMs(): number {
  let ticks = 0;
  for (const pid of processTree()) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      ticks += Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
    } catch {
      // the process ended while being read
    }
  }
  return ticks * 10;
}
const treePss = () => treeMemory('smaps_rollup', 'Pss');

/** Runs `work` while sampling the process tree's RSS; returns its time and the peak. */
async function measured<T>(
  work: () => Promise<T>,
): Promise<{ ms: number; cpuMs: number; peakRss: number; value: T }> {
  let peak = treeRss();
  const cpuBefore = treeCpuMs();
  const timer = setInterval(() => {
    peak = Math.max(peak, treeRss());
  }, 20);
  const started = performance.now();
  try {
    const value = await work();
    const ms = performance.now() - started;
    return { ms, cpuMs: treeCpuMs() - cpuBefore, peakRss: Math.max(peak, treeRss()), value };
  } finally {
    clearInterval(timer);
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(0)} MB`;
const rows: string[][] = [];
const row = (...cells: string[]) => {
  rows.push(cells);
  console.error(cells.join('  '));
};

async function fetchOnce(backend: FetchBackend, path: string): Promise<number> {
  const page = await backend.fetchPage({ url: new URL(`${server.url}${path}`), mode: 'markdown' }, context());
  return page.content.text.length;
}

async function localCase(path: string, label: string) {
  const local = createLocalFetchBackend();
  const samples: number[] = [];
  let peak = 0;
  let cpuMs = 0;
  for (let index = 0; index < warmRuns + 2; index++) {
    const run = await measured(() => fetchOnce(local, path).catch(() => 0));
    if (index >= 2) {
      samples.push(run.ms);
      cpuMs += run.cpuMs;
    }
    peak = Math.max(peak, run.peakRss);
  }
  row(
    `local  ${label}`,
    `${median(samples).toFixed(1)} ms`,
    `${(cpuMs / warmRuns).toFixed(0)} ms`,
    mb(peak),
    mb(treePss()),
    `${(1000 / median(samples)).toFixed(0)}/s`,
  );
}

async function browserCases(path: string, label: string, overrides: Record<string, unknown>, tag: string) {
  const config = browserSchema.parse({ idleShutdownMs: 600_000, ...overrides });
  const cold: number[] = [];
  const coldCpu: number[] = [];
  let coldPeak = 0;
  for (let index = 0; index < 3; index++) {
    const backend = createBrowserFetchBackend({ config, maxBytes: 10_000_000 });
    const run = await measured(() => fetchOnce(backend, path));
    cold.push(run.ms);
    coldCpu.push(run.cpuMs);
    coldPeak = Math.max(coldPeak, run.peakRss);
    await backend.close();
  }
  row(
    `browser ${label} cold ${tag}`,
    `${median(cold).toFixed(0)} ms`,
    `${median(coldCpu).toFixed(0)} ms`,
    mb(coldPeak),
    '',
    '',
  );
  const backend = createBrowserFetchBackend({ config, maxBytes: 10_000_000 });
  await fetchOnce(backend, path);
  await fetchOnce(backend, path);
  const warm: number[] = [];
  let warmPeak = 0;
  let warmCpu = 0;
  const startedWarm = performance.now();
  for (let index = 0; index < warmRuns; index++) {
    const run = await measured(() => fetchOnce(backend, path));
    warm.push(run.ms);
    warmCpu += run.cpuMs;
    warmPeak = Math.max(warmPeak, run.peakRss);
  }
  const serialRate = warmRuns / ((performance.now() - startedWarm) / 1000);
  row(
    `browser ${label} warm ${tag}`,
    `${median(warm).toFixed(0)} ms`,
    `${(warmCpu / warmRuns).toFixed(0)} ms`,
    mb(warmPeak),
    mb(treePss()),
    `${serialRate.toFixed(1)}/s`,
  );
  const parallel = await measured(async () => {
    let done = 0;
    const worker = async () => {
      while (done < warmRuns) {
        done += 1;
        await fetchOnce(backend, path);
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    return done;
  });
  const rate = parallel.value / (parallel.ms / 1000);
  row(
    `browser ${label} warm ×4 ${tag}`,
    '',
    `${(parallel.cpuMs / parallel.value).toFixed(0)} ms`,
    mb(parallel.peakRss),
    mb(treePss()),
    `${rate.toFixed(1)}/s`,
  );
  escapedToSink += backend.stats().escaped.length;
  await backend.close();
}

const gate = chromiumTestGate();
console.log(
  `web_fetch back-ends, ${warmRuns} warm runs each (node ${process.version}, ${gate.skip || 'Chromium'}; load average ${loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')} on ${navigator.hardwareConcurrency} CPUs)`,
);
await localCase('/article', 'static article');
await localCase('/app', 'app shell (EMPTY_CONTENT)');
if (gate.skip === false) {
  await browserCases('/article', 'static article', {}, '(networkidle 500 ms)');
  await browserCases('/article', 'static article', { waitUntil: 'load' }, '(load)');
  await browserCases('/app', 'client-rendered app', {}, '(networkidle 500 ms)');
  // `load` comes before the app has its data; waiting for the element it renders is the app's own floor.
  await browserCases('/app', 'client-rendered app', { waitForSelector: '#root main' }, '(selector)');
}
await server.close();
const header = ['case', 'median', 'CPU/fetch', 'peak RSS', 'PSS', 'fetches/s'];
const widths = header.map((cell, column) =>
  Math.max(cell.length, ...rows.map((cells) => (cells[column] ?? '').length)),
);
console.log(header.map((cell, index) => cell.padEnd(widths[index] ?? 0)).join('  '));
for (const cells of rows) console.log(cells.map((cell, index) => cell.padEnd(widths[index] ?? 0)).join('  '));
console.log(
  `network: ${guard.attempts.length} connects, all loopback (${guard.violations.length} refused); ${escapedToSink} of Chromium's own connections met the sink proxy`,
);
if (guard.violations.length > 0) process.exitCode = 1;
