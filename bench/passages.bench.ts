// Focused reading (web_fetch with `query`) on real questions: ../shared/corpus/squad-train/ (SQuAD v1.1, 44
// Wikipedia articles, 11 877 questions; its README defines the pages, the scoring rule, the BM25 reference and the
// 600-question sample). Each article is served on 127.0.0.1 as the README's HTML and fetched once through the real
// library (the full extracted text and outline, and the first 2 000-character window); then, in process, for
// every question at maxChars 2 000, side by side:
//   focused    selectPassages (src/content/passages/select-passages.ts) over the extracted text
//   truncation the page's first window without a query (today's web_fetch)
//   bm25       the README's reference: plain BM25 over the article's paragraphs, best first, cut at 2 000
// reporting answered %, median tokens (characters / 4), p50/p95 ms of selection and offsets-exact %. Tuning is
// done on the dev half (even-indexed articles) only; the odd-indexed articles are held out and reported beside it.
// Also: the selection's time on a 50 000-word document.
//
// Run: npx node bench/passages.bench.ts [--dev] [--one-edit=N] [--cli[=N]] [--json]
//   --dev      for tuning: the dev half only (all its questions), nothing held out is read or scored, no sample,
//              no long document; about a third of the full run's time. Check the held-out half once a change is
//              decided, with the full run.
//   --one-edit=N  match query words of N letters or more the page lacks at one edit (0: off; default: the
//              ranker's own, DEFAULT_WEIGHTS.oneEditMinLength).
//   --multilingual  instead: ../shared/corpus/qa-multilingual (fr, nb, ar, zh, ja, th), in process over each page's
//              text (the title, then the paragraphs, joined by blank lines; not served), scored by its README's
//              rule; even-indexed articles (dev) and odd-indexed ones (held out) per language.
//   --cli[=N]  also run N sample questions (default 40) end to end through `periscope fetch --query`, one at a
//              time with a fresh HOME and working folder, when web_fetch has a `query` input.
//
// Last full run (docs/decisions/0014-focused-reading.md): focused 95.61% dev, 93.53% held out (97.0% / 95.7% on the
// 600-question sample); BM25 reference 89.4% / 85.6%; offsets exact 100%.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_WEIGHTS, type ScoreWeights } from '../src/content/passages/score-units.ts';
import { selectPassages } from '../src/content/passages/select-passages.ts';
import { PASSAGE_SEPARATOR } from '../src/content/passages/types.ts';
import { createPeriscope } from '../src/index.ts';
import { seededRandom } from '../src/testing/seeded-random.ts';
import type { ToolResult } from '../src/tool-call.ts';
import { type WebFetchData, webFetchInputSchema } from '../src/tools/web-fetch.ts';

const CORPUS = new URL('../../shared/corpus/squad-train/', import.meta.url).pathname;
const MAX_CHARS = 2_000;
const MULTILINGUAL = new URL('../../shared/corpus/qa-multilingual/', import.meta.url).pathname;
const MULTILINGUAL_LANGUAGES = ['fr', 'nb', 'ar', 'zh', 'ja', 'th'];
const SAMPLE_SIZE = 600;
const SAMPLE_SEED = 20261126;
const SAMPLE_DIGEST = 'd6c77f81575a';
const LONG_DOCUMENT_WORDS = 50_000;

interface Question {
  id: string;
  question: string;
  answers: string[];
  paragraph: number;
}
interface Article {
  title: string;
  paragraphs: string[];
  questions: Question[];
}
interface FetchedArticle {
  text: string;
  title?: string | undefined;
  language?: string | undefined;
  outline?: Array<{ level: number; title: string; offset: number }> | undefined;
  firstWindow: string;
}

