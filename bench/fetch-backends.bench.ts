// web_fetch back-ends side by side: `local` and `browser` (real Chromium) on a client-rendered app and a static
// article, both served here on 127.0.0.1. Per fetch: median time and the peak RSS of Node plus every Chromium
// process (sampled every 10 ms). Browser: cold (launch included, a new browser each run), warm (pool ready, one
// at a time), and warm throughput with 4 fetches in flight. The browser runs with its defaults (network idle
// 500 ms), and with the quickest fitting wait: `waitUntil: load` for the article, `waitForSelector` for the app.
// Run: npx node bench/fetch-backends.bench.ts [warmRuns]
import { readdirSync, readFileSync } from 'node:fs';
import type { CallContext } from '../src/call-context.ts';
import { browserSchema } from '../src/config/fetch-schema.ts';
import { createBrowserFetchBackend } from '../src/fetch/backends/browser.ts';
import { createLocalFetchBackend } from '../src/fetch/backends/local.ts';
import type { FetchBackend } from '../src/fetch/fetch-backend.ts';
import { createHttpClient } from '../src/net/http-client.ts';
import { chromiumTestGate } from '../src/testing/chromium.ts';
import { startTestServer } from '../src/testing/test-server.ts';

const warmRuns = Number(process.argv[2] ?? 20);
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
const httpFetch = createHttpClient({ allowPrivateNetwork: ['127.0.0.1/32'] });
const context = (): CallContext => ({ signal: new AbortController().signal, fetch: httpFetch });

/** RSS of this process and every descendant (Chromium's browser, renderer, GPU and utility processes), in bytes. */
function treeRss(): number {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]);
      const kb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      rss.set(Number(entry), kb * 1024);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // the process ended while being read
    }
  }
  let total = 0;
  const queue = [process.pid];
  while (queue.length > 0) {
    const pid = queue.pop() as number;
    total += rss.get(pid) ?? 0;
    queue.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** Runs `work` while sampling the process tree's RSS; returns its time and the peak. */
async function measured<T>(work: () => Promise<T>): Promise<{ ms: number; peakRss: number; value: T }> {
  let peak = treeRss();
  const timer = setInterval(() => {
    peak = Math.max(peak, treeRss());
  }, 10);
  const started = performance.now();
  try {
    const value = await work();
    return { ms: performance.now() - started, peakRss: Math.max(peak, treeRss()), value };
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
  for (let index = 0; index < warmRuns + 2; index++) {
    const run = await measured(() => fetchOnce(local, path).catch(() => 0));
    if (index >= 2) samples.push(run.ms);
    peak = Math.max(peak, run.peakRss);
  }
  row(
    `local  ${label}`,
    `${median(samples).toFixed(1)} ms`,
    mb(peak),
    `${(1000 / median(samples)).toFixed(0)}/s`,
  );
}

async function browserCases(path: string, label: string, overrides: Record<string, unknown>, tag: string) {
  const config = browserSchema.parse({ idleShutdownMs: 600_000, ...overrides });
  const cold: number[] = [];
  let coldPeak = 0;
  for (let index = 0; index < 3; index++) {
    const backend = createBrowserFetchBackend({ config, maxBytes: 10_000_000 });
    const run = await measured(() => fetchOnce(backend, path));
    cold.push(run.ms);
    coldPeak = Math.max(coldPeak, run.peakRss);
    await backend.close();
  }
  row(`browser ${label} cold ${tag}`, `${median(cold).toFixed(0)} ms`, mb(coldPeak), '');
  const backend = createBrowserFetchBackend({ config, maxBytes: 10_000_000 });
  await fetchOnce(backend, path);
  await fetchOnce(backend, path);
  const warm: number[] = [];
  let warmPeak = 0;
  const startedWarm = performance.now();
  for (let index = 0; index < warmRuns; index++) {
    const run = await measured(() => fetchOnce(backend, path));
    warm.push(run.ms);
    warmPeak = Math.max(warmPeak, run.peakRss);
  }
  const serialRate = warmRuns / ((performance.now() - startedWarm) / 1000);
  row(
    `browser ${label} warm ${tag}`,
    `${median(warm).toFixed(0)} ms`,
    mb(warmPeak),
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
  row(`browser ${label} warm ×4 ${tag}`, '', mb(parallel.peakRss), `${rate.toFixed(1)}/s`);
  await backend.close();
}

const gate = chromiumTestGate();
console.log(
  `web_fetch back-ends, ${warmRuns} warm runs each (node ${process.version}, ${gate.skip || 'Chromium'})`,
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
const widths = [0, 1, 2, 3].map((column) => Math.max(...rows.map((cells) => (cells[column] ?? '').length)));
console.log(
  ['case', 'median', 'peak RSS', 'fetches/s']
    .map((cell, index) => cell.padEnd(widths[index] ?? 0))
    .join('  '),
);
for (const cells of rows) console.log(cells.map((cell, index) => cell.padEnd(widths[index] ?? 0)).join('  '));
