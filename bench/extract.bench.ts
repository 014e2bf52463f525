// Main-content extraction, side by side in one run: Periscope's pipeline (what `periscope extract` runs)
// next to Mozilla Readability over linkedom and over jsdom, and defuddle (bench/extract-engines.ts). Three development sets from ../shared/corpus/:
//   trafilatura-dev  351 pages with human judgements: F1, precision, recall (trafilatura's metric),
//                    empty outputs, ms/page, pages/s
//   readability      130 pages with Readability.js's own output: agreement (word-shingle F1) and metadata
//   wcxb-dev         1 336 pages with main-content ground truth by page type: F1, precision, recall (the
//                    ScrapingHub metric) overall, per page type and per half (tune = even id, check = odd)
// Each engine runs in its own child process that only extracts (the parent scores), so its peak RSS is
// its own, with the same young-generation size for all (SEMI_SPACE_MB).
//
// Run: npx node bench/extract.bench.ts [--corpus=trafilatura-dev,readability,wcxb-dev] [--rounds=N]
//        [--engines=a,b] [--worst=N] [--semi-space-mb=N] [--json]
// --corpus runs only the sets named (all three by default); --worst=N lists the N worst pages of
// trafilatura-dev and of wcxb-dev for Periscope (10 by default; 0 for none).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CORPUS_ROOT,
  compareShingles,
  type ExpectedMetadata,
  type FidelityCounts,
  fidelityRates,
  judgeFidelity,
  judgeSnippets,
  listReadabilitySet,
  loadTrafilaturaDev,
  loadWcxbDev,
  METADATA_FIELDS,
  type MetadataField,
  paragraphsOf,
  READABILITY_PAGE_URL,
  READABILITY_SET,
  readPageBody,
  readWcxbBody,
  type ShingleCounts,
  type ShingleScore,
  type SnippetCounts,
  sameMetadata,
  shingleScore,
  snippetScore,
  WCXB_PAGE_TYPES,
  type WcxbHalf,
  type WcxbPageType,
  wcxbHalf,
} from './extract-corpus.ts';
import { ENGINES, type Engine, type Extraction, extractorFor, textOf } from './extract-engines.ts';
import { htmlText } from './extract-text.ts';

const CORPORA = ['trafilatura-dev', 'readability', 'wcxb-dev'] as const;
type Corpus = (typeof CORPORA)[number];

type FidelityScore = ReturnType<typeof fidelityRates>;

interface PageResult {
  file: string;
  counts: SnippetCounts;
  fidelity: FidelityCounts;
  missing: string[];
  leaked: string[];
}

/** One wcxb-dev page scored: its shingle counts and the page's own precision, recall and F1. */
interface WcxbResult {
  id: string;
  pageType: WcxbPageType;
  counts: ShingleCounts;
  precision: number;
  recall: number;
  f1: number;
  fidelity: FidelityCounts;
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
    /** Its `with` snippets of 12+ words, each judged as a paragraph. */
    fidelity: FidelityScore;
  };
  readability?: {
    pages: number;
    agreement: { precision: number; recall: number; f1: number };
    metadata: Record<MetadataField, number>;
    timing: Timing;
    /** The paragraphs of Readability.js's own output. */
    fidelity: FidelityScore;
  };
  wcxb?: {
    pages: number;
    overall: ShingleScore;
    byHalf: Record<WcxbHalf, ShingleScore>;
    byType: Record<WcxbPageType, ShingleScore & Record<WcxbHalf, ShingleScore> & { fidelity: FidelityScore }>;
    /** The truth's paragraphs (split on blank lines), overall and per half. */
    fidelity: FidelityScore & Record<WcxbHalf, FidelityScore>;
    empty: number;
    timing: Timing;
    perPage: WcxbResult[];
  };
  /** RSS with the engine loaded, before the first page. */
  startRssMb?: number;
  peakRssMb?: number;
}