const args = process.argv.slice(2);
const cliArgument = args.find((argument) => argument === '--cli' || argument.startsWith('--cli='));
const cliCount = cliArgument?.includes('=') ? Number(cliArgument.split('=')[1]) : 40;
const asJson = args.includes('--json');
const devOnly = args.includes('--dev');
const oneEditArgument = args.find((argument) => argument.startsWith('--one-edit='));
/** The ranker's weights: the defaults, or with `--one-edit=N` query words of N letters or more matched at one edit (0: off). */
const weights: ScoreWeights = oneEditArgument
  ? { ...DEFAULT_WEIGHTS, oneEditMinLength: Number(oneEditArgument.split('=')[1]) }
  : DEFAULT_WEIGHTS;

// ---- the README's page, sample and scoring ----

const displayTitle = (title: string) => decodeURIComponent(title).replace(/_/g, ' ');
const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const pagePath = (index: number, article: Article) =>
  `/wiki/${index}/${encodeURIComponent(displayTitle(article.title).replace(/ /g, '_'))}`;

function pageHtml(article: Article): string {
  const title = escapeHtml(displayTitle(article.title));
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${title} - Open Encyclopedia</title>`,
    '</head>',
    '<body>',
    '<header class="site-header">',
    '<a class="logo" href="/">Open Encyclopedia</a>',
    '<nav class="site-nav"><ul><li><a href="/">Home</a></li><li><a href="/random">Random article</a></li><li><a href="/recent">Recent changes</a></li><li><a href="/about">About</a></li></ul></nav>',
    '</header>',
    '<main id="content">',
    '<article>',
    `<h1>${title}</h1>`,
    ...article.paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`),
    '</article>',
    '</main>',
    '<footer class="site-footer">',
    '<p>Text from Wikipedia via SQuAD v1.1 (Rajpurkar et al., 2016), licensed CC BY-SA 4.0.</p>',
    '<p><a href="/privacy">Privacy policy</a> · <a href="/terms">Terms of use</a> · <a href="/contact">Contact</a></p>',
    '</footer>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function shuffle<T>(items: T[], random: () => number): T[] {
  for (let index = items.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [items[index], items[other]] = [items[other]!, items[index]!];
  }
  return items;
}

/** The README's stratified sample: [article index, question index] pairs, in article order. */
function stratifiedSample(articles: Article[]): Array<[number, number]> {
  const random = seededRandom(SAMPLE_SEED);
  const order = shuffle(
    articles.map((_, index) => index),
    random,
  );
  const shuffled = articles.map((article) =>
    shuffle(
      article.questions.map((_, index) => index),
      random,
    ),
  );
  const quota = articles.map(() => 0);
  for (let taken = 0, progress = true; taken < SAMPLE_SIZE && progress; ) {
    progress = false;
    for (const index of order) {
      if (taken >= SAMPLE_SIZE) break;
      if (quota[index]! < articles[index]!.questions.length) {
        quota[index]!++;
        taken++;
        progress = true;
      }
    }
  }
  return articles.flatMap((_, index) =>
    shuffled[index]!.slice(0, quota[index]).map((question): [number, number] => [index, question]),
  );
}

const normalize = (text: string) =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\p{P}\p{S}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();

function isAnswered(text: string, answers: readonly string[]): boolean {
  if (text.length > MAX_CHARS) return false;
  const haystack = ` ${normalize(text)} `;
  return answers.some((answer) => {
    const needle = normalize(answer);
    return needle !== '' && haystack.includes(` ${needle} `);
  });
}

const plainTokens = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** The README's BM25 reference, computed as the scorer does (not by Periscope). */
function bm25Reference(paragraphs: readonly string[], question: string): string {
  const terms = [...new Set(plainTokens(question))];
  const documents = paragraphs.map(plainTokens);
  const averageLength = documents.reduce((sum, tokens) => sum + tokens.length, 0) / documents.length;
  const frequency = new Map<string, number>();
  for (const tokens of documents)
    for (const term of new Set(tokens)) frequency.set(term, (frequency.get(term) ?? 0) + 1);
  const scored = documents.map((tokens, index) => {
    const counts = new Map<string, number>();
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    let score = 0;
    for (const term of terms) {
      const tf = counts.get(term) ?? 0;
      if (tf === 0) continue;
      const n = frequency.get(term)!;
      const idf = Math.log(1 + (paragraphs.length - n + 0.5) / (n + 0.5));
      score += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * tokens.length) / averageLength));
    }
    return { score, index };
  });
  scored.sort((left, right) => right.score - left.score || left.index - right.index);
  return scored
    .map(({ index }) => paragraphs[index])
    .join('\n\n')
    .slice(0, MAX_CHARS);
}

