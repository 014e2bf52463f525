// A cache hit against an uncached fetch of a local page, in one run: web_fetch of a ~60 KB article served on
// 127.0.0.1, through the whole tool (policy, fetch, extraction, window, envelope) with the cache off, and then
// served from the cache on memory, SQLite and Redis (a redis-server started here; skipped when there is none).
// The figure that matters is the ratio: how many times faster a hit is than reading the page again.
// Run: npx node bench/cache.bench.ts [calls]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPeriscope, type Periscope } from '../src/index.ts';
import { redisUnavailableReason, startRedisServer } from '../src/testing/redis-server.ts';
import { startTestServer } from '../src/testing/test-server.ts';

const calls = Number(process.argv[2] ?? 200);

const paragraph = (index: number) =>
  `<p>Paragraph ${index}: the harbour master kept a ledger of every ship that came in, with its cargo, its flag, ` +
  `the tide it rode and the pilot who brought it past the bar. <a href="/ships/${index}">Ship ${index}</a> ` +
  'was logged at dawn; the weather was fair and the swell low, the log says, before the wind turned.</p>';
const ARTICLE = `<!doctype html><html><head><title>Harbour ledger</title></head><body>
<nav>${Array.from({ length: 40 }, (_, index) => `<a href="/n/${index}">Section ${index}</a>`).join(' ')}</nav>
<article><h1>Harbour ledger</h1>${Array.from({ length: 160 }, (_, index) => `${index % 20 === 0 ? `<h2>Year ${1900 + index / 20}</h2>` : ''}${paragraph(index)}`).join('\n')}</article>
<footer>${'<p>Footer links and legal text.</p>'.repeat(20)}</footer></body></html>`;

interface Figures {
  p50Ms: number;
  meanMs: number;
}

function figures(latencies: number[]): Figures {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    p50Ms: sorted[Math.floor(sorted.length / 2)] ?? 0,
    meanMs: latencies.reduce((sum, value) => sum + value, 0) / latencies.length,
  };
}

async function time(periscope: Periscope, url: string, expectCached: boolean): Promise<Figures> {
  const latencies: number[] = [];
  for (let call = 0; call < calls; call++) {
    const started = performance.now();
    const result = await periscope.fetch({ url });
    latencies.push(performance.now() - started);
    const cached = (result.data as { cached?: boolean } | undefined)?.cached === true;
    if (result.isError || cached !== expectCached) throw new Error(`unexpected result: ${result.display}`);
  }
  return figures(latencies);
}

const server = await startTestServer({
  '/article': (_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE),
});
const url = `${server.url}/article`;
const network = { allowPrivateNetwork: ['127.0.0.1/32'] };
const folder = mkdtempSync(join(tmpdir(), 'periscope-cache-bench-'));
const rows: string[] = [];
const row = (name: string, value: Figures, base?: Figures) =>
  rows.push(
    `${name.padEnd(26)} p50 ${value.p50Ms.toFixed(3).padStart(8)} ms   mean ${value.meanMs.toFixed(3).padStart(8)} ms${
      base ? `   ${(base.p50Ms / value.p50Ms).toFixed(0).padStart(5)}× faster (p50)` : ''
    }`,
  );

try {
  const uncachedPeriscope = createPeriscope({ network, cache: { enabled: false } });
  await time(uncachedPeriscope, url, false); // warm-up: JIT, connection pool
  const uncached = await time(uncachedPeriscope, url, false);
  row('uncached fetch', uncached);

  const stores: Array<[string, string | undefined]> = [
    ['memory', 'memory:'],
    ['sqlite', `sqlite://${join(folder, 'state.db')}`],
  ];
  const redisReason = redisUnavailableReason();
  const redis = redisReason === false ? await startRedisServer() : undefined;
  stores.push(['redis', redis?.url]);
  for (const [name, storeUrl] of stores) {
    if (storeUrl === undefined) {
      rows.push(`${`cache hit, ${name}`.padEnd(26)} skipped: ${redisReason}`);
      continue;
    }
    const periscope = createPeriscope({ network, store: { url: storeUrl } });
    await periscope.fetch({ url }); // fills the cache
    await time(periscope, url, true); // warm-up
    row(`cache hit, ${name}`, await time(periscope, url, true), uncached);
    await periscope.close();
  }
  await redis?.stop();
  console.log(
    `web_fetch of a ${Math.round(ARTICLE.length / 1024)} KB local article, ${calls} sequential calls each`,
  );
  for (const line of rows) console.log(line);
} finally {
  await server.close();
  rmSync(folder, { recursive: true, force: true });
}
