// The search chain's own overhead: N searches against a local Brave stand-in, the provider called directly vs. the
// web_search tool (input validation, chain with a fallback provider behind it, health, pacing off, normalisation,
// output formatting), interleaved call by call so both see the same machine state. Reports the ratio of means and
// the added p50/p99 in ms. Target: under 1 ms added at p99.
// Run: npx node bench/search-chain.bench.ts [searches]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { validateConfig } from '../src/config/load-config.ts';
import { toHttpClientOptions } from '../src/config/network-options.ts';
import { createPeriscope } from '../src/index.ts';
import { createHttpClient } from '../src/net/http-client.ts';
import { braveSearchProvider } from '../src/search/providers/brave.ts';

const searches = Number(process.argv[2] ?? 1000);
const warmup = Math.min(200, searches);

// The stand-in runs in its own process, so its work never lands inside a measured call.
const STAND_IN = `
import { createServer } from 'node:http';
const body = JSON.stringify({
  type: 'search',
  web: {
    results: Array.from({ length: 10 }, (_, index) => ({
      title: 'Result <strong>' + index + '</strong> &amp; more',
      url: 'https://example.com/page/' + index + '?utm_source=bench',
      description: 'Snippet ' + index + ' with <b>bold</b> words and an entity &hellip; to clean up.',
      page_age: '2025-11-02T08:00:00',
    })),
  },
});
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end(body));
});
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
`;
const standIn = spawn(process.execPath, ['--input-type=module', '-e', STAND_IN], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const [portLine] = (await once(standIn.stdout, 'data')) as [Buffer];
const serverUrl = `http://127.0.0.1:${portLine.toString().trim()}`;

const config = validateConfig({
  search: { chain: ['brave', 'duckduckgo'], maxResults: 10 },
  providers: { brave: { apiKey: 'bench-key', baseUrl: serverUrl, minIntervalMs: 0 } },
});
/** Brave itself, timed inside each tool call: tool time minus this is exactly what the chain added to that call. */
let providerMs = 0;
const timedBrave = {
  ...braveSearchProvider,
  search: async (...args: Parameters<NonNullable<typeof braveSearchProvider.search>>) => {
    const started = performance.now();
    try {
      return await braveSearchProvider.search!(...args);
    } finally {
      providerMs = performance.now() - started;
    }
  },
};
const periscope = createPeriscope(config, { env: {}, providers: [timedBrave] });
const httpFetch = createHttpClient(toHttpClientOptions(config.network, { env: {} }));
const settings = { apiKey: 'bench-key', baseUrl: serverUrl };

async function direct(): Promise<void> {
  const response = await braveSearchProvider.search!(
    { query: 'periscope bench', count: 10 },
    { fetch: httpFetch, signal: new AbortController().signal, settings },
  );
  if (response.results.length !== 10) throw new Error('direct: expected 10 results');
}

async function throughTool(): Promise<void> {
  const result = await periscope.search({ query: 'periscope bench', count: 10 });
  if (result.isError) throw new Error(`tool: ${result.output}`);
}

async function time(run: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

const directMs: number[] = [];
const toolMs: number[] = [];
const addedMs: number[] = [];
for (let index = 0; index < warmup; index++) {
  await direct();
  await throughTool();
}
for (let index = 0; index < searches; index++) {
  // Alternate which goes first so neither always runs on a connection-warm or GC-fresh turn.
  if (index % 2 === 0) {
    directMs.push(await time(direct));
    toolMs.push(await time(throughTool));
  } else {
    toolMs.push(await time(throughTool));
    directMs.push(await time(direct));
  }
  addedMs.push((toolMs.at(-1) as number) - providerMs);
}
standIn.kill();

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const row = (name: string, values: number[]) =>
  `${name.padEnd(26)} mean ${mean(values).toFixed(3)} ms   p50 ${percentile(values, 50).toFixed(3)} ms   p99 ${percentile(values, 99).toFixed(3)} ms`;

console.log(
  `search chain overhead: ${searches} searches each, local Brave stand-in, node ${process.version}`,
);
console.log(row('brave provider, direct', directMs));
console.log(row('web_search tool (chain)', toolMs));
console.log(`ratio of means (tool / direct): ${(mean(toolMs) / mean(directMs)).toFixed(3)}`);
const addedP50 = percentile(toolMs, 50) - percentile(directMs, 50);
const addedP99 = percentile(toolMs, 99) - percentile(directMs, 99);
console.log(
  `difference of percentiles (tool - direct): p50 ${addedP50.toFixed(3)} ms, p99 ${addedP99.toFixed(3)} ms`,
);
console.log(
  `added by the chain, per call (tool time - provider time inside it): p50 ${percentile(addedMs, 50).toFixed(3)} ms, p99 ${percentile(addedMs, 99).toFixed(3)} ms (target < 1 ms at p99)`,
);
