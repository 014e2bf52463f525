// Main-content extraction, side by side in one run: Periscope's pipeline (what `periscope extract` runs)
// next to Mozilla Readability over linkedom and over jsdom, and defuddle (a devDependency, for the bench
// only). Two development sets from ../shared/corpus/:
//   trafilatura-dev  351 pages with human judgements: F1, precision, recall (trafilatura's metric),
//                    empty outputs, ms/page, pages/s
//   readability      130 pages with Readability.js's own output: agreement (word-shingle F1) and metadata
// Each engine runs in its own child process that only extracts (the parent scores), so its peak RSS is
// its own, with the same young-generation size for all (SEMI_SPACE_MB).
//
// Run: npx node bench/extract.bench.ts [--rounds=N] [--engines=a,b] [--worst=N] [--semi-space-mb=N] [--json]
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  compareShingles,
  type ExpectedMetadata,
  judgeSnippets,
  listReadabilitySet,
  loadTrafilaturaDev,
  METADATA_FIELDS,
  type MetadataField,
  READABILITY_PAGE_URL,
  READABILITY_SET,
  readPageBody,
  type ShingleCounts,
  type SnippetCounts,
  sameMetadata,
  shingleScore,
  snippetScore,
  TRAFILATURA_DEV,
} from './extract-corpus.ts';

const ENGINES = ['periscope', 'readability+linkedom', 'readability+jsdom', 'defuddle'] as const;
type Engine = (typeof ENGINES)[number];

/** What one engine gives back for a page: its text, and the metadata it found. */
interface Extraction {
  text: string;
  metadata: Partial<Record<MetadataField, string | undefined>>;
}
type Extract = (page: { html: string; body: Uint8Array; url: string }) => Promise<Extraction>;

interface PageResult {
  file: string;
  counts: SnippetCounts;
  missing: string[];
  leaked: string[];
}

interface EngineResult {
  engine: Engine;
  /** Why the engine did not run, when it did not. */
  skipped?: string;
  trafilatura?: {
    pages: number;
    f1: number;
    precision: number;
    recall: number;
    empty: number;
    timing: Timing;
    perPage: PageResult[];
  };
  readability?: {
    pages: number;
    agreement: { precision: number; recall: number; f1: number };
    metadata: Record<MetadataField, number>;
    timing: Timing;
  };
  /** RSS with the engine loaded, before the first page. */
  startRssMb?: number;
  peakRssMb?: number;
}

async function extractorFor(engine: Engine): Promise<Extract | string> {
  if (engine === 'periscope') {
    const { renderContent } = await import('../src/content/render-content.ts');
    return async ({ body, url }) => {
      const result = await renderContent({
        url,
        headers: { 'content-type': 'text/html' },
        body,
        mode: 'text',
      });
      return {
        text: result.text,
        metadata: {
          title: result.title,
          byline: result.byline,
          lang: result.language,
          siteName: result.siteName,
          publishedTime: result.publishedAt,
        },
      };
    };
  }
  if (engine === 'defuddle') {
    let defuddle: typeof import('defuddle/node');
    try {
      defuddle = await import('defuddle/node');
    } catch {
      return 'defuddle is not installed (npm install --no-save defuddle)';
    }
    const { parseHTML } = await import('linkedom');
    const { htmlText } = await import('./extract-text.ts');
    // Its own page-parsing complaints (invalid JSON-LD and the like) are not the bench's output.
    console.error = () => {};
    console.warn = () => {};
    return async ({ html, url }) => {
      // The synchronous parse: `parseAsync` may fetch from the network (Reddit, YouTube extractors).
      const result = new defuddle.DefuddleClass(parseHTML(html).document as never, { url }).parse();
      return {
        text: htmlText(result.content ?? ''),
        metadata: {
          title: result.title,
          byline: result.author,
          lang: result.language,
          siteName: result.site,
          publishedTime: result.published,
        },
      };
    };
  }
  const { Readability } = await import('@mozilla/readability');
  const fromReadability = (document: unknown): Extraction => {
    const article = new Readability(document as Document).parse();
    return {
      text: article?.textContent ?? '',
      metadata: {
        title: article?.title ?? undefined,
        byline: article?.byline ?? undefined,
        lang: article?.lang ?? undefined,
        siteName: article?.siteName ?? undefined,
        publishedTime: article?.publishedTime ?? undefined,
      },
    };
  };
  if (engine === 'readability+jsdom') {
    const { JSDOM, VirtualConsole } = await import('jsdom');
    const virtualConsole = new VirtualConsole(); // drops jsdom's "Could not parse CSS stylesheet" noise
    return async ({ html, url }) => fromReadability(new JSDOM(html, { url, virtualConsole }).window.document);
  }
  const { parseHTML } = await import('linkedom');
  return async ({ html }) => fromReadability(parseHTML(html).document);
}