/** What the engine's process writes, one JSON line each: a page's output, then the run's figures. */
type ChildLine =
  | { set: Corpus; index: number; output: Extraction | null }
  | {
      done: true;
      skipped?: string;
      timing?: Partial<Record<Corpus, Timing>>;
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
async function runEngine(engine: Engine, rounds: number, corpora: Corpus[]): Promise<void> {
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
  const emitter = (set: Corpus) => (index: number, output: Extraction | undefined) =>
    write({ set, index, output: output ?? null });
  // Peers get the text already decoded (off the clock); Periscope decodes the bytes itself, on it.
  const fromBytes = (body: Uint8Array, url: string) => ({
    html: engine === 'periscope' ? '' : decodeBody(body, { markup: 'html' }).text,
    body,
    url,
  });

  const timing: Partial<Record<Corpus, Timing>> = {};
  if (corpora.includes('trafilatura-dev')) {
    timing['trafilatura-dev'] = await timed(
      loadTrafilaturaDev({ withBodies: false }),
      rounds,
      (page) => fromBytes(readPageBody(page), page.url),
      attempt,
      emitter('trafilatura-dev'),
    );
  }
  if (corpora.includes('readability')) {
    const encoder = new TextEncoder();
    timing.readability = await timed(
      listReadabilitySet(),
      rounds,
      (name) => {
        const html = readFileSync(join(READABILITY_SET, name, 'source.html'), 'utf8');
        return { html, body: encoder.encode(html), url: READABILITY_PAGE_URL };
      },
      attempt,
      emitter('readability'),
    );
  }
  if (corpora.includes('wcxb-dev')) {
    timing['wcxb-dev'] = await timed(
      loadWcxbDev().map(({ id, url, directory }) => ({ id, url, directory })),
      rounds,
      (page) => fromBytes(readWcxbBody(page), page.url),
      attempt,
      emitter('wcxb-dev'),
    );
  }
  write({ done: true, timing, startRssMb, peakRssMb: process.resourceUsage().maxRSS / 1024 });
}

/** The parent's side: run the engine's process and score what it wrote. */
async function scoreEngine(
  engine: Engine,
  rounds: number,
  semiSpaceMb: number,
  corpora: Corpus[],
): Promise<EngineResult> {
  const self = new URL(import.meta.url).pathname;
  const v8Options = semiSpaceMb > 0 ? [`--max-semi-space-size=${semiSpaceMb}`] : [];
  const lines = execFileSync(
    process.execPath,
    [...v8Options, self, `--engine=${engine}`, `--rounds=${rounds}`, `--corpus=${corpora.join(',')}`],
    { encoding: 'utf8', maxBuffer: 1 << 30 },
  )
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ChildLine);
  const done = lines.find((line) => 'done' in line);
  if (!done?.timing) return { engine, skipped: done?.skipped ?? 'the engine’s process wrote no result' };
  const outputs = (set: Corpus) => {
    const bySet = new Map<number, Extraction | null>();
    for (const line of lines) if ('set' in line && line.set === set) bySet.set(line.index, line.output);
    return bySet;
  };
  const timing = done.timing;
  return {
    engine,
    ...(timing['trafilatura-dev']
      ? { trafilatura: scoreTrafilatura(outputs('trafilatura-dev'), timing['trafilatura-dev']) }
      : {}),
    ...(timing.readability
      ? { readability: scoreReadability(outputs('readability'), timing.readability) }
      : {}),
    ...(timing['wcxb-dev'] ? { wcxb: scoreWcxb(outputs('wcxb-dev'), timing['wcxb-dev']) } : {}),
    ...(done.startRssMb === undefined ? {} : { startRssMb: done.startRssMb }),
    ...(done.peakRssMb === undefined ? {} : { peakRssMb: done.peakRssMb }),
  };
}

