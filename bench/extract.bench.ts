// Extraction speed over ../shared/corpus/readability/: Periscope's pipeline (what `periscope extract` runs)
// side by side with @mozilla/readability over jsdom and over linkedom, in one run. Each engine runs in
// its own child process so its peak RSS is its own.
// Run: npx node bench/extract.bench.ts [rounds]
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const CORPUS = new URL('../../shared/corpus/readability/', import.meta.url).pathname;
const ENGINES = ['periscope', 'readability+jsdom', 'readability+linkedom'] as const;
type Engine = (typeof ENGINES)[number];

interface EngineResult {
  engine: Engine;
  pages: number;
  pagesPerSecond: number;
  p50Ms: number;
  p95Ms: number;
  peakRssMb: number;
}

function loadPages(): Array<{ name: string; html: string }> {
  return readdirSync(CORPUS)
    .filter((name) => existsSync(join(CORPUS, name, 'source.html')))
    .sort()
    .map((name) => ({ name, html: readFileSync(join(CORPUS, name, 'source.html'), 'utf8') }));
}

async function extractorFor(
  engine: Engine,
): Promise<(html: string, url: string) => string | Promise<string>> {
  if (engine === 'periscope') {
    const { renderContent } = await import('../src/content/render-content.ts');
    const encoder = new TextEncoder();
    return async (html, url) =>
      (
        await renderContent({
          url,
          headers: { 'content-type': 'text/html' },
          body: encoder.encode(html),
          mode: 'markdown',
        })
      ).text;
  }
  const { Readability } = await import('@mozilla/readability');
  if (engine === 'readability+jsdom') {
    const { JSDOM, VirtualConsole } = await import('jsdom');
    const virtualConsole = new VirtualConsole(); // drops jsdom's "Could not parse CSS stylesheet" noise
    return (html, url) =>
      new Readability(new JSDOM(html, { url, virtualConsole }).window.document).parse()?.content ?? '';
  }
  const { parseHTML } = await import('linkedom');
  return (html) => new Readability(parseHTML(html).document as unknown as Document).parse()?.content ?? '';
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

async function runEngine(engine: Engine, rounds: number): Promise<EngineResult> {
  const pages = loadPages();
  const extract = await extractorFor(engine);
  for (const page of pages.slice(0, 10)) await extract(page.html, `http://fakehost/${page.name}/`); // warm-up
  const samples: number[] = [];
  const started = performance.now();
  for (let round = 0; round < rounds; round++) {
    for (const page of pages) {
      const t0 = performance.now();
      await extract(page.html, `http://fakehost/${page.name}/`);
      samples.push(performance.now() - t0);
    }
  }
  const elapsed = performance.now() - started;
  samples.sort((a, b) => a - b);
  return {
    engine,
    pages: samples.length,
    pagesPerSecond: (samples.length / elapsed) * 1000,
    p50Ms: percentile(samples, 0.5),
    p95Ms: percentile(samples, 0.95),
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  };
}

const childEngine = process.argv.find((arg) => arg.startsWith('--engine='))?.slice('--engine='.length) as
  | Engine
  | undefined;
const rounds = Number(process.argv.find((arg) => /^\d+$/.test(arg)) ?? 2);

if (childEngine) {
  process.stdout.write(JSON.stringify(await runEngine(childEngine, rounds)));
} else if (!existsSync(CORPUS)) {
  console.log(`skipped: the shared corpus (${CORPUS}) is not beside this checkout`);
} else {
  const self = new URL(import.meta.url).pathname;
  const results = ENGINES.map(
    (engine) =>
      JSON.parse(
        execFileSync(process.execPath, [self, `--engine=${engine}`, String(rounds)], {
          encoding: 'utf8',
          maxBuffer: 1 << 20,
        }),
      ) as EngineResult,
  );
  const base = results[0]!;
  console.log(
    `Extraction over ${base.pages / rounds} readability-corpus pages × ${rounds} rounds (node ${process.version})`,
  );
  console.log('engine                  pages/s   p50 ms   p95 ms   peak RSS   throughput vs periscope');
  for (const r of results) {
    console.log(
      `${r.engine.padEnd(22)} ${r.pagesPerSecond.toFixed(1).padStart(8)} ${r.p50Ms.toFixed(1).padStart(8)} ${r.p95Ms
        .toFixed(1)
        .padStart(
          8,
        )} ${`${r.peakRssMb.toFixed(0)} MB`.padStart(10)}   ${(base.pagesPerSecond / r.pagesPerSecond).toFixed(2)}× slower than periscope`.replace(
        / 1\.00× slower than periscope$/,
        ' —',
      ),
    );
  }
}