/** What the engine's process writes, one JSON line each: a page's output, then the run's figures. */
type ChildLine =
  | { set: 'trafilatura' | 'readability'; index: number; output: Extraction | null }
  | {
      done: true;
      skipped?: string;
      timing?: Record<'trafilatura' | 'readability', Timing>;
      startRssMb?: number;
      peakRssMb?: number;
    };

/**
 * Run `extract` over the pages, `rounds` times, reading each page just before its turn (so the corpus
 * is never held in memory at once) and timing only the extraction; `emit` gets the first round's output
 * and keeps nothing.
 */
async function timed<PAGE>(
  pages: PAGE[],
  rounds: number,
  load: (page: PAGE) => { html: string; body: Uint8Array; url: string },
  extract: (input: { html: string; body: Uint8Array; url: string }) => Promise<Extraction | undefined>,
  emit: (index: number, output: Extraction | undefined) => void,
): Promise<Timing> {
  for (const page of pages.slice(0, 5)) await extract(load(page)); // warm-up
  const samples: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    for (const [index, page] of pages.entries()) {
      const input = load(page);
      const started = performance.now();
      const output = await extract(input);
      samples.push(performance.now() - started);
      if (round === 0) emit(index, output);
    }
  }
  const sorted = samples.sort((a, b) => a - b);
  const at = (fraction: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? 0;
  return {
    msPerPage: sorted.reduce((sum, value) => sum + value, 0) / sorted.length,
    p50: at(0.5),
    p95: at(0.95),
  };
}

/** Time per page in ms: the mean (pages/s is its inverse), the median and the 95th percentile. */
interface Timing {
  msPerPage: number;
  p50: number;
  p95: number;
}

/**
 * The engine's side, in its own process: extraction only. Each page's output goes to stdout as it comes
 * (a pipe is written synchronously, so nothing piles up here); the parent does the scoring, so this
 * process's peak RSS is the engine's and not the bench's.
 */
async function runEngine(engine: Engine, rounds: number): Promise<void> {
  const write = (line: ChildLine) => process.stdout.write(`${JSON.stringify(line)}\n`);
  const extract = await extractorFor(engine);
  if (typeof extract === 'string') {
    write({ done: true, skipped: extract });
    return;
  }
  const { decodeBody } = await import('../src/content/charset.ts');
  const startRssMb = process.memoryUsage().rss / (1 << 20);
  const attempt = async (page: { html: string; body: Uint8Array; url: string }) => {
    try {
      return await extract(page);
    } catch {
      return undefined; // counted as empty output
    }
  };

  const trafilatura = await timed(
    loadTrafilaturaDev({ withBodies: false }),
    rounds,
    (page) => {
      const body = readPageBody(page);
      // Peers get the text already decoded (off the clock); Periscope decodes the bytes itself, on it.
      const html = engine === 'periscope' ? '' : decodeBody(body, { markup: 'html' }).text;
      return { html, body, url: page.url };
    },
    attempt,
    (index, output) => write({ set: 'trafilatura', index, output: output ?? null }),
  );
  const encoder = new TextEncoder();
  const readability = await timed(
    listReadabilitySet(),
    rounds,
    (name) => {
      const html = readFileSync(join(READABILITY_SET, name, 'source.html'), 'utf8');
      return { html, body: encoder.encode(html), url: READABILITY_PAGE_URL };
    },
    attempt,
    (index, output) => write({ set: 'readability', index, output: output ?? null }),
  );
  write({
    done: true,
    timing: { trafilatura, readability },
    startRssMb,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  });
}