function scoreTrafilatura(
  outputs: Map<number, Extraction | null>,
  timing: Timing,
): NonNullable<EngineResult['trafilatura']> {
  const judged = loadTrafilaturaDev({ withBodies: false });
  let empty = 0;
  const perPage = judged.map((page, index): PageResult => {
    const text = textOf(outputs.get(index));
    if (text.trim() === '') empty += 1;
    const squashed = text.replace(/\s+/g, ' ');
    const found = (snippet: string) => squashed.includes(snippet.replace(/\s+/g, ' '));
    return {
      file: page.file,
      counts: judgeSnippets(text, page),
      fidelity: judgeFidelity(text, page.with),
      missing: page.with.filter((snippet) => !found(snippet)),
      leaked: page.without.filter(found),
    };
  });
  const score = snippetScore(perPage.map((page) => page.counts));
  return {
    pages: judged.length,
    f1: score.f1,
    precision: score.precision,
    recall: score.recall,
    empty,
    timing,
    perPage,
    fidelity: fidelityRates(perPage.map((page) => page.fidelity)),
  };
}

function scoreReadability(
  outputs: Map<number, Extraction | null>,
  timing: Timing,
): NonNullable<EngineResult['readability']> {
  const pages = listReadabilitySet();
  const shingles: ShingleCounts[] = [];
  const fidelity: FidelityCounts[] = [];
  const metadata = Object.fromEntries(METADATA_FIELDS.map((field) => [field, 0])) as Record<
    MetadataField,
    number
  >;
  for (const [index, name] of pages.entries()) {
    const output = outputs.get(index);
    const expected = readFileSync(join(READABILITY_SET, name, 'expected.html'), 'utf8');
    const text = textOf(output);
    const expectedText = htmlText(expected);
    shingles.push(compareShingles(text, expectedText));
    fidelity.push(judgeFidelity(text, paragraphsOf(expectedText)));
    const expectedMetadata = JSON.parse(
      readFileSync(join(READABILITY_SET, name, 'expected-metadata.json'), 'utf8'),
    ) as ExpectedMetadata;
    for (const field of METADATA_FIELDS) {
      if (sameMetadata(output?.metadata[field] ?? undefined, expectedMetadata[field])) metadata[field] += 1;
    }
  }
  return {
    pages: pages.length,
    agreement: shingleScore(shingles),
    metadata,
    timing,
    fidelity: fidelityRates(fidelity),
  };
}