// ---- measuring ----

const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
};

interface Tally {
  questions: number;
  answered: { focused: number; truncation: number; bm25: number };
  tokens: { focused: number[]; truncation: number[]; bm25: number[] };
  ms: number[];
  offsetsExact: number;
  /** Questions no word of which matched the page (the passages are its opening sentences). */
  unmatched: number;
}
const newTally = (): Tally => ({
  questions: 0,
  answered: { focused: 0, truncation: 0, bm25: 0 },
  tokens: { focused: [], truncation: [], bm25: [] },
  ms: [],
  offsetsExact: 0,
  unmatched: 0,
});

function measure(tally: Tally, article: Article, fetched: FetchedArticle, question: Question): void {
  const started = performance.now();
  const selection = selectPassages(
    fetched.text,
    {
      query: question.question,
      maxChars: MAX_CHARS,
      outline: fetched.outline,
      title: fetched.title,
      language: fetched.language,
    },
    weights,
  );
  tally.ms.push(performance.now() - started);
  if (!selection.matched) tally.unmatched++;
  const focused = selection.passages.map((passage) => passage.text).join(PASSAGE_SEPARATOR);
  const bm25 = bm25Reference(article.paragraphs, question.question);
  tally.questions++;
  const texts = { focused, truncation: fetched.firstWindow, bm25 };
  for (const key of ['focused', 'truncation', 'bm25'] as const) {
    if (isAnswered(texts[key], question.answers)) tally.answered[key]++;
    tally.tokens[key].push(texts[key].length / 4);
  }
  const exact =
    selection.passages.length > 0 &&
    selection.passages.every((passage) => fetched.text.slice(passage.start, passage.end) === passage.text);
  if (exact) tally.offsetsExact++;
}

function summary(tally: Tally) {
  const percent = (count: number) => Number(((100 * count) / Math.max(1, tally.questions)).toFixed(2));
  return {
    questions: tally.questions,
    focused: percent(tally.answered.focused),
    truncation: percent(tally.answered.truncation),
    bm25: percent(tally.answered.bm25),
    tokensP50: {
      focused: percentile(tally.tokens.focused, 0.5),
      truncation: percentile(tally.tokens.truncation, 0.5),
      bm25: percentile(tally.tokens.bm25, 0.5),
    },
    msP50: Number(percentile(tally.ms, 0.5).toFixed(2)),
    msP95: Number(percentile(tally.ms, 0.95).toFixed(2)),
    offsetsExact: percent(tally.offsetsExact),
    unmatched: tally.unmatched,
  };
}

// ---- serving and fetching ----