/** The parent's side: run the engine's process and score what it wrote. */
async function scoreEngine(engine: Engine, rounds: number, semiSpaceMb: number): Promise<EngineResult> {
  const self = new URL(import.meta.url).pathname;
  const v8Options = semiSpaceMb > 0 ? [`--max-semi-space-size=${semiSpaceMb}`] : [];
  const lines = execFileSync(
    process.execPath,
    [...v8Options, self, `--engine=${engine}`, `--rounds=${rounds}`],
    { encoding: 'utf8', maxBuffer: 256 << 20 },
  )
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ChildLine);
  const done = lines.find((line) => 'done' in line);
  if (!done?.timing) return { engine, skipped: done?.skipped ?? 'the engine’s process wrote no result' };
  const outputs = (set: 'trafilatura' | 'readability') => {
    const bySet = new Map<number, Extraction | null>();
    for (const line of lines) if ('set' in line && line.set === set) bySet.set(line.index, line.output);
    return bySet;
  };

  const judged = loadTrafilaturaDev({ withBodies: false });
  const trafilaturaOutputs = outputs('trafilatura');
  let empty = 0;
  const perPage = judged.map((page, index): PageResult => {
    const text = trafilaturaOutputs.get(index)?.text ?? '';
    if (text.trim() === '') empty += 1;
    const squashed = text.replace(/\s+/g, ' ');
    const found = (snippet: string) => squashed.includes(snippet.replace(/\s+/g, ' '));
    return {
      file: page.file,
      counts: judgeSnippets(text, page),
      missing: page.with.filter((snippet) => !found(snippet)),
      leaked: page.without.filter(found),
    };
  });
  const score = snippetScore(perPage.map((page) => page.counts));

  const { htmlText } = await import('./extract-text.ts');
  const readabilityPages = listReadabilitySet();
  const readabilityOutputs = outputs('readability');
  const shingles: ShingleCounts[] = [];
  const metadata = Object.fromEntries(METADATA_FIELDS.map((field) => [field, 0])) as Record<
    MetadataField,
    number
  >;
  for (const [index, name] of readabilityPages.entries()) {
    const output = readabilityOutputs.get(index);
    const expected = readFileSync(join(READABILITY_SET, name, 'expected.html'), 'utf8');
    shingles.push(compareShingles(output?.text ?? '', htmlText(expected)));
    const expectedMetadata = JSON.parse(
      readFileSync(join(READABILITY_SET, name, 'expected-metadata.json'), 'utf8'),
    ) as ExpectedMetadata;
    for (const field of METADATA_FIELDS) {
      if (sameMetadata(output?.metadata[field] ?? undefined, expectedMetadata[field])) metadata[field] += 1;
    }
  }

  return {
    engine,
    trafilatura: {
      pages: judged.length,
      f1: score.f1,
      precision: score.precision,
      recall: score.recall,
      empty,
      timing: done.timing.trafilatura,
      perPage,
    },
    readability: {
      pages: readabilityPages.length,
      agreement: shingleScore(shingles),
      metadata,
      timing: done.timing.readability,
    },
    ...(done.startRssMb === undefined ? {} : { startRssMb: done.startRssMb }),
    ...(done.peakRssMb === undefined ? {} : { peakRssMb: done.peakRssMb }),
  };
}

/**
 * The young generation's size for every engine's process, in MB per semi-space: V8's default before
 * Node 24, which sizes it from the heap limit (64 MB on a machine with 16 GB or more). Left to grow that
 * far, the nursery alone adds about 100 MB to any engine's peak RSS while holding nothing: garbage
 * waiting for the next scavenge. `--semi-space-mb=0` runs with V8's own choice.
 */
const SEMI_SPACE_MB = 16;

const option = (name: string) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const rounds = Number(option('rounds') ?? 1);
const semiSpaceMb = Number(option('semi-space-mb') ?? SEMI_SPACE_MB);
const childEngine = option('engine') as Engine | undefined;

if (childEngine) {
  await runEngine(childEngine, rounds);
} else if (!existsSync(TRAFILATURA_DEV) || !existsSync(READABILITY_SET)) {
  console.log(
    `skipped: the shared corpus (${TRAFILATURA_DEV}, ${READABILITY_SET}) is not beside this checkout`,
  );
} else {
  const engines = (option('engines')?.split(',') ?? ENGINES) as Engine[];
  const results: EngineResult[] = [];
  for (const engine of engines) {
    process.stderr.write(`running ${engine}…\n`);
    results.push(await scoreEngine(engine, rounds, semiSpaceMb));
  }
  if (process.argv.includes('--json')) console.log(JSON.stringify(results, null, 2));
  else report(results, Number(option('worst') ?? 10));
}