function scoreWcxb(
  outputs: Map<number, Extraction | null>,
  timing: Timing,
): NonNullable<EngineResult['wcxb']> {
  const pages = loadWcxbDev();
  let empty = 0;
  const perPage = pages.map((page, index): WcxbResult => {
    const text = textOf(outputs.get(index));
    if (text.trim() === '') empty += 1;
    const counts = compareShingles(text, page.truth);
    const { precision, recall, f1 } = shingleScore([counts]);
    const { exact, holed, missing } = judgeFidelity(text, paragraphsOf(page.truth));
    return {
      id: page.id,
      pageType: page.pageType,
      counts,
      precision,
      recall,
      f1,
      fidelity: { exact, holed, missing },
    };
  });
  const score = (results: WcxbResult[]) => shingleScore(results.map((page) => page.counts));
  const half = (results: WcxbResult[], which: WcxbHalf) =>
    score(results.filter((page) => wcxbHalf(page.id) === which));
  const fidelityOf = (results: WcxbResult[]) => fidelityRates(results.map((page) => page.fidelity));
  const halfFidelity = (which: WcxbHalf) => fidelityOf(perPage.filter((page) => wcxbHalf(page.id) === which));
  const byType = Object.fromEntries(
    WCXB_PAGE_TYPES.map((type) => {
      const ofType = perPage.filter((page) => page.pageType === type);
      return [
        type,
        {
          ...score(ofType),
          tune: half(ofType, 'tune'),
          check: half(ofType, 'check'),
          fidelity: fidelityOf(ofType),
        },
      ];
    }),
  ) as NonNullable<EngineResult['wcxb']>['byType'];
  return {
    pages: pages.length,
    overall: score(perPage),
    byHalf: { tune: half(perPage, 'tune'), check: half(perPage, 'check') },
    byType,
    fidelity: { ...fidelityOf(perPage), tune: halfFidelity('tune'), check: halfFidelity('check') },
    empty,
    timing,
    perPage,
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
const corpora = (option('corpus')?.split(',') ?? [...CORPORA]) as Corpus[];
const unknown = corpora.filter((name) => !CORPORA.includes(name));
const absent = corpora.filter((name) => !existsSync(join(CORPUS_ROOT, name)));

if (unknown.length > 0) {
  console.error(`unknown corpus ${unknown.join(', ')}: pick from ${CORPORA.join(', ')}`);
  process.exitCode = 2;
} else if (childEngine) {
  await runEngine(childEngine, rounds, corpora);
} else if (absent.length > 0) {
  console.log(
    `skipped: the shared corpus (${absent.join(', ')} in ${CORPUS_ROOT}) is not beside this checkout`,
  );
} else {
  const engines = (option('engines')?.split(',') ?? ENGINES) as Engine[];
  const results: EngineResult[] = [];
  for (const engine of engines) {
    process.stderr.write(`running ${engine}…\n`);
    results.push(await scoreEngine(engine, rounds, semiSpaceMb, corpora));
  }
  if (process.argv.includes('--json')) console.log(JSON.stringify(results, null, 2));
  else report(results, Number(option('worst') ?? 10));
}

function report(results: EngineResult[], worst: number): void {
  const percent = (value: number) => value.toFixed(3);
  const speed = (timing: Timing) =>
    `${(1000 / timing.msPerPage).toFixed(1).padStart(7)}  ${timing.p50.toFixed(1).padStart(6)}  ${timing.p95.toFixed(1).padStart(6)}`;
  const heap = semiSpaceMb > 0 ? `--max-semi-space-size=${semiSpaceMb}` : 'V8’s default heap sizes';
  console.log(
    `Extraction side by side (node ${process.version}, ${heap}, ${rounds} round(s) per set; ${corpora.join(', ')})\n`,
  );
  console.log('engine                 peak RSS  (loaded)   over the sets run, in its own process');
  for (const result of results) {
    if (result.skipped) console.log(`${result.engine.padEnd(22)} skipped: ${result.skipped}`);
    else
      console.log(
        `${result.engine.padEnd(22)} ${`${result.peakRssMb?.toFixed(0)} MB`.padStart(8)}  (${result.startRssMb?.toFixed(0)} MB)`,
      );
  }

  if (results.some((result) => result.trafilatura)) {
    console.log('\ntrafilatura-dev (human judgements; trafilatura’s metric)');
    console.log('engine                    F1   precision  recall  empty   pages/s  p50 ms  p95 ms');
    for (const result of results) {
      const set = result.trafilatura;
      if (!set) continue;
      console.log(
        `${result.engine.padEnd(22)} ${percent(set.f1)}  ${percent(set.precision).padStart(9)}  ${percent(set.recall).padStart(6)}  ${String(set.empty).padStart(5)}  ${speed(set.timing)}`,
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
  }

  if (results.some((result) => result.readability)) {
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
  }

  if (results.some((result) => result.wcxb)) {
    console.log('\nwcxb-dev (main-content ground truth; ScrapingHub metric; tune = even id, check = odd id)');
    console.log(
      'engine                    F1   precision  recall   tune F1  check F1  empty   pages/s  p50 ms  p95 ms  ms/page',
    );
    for (const result of results) {
      const set = result.wcxb;
      if (!set) continue;
      console.log(
        `${result.engine.padEnd(22)} ${percent(set.overall.f1)}  ${percent(set.overall.precision).padStart(9)}  ${percent(set.overall.recall).padStart(6)}  ${percent(set.byHalf.tune.f1).padStart(8)}  ${percent(set.byHalf.check.f1).padStart(8)}  ${String(set.empty).padStart(5)}  ${speed(set.timing)}  ${set.timing.msPerPage.toFixed(1).padStart(7)}`,
      );
    }
    const scored = results.filter((result) => result.wcxb);
    console.log(
      `\nwcxb-dev by page type: F1 (P / R) all pages, then F1 on the tune | check halves\n${'type (pages)'.padEnd(20)}${scored.map((result) => result.engine.padEnd(44)).join('')}`,
    );
    for (const type of WCXB_PAGE_TYPES) {
      const pages = scored[0]?.wcxb?.perPage.filter((page) => page.pageType === type).length ?? 0;
      const cells = scored.map((result) => {
        const score = result.wcxb?.byType[type];
        if (!score) return ''.padEnd(44);
        return `${percent(score.f1)} (${percent(score.precision)} / ${percent(score.recall)})  ${percent(score.tune.f1)} | ${percent(score.check.f1)}`.padEnd(
          44,
        );
      });
      console.log(`${`${type} (${pages})`.padEnd(20)}${cells.join('')}`);
    }
  }

  reportFidelity(results);

  const ours = results.find((result) => result.engine === 'periscope');
  for (const peer of ['readability+jsdom', 'readability+linkedom'] as const) {
    const other = results.find((result) => result.engine === peer);
    if (!ours || !other) continue;
    const ratios = (['trafilatura', 'readability', 'wcxb'] as const).flatMap((set) => {
      const theirs = other[set]?.timing.msPerPage;
      const mine = ours[set]?.timing.msPerPage;
      if (theirs === undefined || mine === undefined) return [];
      const name = set === 'trafilatura' ? 'trafilatura-dev' : set === 'wcxb' ? 'wcxb-dev' : set;
      return [`${(theirs / mine).toFixed(1)}× on ${name}`];
    });
    if (ratios.length === 0) continue;
    console.log(
      `\nperiscope throughput / ${peer}: ${ratios.join(', ')}${peer === 'readability+jsdom' ? ' (goal: ≥ 3×)' : ''}`,
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
  if (ours?.wcxb && worst > 0) {
    console.log(
      `\nperiscope's ${worst} worst wcxb-dev pages (by the page's F1; no output counts as 0; paragraphs of 12+ words exact/holed/missing):\n  id    half   type            F1      P      R   paragraphs e/h/m`,
    );
    const ranked = [...ours.wcxb.perPage]
      .sort((a, b) => a.f1 - b.f1 || a.id.localeCompare(b.id))
      .slice(0, worst);
    for (const page of ranked) {
      console.log(
        `  ${page.id.padEnd(5)} ${wcxbHalf(page.id).padEnd(6)} ${page.pageType.padEnd(14)} ${percent(page.f1)}  ${percent(page.precision)}  ${percent(page.recall)}   ${page.fidelity.exact}/${page.fidelity.holed}/${page.fidelity.missing}`,
      );
    }
  }
}

/**
 * Paragraphs of 12+ words of each set's reference (wcxb-dev's truth, Readability.js's output,
 * trafilatura-dev's `with` snippets), each exact, holed or missing in the engine's output
 * (`FidelityIndex` in extract-corpus.ts says precisely how): shares of all judged, pooled over pages.
 */
function reportFidelity(results: EngineResult[]): void {
  const rate = (value: number) => `${(100 * value).toFixed(2)} %`.padStart(8);
  const row = (label: string, engine: string, score: FidelityScore | undefined) => {
    if (!score) return;
    console.log(
      `${label.padEnd(22)} ${engine.padEnd(22)} ${String(score.paragraphs).padStart(10)}  ${rate(score.rates.exact)}  ${rate(score.rates.holed)}  ${rate(score.rates.missing)}`,
    );
  };
  console.log(
    '\nfidelity: paragraphs of 12+ words of the reference, exact / holed (words cut out) / missing in the output',
  );
  console.log(`${'set'.padEnd(22)} ${'engine'.padEnd(22)} paragraphs     exact     holed   missing`);
  for (const result of results) row('trafilatura-dev', result.engine, result.trafilatura?.fidelity);
  for (const result of results) row('readability', result.engine, result.readability?.fidelity);
  for (const result of results) row('wcxb-dev', result.engine, result.wcxb?.fidelity);
  for (const half of ['tune', 'check'] as const) {
    for (const result of results) row(`wcxb-dev ${half}`, result.engine, result.wcxb?.fidelity[half]);
  }
  for (const type of WCXB_PAGE_TYPES) {
    for (const result of results) row(`wcxb-dev ${type}`, result.engine, result.wcxb?.byType[type].fidelity);
  }
}