async function serve(articles: Article[]): Promise<{ server: Server; origin: string }> {
  const pages = new Map(articles.map((article, index) => [pagePath(index, article), pageHtml(article)]));
  const server = createServer((request, response) => {
    const page = pages.get(request.url ?? '');
    if (page === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Each article's extracted text and first window; with `only`, the others are left empty and not fetched. */
async function fetchArticles(
  articles: Article[],
  origin: string,
  only: (index: number) => boolean = () => true,
): Promise<FetchedArticle[]> {
  const periscope = createPeriscope({
    network: { allowPrivateNetwork: ['127.0.0.1/32'] },
    fetch: { robots: 'ignore', maxTokens: 1_000_000 },
  });
  try {
    const fetched: FetchedArticle[] = [];
    for (const [index, article] of articles.entries()) {
      if (!only(index)) {
        fetched.push({ text: '', firstWindow: '' });
        continue;
      }
      const url = origin + pagePath(index, article);
      let text = '';
      let first: WebFetchData | undefined;
      for (let startIndex: number | undefined = 0; startIndex !== undefined; ) {
        const data = pageData(await periscope.fetch({ url, maxChars: 1_000_000, startIndex }), url);
        first ??= data;
        text += data.text;
        startIndex = data.truncated ? data.nextStartIndex : undefined;
      }
      const window = pageData(await periscope.fetch({ url, maxChars: MAX_CHARS }), url);
      fetched.push({
        text,
        title: first?.title,
        language: first?.language,
        outline: first?.outline,
        firstWindow: window.text,
      });
    }
    return fetched;
  } finally {
    await periscope.close();
  }
}

function pageData(result: ToolResult<WebFetchData>, url: string): WebFetchData {
  if (result.isError || !result.data || 'error' in result.data) throw new Error(`${url}: ${result.output}`);
  return result.data;
}

/** Selection time on one long document: the extracted articles end to end until 50 000 words. */
function longDocumentTiming(articles: Article[], fetched: FetchedArticle[]) {
  let document = '';
  let used = 0;
  while ((document.match(/\S+/g)?.length ?? 0) < LONG_DOCUMENT_WORDS && used < fetched.length)
    document += `${fetched[used++]!.text}\n\n`;
  const questions = articles.slice(0, used).flatMap((article) => article.questions.slice(0, 20));
  let ms: number[] = [];
  for (let round = 0; round < 2; round++) {
    ms = []; // the first round warms the code up
    for (const question of questions) {
      const started = performance.now();
      selectPassages(document, { query: question.question, maxChars: MAX_CHARS, language: 'en' }, weights);
      ms.push(performance.now() - started);
    }
  }
  return {
    words: document.match(/\S+/g)?.length ?? 0,
    chars: document.length,
    queries: ms.length,
    msP50: Number(percentile(ms, 0.5).toFixed(2)),
    msP95: Number(percentile(ms, 0.95).toFixed(2)),
  };
}

// ---- end to end through the CLI ----

/** One CLI call; asynchronous, so this process's page server keeps answering while it runs. */
function runCommand(
  file: string,
  argv: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ status: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(file, argv, { ...options, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (error, stdout) =>
      resolve({ status: error ? Number(error.code ?? 1) || 1 : 0, stdout }),
    );
  });
}

async function runCli(
  articles: Article[],
  fetched: FetchedArticle[],
  sample: Array<[number, number]>,
  origin: string,
  count: number,
) {
  if (!('query' in webFetchInputSchema.shape))
    return { skipped: 'web_fetch has no `query` input on this branch (the CLI cannot take --query yet)' };
  const binary = new URL('../bin/periscope.js', import.meta.url).pathname;
  const step = Math.max(1, Math.floor(sample.length / count));
  let questions = 0;
  let answered = 0;
  let offsetsExact = 0;
  const ms: number[] = [];
  const tokens: number[] = [];
  for (let position = 0; position < sample.length && questions < count; position += step) {
    const [articleIndex, questionIndex] = sample[position]!;
    const article = articles[articleIndex]!;
    const question = article.questions[questionIndex]!;
    const home = mkdtempSync(join(tmpdir(), 'periscope-passages-'));
    const started = performance.now();
    const run = await runCommand(
      process.execPath,
      [
        binary,
        'fetch',
        origin + pagePath(articleIndex, article),
        '--query',
        question.question,
        '--max-chars',
        String(MAX_CHARS),
        '--json',
        '--allow-private-network',
        '127.0.0.1/32',
      ],
      { cwd: home, env: { ...process.env, HOME: home } },
    );
    ms.push(performance.now() - started);
    rmSync(home, { recursive: true, force: true });
    questions++;
    let data: { text?: string; passages?: Array<{ text: string; start: number; end: number }> } | undefined;
    try {
      data = (JSON.parse(run.stdout) as { data?: typeof data }).data;
    } catch {
      data = undefined;
    }
    const text = data?.text ?? data?.passages?.map((passage) => passage.text).join(PASSAGE_SEPARATOR) ?? '';
    if (run.status === 0 && isAnswered(text, question.answers)) answered++;
    tokens.push(text.length / 4);
    const document = fetched[articleIndex]!.text;
    const passages = data?.passages ?? [];
    if (
      passages.length > 0 &&
      passages.every((passage) => document.slice(passage.start, passage.end) === passage.text)
    )
      offsetsExact++;
  }
  return {
    questions,
    answered: Number(((100 * answered) / Math.max(1, questions)).toFixed(1)),
    offsetsExact: Number(((100 * offsetsExact) / Math.max(1, questions)).toFixed(1)),
    tokensP50: percentile(tokens, 0.5),
    wallMsP50: Math.round(percentile(ms, 0.5)),
    wallMsP95: Math.round(percentile(ms, 0.95)),
  };
}

// ---- the run ----

if (args.includes('--multilingual')) {
  multilingual();
} else if (!existsSync(join(CORPUS, 'articles.json'))) {
  console.log(`skipped: the SQuAD development set (${CORPUS}) is not beside this checkout`);
} else {
  const articles = JSON.parse(readFileSync(join(CORPUS, 'articles.json'), 'utf8')) as Article[];
  const sample = stratifiedSample(articles);
  const digest = createHash('sha256')
    .update(
      sample
        .map(([article, question]) => {
          const { id, question: text } = articles[article]!.questions[question]!;
          return `${id}\t${text}`;
        })
        .join('\n'),
    )
    .digest('hex')
    .slice(0, 12);
  if (digest !== SAMPLE_DIGEST) throw new Error(`sample digest ${digest}, the README says ${SAMPLE_DIGEST}`);
  const { server, origin } = await serve(articles);
  try {
    const fetchStarted = performance.now();
    const fetched = await fetchArticles(articles, origin, (index) => !devOnly || index % 2 === 0);
    const fetchMs = performance.now() - fetchStarted;
    const longDocument = devOnly ? undefined : longDocumentTiming(articles, fetched);
    const tallies: Record<string, Tally> = devOnly
      ? { allDev: newTally() }
      : { sampleDev: newTally(), sampleHeldOut: newTally(), allDev: newTally(), allHeldOut: newTally() };
    const inSample = new Set(sample.map(([article, question]) => `${article}:${question}`));
    for (const [articleIndex, article] of articles.entries()) {
      const heldOut = articleIndex % 2 === 1;
      if (devOnly && heldOut) continue;
      for (const [questionIndex, question] of article.questions.entries()) {
        measure(heldOut ? tallies.allHeldOut! : tallies.allDev!, article, fetched[articleIndex]!, question);
        if (!devOnly && inSample.has(`${articleIndex}:${questionIndex}`))
          measure(
            heldOut ? tallies.sampleHeldOut! : tallies.sampleDev!,
            article,
            fetched[articleIndex]!,
            question,
          );
      }
    }
    const report = {
      maxChars: MAX_CHARS,
      sampleDigest: digest,
      articles: articles.length,
      fetchMs: Math.round(fetchMs),
      results: Object.fromEntries(Object.entries(tallies).map(([name, tally]) => [name, summary(tally)])),
      ...(longDocument ? { longDocument } : {}),
      ...(cliArgument ? { cli: await runCli(articles, fetched, sample, origin, cliCount) } : {}),
    };
    if (asJson) console.log(JSON.stringify(report, null, 2));
    else printReport(report);
  } finally {
    server.close();
  }
}

function printReport(report: {
  results: Record<string, ReturnType<typeof summary>>;
  longDocument?: ReturnType<typeof longDocumentTiming>;
  cli?: Awaited<ReturnType<typeof runCli>>;
  fetchMs: number;
  sampleDigest: string;
}) {
  console.log(
    `Focused reading at maxChars ${MAX_CHARS}: SQuAD train, 44 articles (dev = even-indexed, held out = odd-indexed); ` +
      `sample digest ${report.sampleDigest}; articles fetched in ${report.fetchMs} ms`,
  );
  console.log(
    'set              questions  focused  truncation  bm25   Δ vs bm25  tokens p50 (f/t/b)  select ms p50/p95  offsets exact  unmatched',
  );
  for (const [name, row] of Object.entries(report.results))
    console.log(
      `${name.padEnd(16)} ${String(row.questions).padStart(9)}  ${row.focused.toFixed(2).padStart(6)}%  ${row.truncation
        .toFixed(1)
        .padStart(
          9,
        )}%  ${row.bm25.toFixed(1).padStart(4)}%  ${(row.focused - row.bm25).toFixed(1).padStart(8)}  ${`${row.tokensP50.focused}/${row.tokensP50.truncation}/${row.tokensP50.bm25}`.padStart(18)}  ${`${row.msP50}/${row.msP95}`.padStart(17)}  ${row.offsetsExact.toFixed(1).padStart(12)}%  ${String(row.unmatched).padStart(9)}`,
    );
  const long = report.longDocument;
  if (long)
    console.log(
      `one ${long.words}-word document (${long.chars} chars), ${long.queries} queries: select ms p50 ${long.msP50}, p95 ${long.msP95}`,
    );
  if (report.cli)
    console.log(
      'skipped' in report.cli
        ? `--cli skipped: ${report.cli.skipped}`
        : `--cli: ${report.cli.questions} sample questions through periscope fetch --query: answered ${report.cli.answered}%, offsets exact ${report.cli.offsetsExact}%, tokens p50 ${report.cli.tokensP50}, wall ms p50 ${report.cli.wallMsP50} p95 ${report.cli.wallMsP95}`,
    );
}

// ---- qa-multilingual, in process ----

/** Per language and half: answered %, unmatched questions and selection p95, over each page's own text. */
function multilingual(): void {
  if (!existsSync(MULTILINGUAL)) {
    console.log(`skipped: the multilingual set (${MULTILINGUAL}) is not beside this checkout`);
    return;
  }
  console.log(
    `Focused reading at maxChars ${MAX_CHARS}, qa-multilingual in process (dev = even-indexed articles)`,
  );
  for (const language of MULTILINGUAL_LANGUAGES) {
    const file = join(MULTILINGUAL, `articles.${language}.json`);
    const articles = JSON.parse(readFileSync(file, 'utf8')) as Article[];
    const halves = [newTally(), newTally()];
    for (const [index, article] of articles.entries()) {
      const document = [displayTitle(article.title), ...article.paragraphs].join('\n\n');
      for (const question of article.questions)
        measureMultilingual(halves[index % 2]!, document, language, question);
    }
    const row = halves.map((tally) => summary(tally));
    console.log(
      `${language}  dev ${row[0]!.focused.toFixed(2)}% (${row[0]!.questions} q., unmatched ${row[0]!.unmatched}, p95 ${row[0]!.msP95} ms)` +
        `  held out ${row[1]!.focused.toFixed(2)}% (${row[1]!.questions} q., unmatched ${row[1]!.unmatched}, p95 ${row[1]!.msP95} ms)`,
    );
  }
}

function measureMultilingual(tally: Tally, document: string, language: string, question: Question): void {
  const started = performance.now();
  const selection = selectPassages(
    document,
    { query: question.question, maxChars: MAX_CHARS, language },
    weights,
  );
  tally.ms.push(performance.now() - started);
  if (!selection.matched) tally.unmatched++;
  tally.questions++;
  const text = normalize(selection.passages.map((passage) => passage.text).join(PASSAGE_SEPARATOR));
  const spaced = ['fr', 'nb', 'ar'].includes(language);
  const answered = question.answers.some((answer) => {
    const needle = normalize(answer);
    return needle !== '' && (spaced ? ` ${text} `.includes(` ${needle} `) : text.includes(needle));
  });
  if (answered && text.length <= MAX_CHARS) tally.answered.focused++;
}