function report(results: EngineResult[], worst: number): void {
  const percent = (value: number) => value.toFixed(3);
  const speed = (timing: Timing) =>
    `${(1000 / timing.msPerPage).toFixed(1).padStart(7)}  ${timing.p50.toFixed(1).padStart(6)}  ${timing.p95.toFixed(1).padStart(6)}`;
  const heap = semiSpaceMb > 0 ? `--max-semi-space-size=${semiSpaceMb}` : 'V8’s default heap sizes';
  console.log(`Extraction side by side (node ${process.version}, ${heap}, ${rounds} round(s) per set)\n`);
  console.log('trafilatura-dev (human judgements; trafilatura’s metric)');
  console.log(
    'engine                    F1   precision  recall  empty   pages/s  p50 ms  p95 ms  peak RSS  (loaded)',
  );
  for (const result of results) {
    const set = result.trafilatura;
    if (!set) {
      console.log(`${result.engine.padEnd(22)} skipped: ${result.skipped}`);
      continue;
    }
    console.log(
      `${result.engine.padEnd(22)} ${percent(set.f1)}  ${percent(set.precision).padStart(9)}  ${percent(set.recall).padStart(6)}  ${String(set.empty).padStart(5)}  ${speed(set.timing)}  ${`${result.peakRssMb?.toFixed(0)} MB`.padStart(8)}  (${result.startRssMb?.toFixed(0)} MB)`,
    );
  }
  // Periscope's rules were tuned looking only at the even pages of the sorted file list; the odd half is held out.
  console.log(
    '\nF1 by half (files sorted by name): even = the half extraction rules were tuned on, odd = held out',
  );
  for (const result of results) {
    const set = result.trafilatura;
    if (!set) continue;
    const sorted = [...set.perPage].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    const half = (parity: number) =>
      snippetScore(sorted.filter((_, index) => index % 2 === parity).map((page) => page.counts)).f1;
    console.log(`${result.engine.padEnd(22)} even ${percent(half(0))}   odd ${percent(half(1))}`);
  }
  console.log('\nreadability (agreement with Readability.js’s own output; metadata fields equal to its)');
  console.log(
    `engine                 agreement F1  (P / R)          pages/s  p50 ms  p95 ms  ${METADATA_FIELDS.join(' ')}`,
  );
  for (const result of results) {
    const set = result.readability;
    if (!set) continue;
    const fields = METADATA_FIELDS.map((field) => String(set.metadata[field]).padStart(field.length)).join(
      ' ',
    );
    console.log(
      `${result.engine.padEnd(22)} ${percent(set.agreement.f1).padStart(12)}  (${percent(set.agreement.precision)} / ${percent(set.agreement.recall)})  ${speed(set.timing)}  ${fields}   of ${set.pages}`,
    );
  }
  const ours = results.find((result) => result.engine === 'periscope');
  for (const peer of ['readability+jsdom', 'readability+linkedom'] as const) {
    const other = results.find((result) => result.engine === peer);
    if (!ours?.trafilatura || !ours.readability || !other?.trafilatura || !other.readability) continue;
    const throughput = (set: 'trafilatura' | 'readability') =>
      ((other[set]?.timing.msPerPage ?? 0) / (ours[set]?.timing.msPerPage ?? 1)).toFixed(1);
    console.log(
      `\nperiscope throughput / ${peer}: ${throughput('trafilatura')}× on trafilatura-dev, ${throughput('readability')}× on readability${peer === 'readability+jsdom' ? ' (goal: ≥ 3×)' : ''}`,
    );
  }
  if (ours?.trafilatura && worst > 0) {
    console.log(`\nperiscope's ${worst} worst trafilatura-dev pages (missed + leaked snippets):`);
    const ranked = [...ours.trafilatura.perPage]
      .filter((page) => page.counts.fn + page.counts.fp > 0)
      .sort((a, b) => b.counts.fn + b.counts.fp - (a.counts.fn + a.counts.fp))
      .slice(0, worst);
    for (const page of ranked) {
      console.log(`  ${page.file}`);
      for (const snippet of page.missing) console.log(`    missed  ${JSON.stringify(snippet.slice(0, 90))}`);
      for (const snippet of page.leaked) console.log(`    leaked  ${JSON.stringify(snippet.slice(0, 90))}`);
    }
  }
}
