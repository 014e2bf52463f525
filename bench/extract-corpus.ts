// The three development sets in ../shared/corpus/ and their metrics, shared by bench/extract.bench.ts and
// test/extraction-floor.test.ts.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

export const CORPUS_ROOT = new URL('../../shared/corpus/', import.meta.url).pathname;
export const TRAFILATURA_DEV = join(CORPUS_ROOT, 'trafilatura-dev');
export const READABILITY_SET = join(CORPUS_ROOT, 'readability');
export const WCXB_DEV = join(CORPUS_ROOT, 'wcxb-dev');
/** The URL Readability's own tests parse every page with. */
export const READABILITY_PAGE_URL = 'http://fakehost/test/page.html';

// ---------------------------------------------------------------------------------------------------
// trafilatura-dev: human judgements, trafilatura's own evaluation (SOURCE.md)

export interface JudgedPage {
  url: string;
  file: string;
  /** Raw bytes (some pages are in legacy charsets); left out with `withBodies: false`. */
  body: Uint8Array;
  with: string[];
  without: string[];
  directory: string;
}

/** The judged pages, with their bytes unless `withBodies` is false (then `readPageBody` reads one). */
export function loadTrafilaturaDev(options: { directory?: string; withBodies?: boolean } = {}): JudgedPage[] {
  const directory = options.directory ?? TRAFILATURA_DEV;
  const judgements = JSON.parse(readFileSync(join(directory, 'evaldata.json'), 'utf8')) as Record<
    string,
    { file: string; with: string[]; without: string[] }
  >;
  return Object.entries(judgements).map(([url, judgement]) => ({
    url,
    file: judgement.file,
    body:
      options.withBodies === false ? new Uint8Array() : readFileSync(join(directory, 'html', judgement.file)),
    with: judgement.with,
    without: judgement.without,
    directory,
  }));
}

export function readPageBody(page: JudgedPage): Uint8Array {
  return page.body.length > 0 ? page.body : readFileSync(join(page.directory, 'html', page.file));
}

export interface SnippetCounts {
  tp: number;
  fn: number;
  fp: number;
  tn: number;
}

const squash = (text: string) => text.replace(/\s+/g, ' ');

/**
 * One page under trafilatura's evaluation: each `with` snippet found in the output is a true positive
 * (else a false negative), each `without` snippet found a false positive (else a true negative).
 * Case-sensitive substring search after collapsing whitespace runs to one space on both sides. No
 * output counts as an empty one.
 */
export function judgeSnippets(output: string | undefined, page: Pick<JudgedPage, 'with' | 'without'>) {
  const text = squash(output ?? '');
  const counts: SnippetCounts = { tp: 0, fn: 0, fp: 0, tn: 0 };
  for (const snippet of page.with) {
    if (text.includes(squash(snippet))) counts.tp += 1;
    else counts.fn += 1;
  }
  for (const snippet of page.without) {
    if (text.includes(squash(snippet))) counts.fp += 1;
    else counts.tn += 1;
  }
  return counts;
}

export interface SnippetScore extends SnippetCounts {
  precision: number;
  recall: number;
  f1: number;
}

/** Counts summed over all pages; precision tp/(tp+fp), recall tp/(tp+fn), F1 2tp/(2tp+fp+fn). */
export function snippetScore(perPage: SnippetCounts[]): SnippetScore {
  const total = { tp: 0, fn: 0, fp: 0, tn: 0 };
  for (const counts of perPage) {
    total.tp += counts.tp;
    total.fn += counts.fn;
    total.fp += counts.fp;
    total.tn += counts.tn;
  }
  return {
    ...total,
    precision: total.tp / (total.tp + total.fp || 1),
    recall: total.tp / (total.tp + total.fn || 1),
    f1: (2 * total.tp) / (2 * total.tp + total.fp + total.fn || 1),
  };
}

// ---------------------------------------------------------------------------------------------------
// wcxb-dev: the development split of WCXB (the Web Content Extraction Benchmark), main-content ground
// truth by page type (its README), scored with the ScrapingHub metric below (compareShingles, shingleScore)

export const WCXB_PAGE_TYPES = [
  'article',
  'documentation',
  'service',
  'forum',
  'listing',
  'collection',
  'product',
] as const;
export type WcxbPageType = (typeof WCXB_PAGE_TYPES)[number];

export interface WcxbPage {
  /** The page's id, four digits or more ("0001"): its file is html/<id>.html.gz. */
  id: string;
  url: string;
  pageType: WcxbPageType;
  /** The main content as plain text: headings on their own lines, paragraphs split by blank lines. */
  truth: string;
  directory: string;
}

/**
 * The halves everyone uses: rules are tuned looking only at pages with an even numeric id, and checked on
 * the odd ones.
 */
export type WcxbHalf = 'tune' | 'check';
export const wcxbHalf = (id: string): WcxbHalf => (Number(id) % 2 === 0 ? 'tune' : 'check');

/** The pages with their truth and type, sorted by id; their bytes are read one at a time (`readWcxbBody`). */
export function loadWcxbDev(directory = WCXB_DEV): WcxbPage[] {
  const truth = JSON.parse(readFileSync(join(directory, 'ground-truth.json'), 'utf8')) as Record<
    string,
    { articleBody: string; url: string }
  >;
  const meta = JSON.parse(readFileSync(join(directory, 'meta.json'), 'utf8')) as Record<
    string,
    { pageType: WcxbPageType }
  >;
  return Object.keys(truth)
    .sort()
    .map((id) => ({
      id,
      url: truth[id]?.url ?? '',
      pageType: meta[id]?.pageType ?? 'article',
      truth: truth[id]?.articleBody ?? '',
      directory,
    }));
}

/** The page as crawled (gunzipped; the charset is the page's own). */
export function readWcxbBody(page: Pick<WcxbPage, 'id' | 'directory'>): Uint8Array {
  return gunzipSync(readFileSync(join(page.directory, 'html', `${page.id}.html.gz`)));
}

// ---------------------------------------------------------------------------------------------------
// readability: Readability.js's own output and metadata, compared by word shingles (ScrapingHub metric)

export interface ReadabilityPage {
  name: string;
  html: string;
  expectedHtml: string;
  metadata: ExpectedMetadata;
}

export interface ExpectedMetadata {
  title?: string | null;
  byline?: string | null;
  lang?: string | null;
  siteName?: string | null;
  publishedTime?: string | null;
}

/** The names of the readability set's pages (its folders), sorted. */
export function listReadabilitySet(directory = READABILITY_SET): string[] {
  return readdirSync(directory)
    .filter((name) => existsSync(join(directory, name, 'source.html')))
    .sort();
}

export function loadReadabilitySet(directory = READABILITY_SET): ReadabilityPage[] {
  return listReadabilitySet(directory).map((name) => ({
    name,
    html: readFileSync(join(directory, name, 'source.html'), 'utf8'),
    expectedHtml: readFileSync(join(directory, name, 'expected.html'), 'utf8'),
    metadata: JSON.parse(readFileSync(join(directory, name, 'expected-metadata.json'), 'utf8')),
  }));
}

const CJK =
  '\\u3040-\\u30ff\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff\\uac00-\\ud7af\\u{20000}-\\u{2ffff}';
const TOKEN = new RegExp(`[${CJK}]|[\\p{L}\\p{N}_]+`, 'gu');
const CJK_CHAR = new RegExp(`^[${CJK}]$`, 'u');

/** Words (letters, digits, `_`), each CJK character a token of its own. */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const match of text.matchAll(TOKEN)) {
    const token = match[0];
    // A run of letters may hold CJK characters only if the class above missed them: split those too.
    if (token.length > 1 && [...token].some((char) => CJK_CHAR.test(char))) tokens.push(...token);
    else tokens.push(token);
  }
  return tokens;
}

function shingles(text: string, size = 4): Map<string, number> {
  const tokens = tokenize(text);
  const counts = new Map<string, number>();
  if (tokens.length > 0 && tokens.length < size) counts.set(tokens.join(' '), 1);
  for (let index = 0; index + size <= tokens.length; index += 1) {
    const shingle = tokens.slice(index, index + size).join(' ');
    counts.set(shingle, (counts.get(shingle) ?? 0) + 1);
  }
  return counts;
}

export interface ShingleCounts {
  tp: number;
  fp: number;
  fn: number;
}

/**
 * The ScrapingHub article-extraction metric for one page (its `string_shingle_matching`): both texts cut
 * into tokens (`tokenize`), every run of 4 consecutive tokens a shingle (a text of 1–3 tokens is one
 * shingle), and the shingle multisets compared: tp = Σ min, fp and fn the excess on each side. Used for
 * wcxb-dev (against its truth) and for the readability set (against Readability.js's output). Scores
 * plain text: give it Markdown and link targets and markup characters count as words.
 */
export function compareShingles(output: string, truth: string): ShingleCounts {
  const got = shingles(output);
  const want = shingles(truth);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const [shingle, count] of got) {
    const expected = want.get(shingle) ?? 0;
    tp += Math.min(count, expected);
    fp += Math.max(0, count - expected);
  }
  for (const [shingle, count] of want) fn += Math.max(0, count - (got.get(shingle) ?? 0));
  return { tp, fp, fn };
}

export interface ShingleScore {
  precision: number;
  recall: number;
  f1: number;
}

/**
 * Per page normalised, so every page weighs the same: precision averaged over pages with output, recall
 * over pages with truth; F1 = 2PR/(P+R).
 */
export function shingleScore(perPage: ShingleCounts[]): ShingleScore {
  let precisionSum = 0;
  let withOutput = 0;
  let recallSum = 0;
  let withTruth = 0;
  for (const { tp, fp, fn } of perPage) {
    if (tp + fp > 0) {
      precisionSum += tp / (tp + fp);
      withOutput += 1;
    }
    if (tp + fn > 0) {
      recallSum += tp / (tp + fn);
      withTruth += 1;
    }
  }
  const precision = precisionSum / (withOutput || 1);
  const recall = recallSum / (withTruth || 1);
  return {
    precision,
    recall,
    f1: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0,
  };
}

export const METADATA_FIELDS = ['title', 'byline', 'lang', 'siteName', 'publishedTime'] as const;
export type MetadataField = (typeof METADATA_FIELDS)[number];

/** Whether a value agrees with Readability's: equal after folding whitespace, both absent counting as equal. */
export function sameMetadata(got: string | undefined, expected: string | null | undefined): boolean {
  const fold = (value: string | null | undefined) => (value ?? '').replace(/\s+/g, ' ').trim();
  return fold(got) === fold(expected);
}

// ---------------------------------------------------------------------------------------------------
// Fidelity: is each paragraph of the truth in the output whole, with a hole in it, or not at all?

/** Paragraphs shorter than this (in words) are not judged: headings, bylines, captions, list labels. */
export const FIDELITY_MIN_WORDS = 12;
/** How many words make a paragraph's start, and its end. */
const EDGE_WORDS = 4;

export type Fidelity = 'exact' | 'holed' | 'missing';
export type FidelityCounts = Record<Fidelity, number>;

/**
 * The words fidelity compares: the text NFKC-normalised (ligatures, full-width forms), soft hyphens and
 * zero-width characters dropped, then cut into tokens as the shingle metric does (`tokenize`: runs of
 * letters, digits and `_`, each CJK character its own), lower-cased. So whitespace, case and punctuation
 * never decide a match (curly and straight apostrophes, dashes, "1,000"), words do.
 */
export function fidelityWords(text: string): string[] {
  const plain = text.normalize('NFKC').replace(/[\u00ad\u200b-\u200d\u2060\ufeff]/g, '');
  return tokenize(plain).map((token) => token.toLowerCase());
}

/** A text's paragraphs: split on blank lines (the form of wcxb-dev's truth and of `htmlText`). */
export function paragraphsOf(text: string): string[] {
  return text
    .split(/\n[^\S\n]*\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== '');
}

/**
 * One output, indexed to judge truth paragraphs against it. A paragraph of `FIDELITY_MIN_WORDS` words or
 * more (as `fidelityWords` counts them) is
 *   exact    when its words occur in the output contiguously, in order; or in order with other words
 *            inserted between them but none missing (a footnote mark, an inline ad, a list's numbers);
 *            or when its letters and digits do, spaces aside (`pacman-static<sup>AUR</sup>` is one word
 *            on the page and two in a transcript): no word was lost;
 *   holed    when its first 4 words and its last 4 words both occur, the end after the start and within
 *            twice the paragraph's length plus 20 words of it, but some words between are missing (the
 *            paragraph is not a subsequence of that stretch): words were cut out of it;
 *   missing  otherwise: the paragraph is gone, or only pieces of it are there (its start without its end).
 * `judge` returns undefined for a paragraph too short to judge.
 */
export class FidelityIndex {
  readonly #words: string[];
  readonly #edges = new Map<string, number[]>();
  /** The output's words run together: where a paragraph split or joined differently still matches. */
  readonly #joined: string;

  constructor(output: string) {
    this.#words = fidelityWords(output);
    this.#joined = this.#words.join('');
    for (let index = 0; index + EDGE_WORDS <= this.#words.length; index += 1) {
      const key = this.#words.slice(index, index + EDGE_WORDS).join(' ');
      const positions = this.#edges.get(key);
      if (positions) positions.push(index);
      else this.#edges.set(key, [index]);
    }
  }

  judge(paragraph: string): Fidelity | undefined {
    return this.locate(paragraph)?.fidelity;
  }

  /**
   * The verdict with where in the output (`words`, from and up to) the paragraph, or its holed stretch,
   * was found; undefined for a paragraph too short to judge.
   */
  locate(paragraph: string): { fidelity: Fidelity; from?: number; to?: number } | undefined {
    const want = fidelityWords(paragraph);
    if (want.length < FIDELITY_MIN_WORDS) return undefined;
    const starts = this.#edges.get(want.slice(0, EDGE_WORDS).join(' ')) ?? [];
    const ends = this.#edges.get(want.slice(-EDGE_WORDS).join(' ')) ?? [];
    const reach = 2 * want.length + 20;
    for (const start of starts) {
      if (this.#matchesAt(want, start)) return { fidelity: 'exact', from: start, to: start + want.length };
    }
    if (this.#joined.includes(want.join(''))) return { fidelity: 'exact' };
    let holed: { fidelity: Fidelity; from: number; to: number } | undefined;
    for (const start of starts) {
      for (const end of ends) {
        if (end < start + EDGE_WORDS || end + EDGE_WORDS - start > reach) continue;
        const to = end + EDGE_WORDS;
        if (this.#inOrder(want, start, to)) return { fidelity: 'exact', from: start, to };
        holed ??= { fidelity: 'holed', from: start, to };
      }
    }
    return holed ?? { fidelity: 'missing' };
  }

  /** The output's words, as `fidelityWords` gives them. */
  get words(): readonly string[] {
    return this.#words;
  }

  #matchesAt(want: string[], start: number): boolean {
    if (start + want.length > this.#words.length) return false;
    return want.every((word, offset) => this.#words[start + offset] === word);
  }

  /** Whether `want` is a subsequence of the output's words from `from` up to (not including) `to`. */
  #inOrder(want: string[], from: number, to: number): boolean {
    let next = 0;
    for (let index = from; index < to && next < want.length; index += 1) {
      if (this.#words[index] === want[next]) next += 1;
    }
    return next === want.length;
  }
}

/** Judge every paragraph long enough against one output; `judged` lists them with their verdicts. */
export function judgeFidelity(
  output: string,
  paragraphs: string[],
): FidelityCounts & { judged: { paragraph: string; fidelity: Fidelity }[] } {
  const index = new FidelityIndex(output);
  const result = {
    exact: 0,
    holed: 0,
    missing: 0,
    judged: [] as { paragraph: string; fidelity: Fidelity }[],
  };
  for (const paragraph of paragraphs) {
    const fidelity = index.judge(paragraph);
    if (!fidelity) continue;
    result[fidelity] += 1;
    result.judged.push({ paragraph, fidelity });
  }
  return result;
}

/** Counts summed over pages, and each class's share of all paragraphs judged (pooled, not per page). */
export function fidelityRates(perPage: FidelityCounts[]): FidelityCounts & {
  paragraphs: number;
  rates: FidelityCounts;
} {
  const total = { exact: 0, holed: 0, missing: 0 };
  for (const counts of perPage) {
    total.exact += counts.exact;
    total.holed += counts.holed;
    total.missing += counts.missing;
  }
  const paragraphs = total.exact + total.holed + total.missing;
  const share = (count: number) => count / (paragraphs || 1);
  return {
    ...total,
    paragraphs,
    rates: { exact: share(total.exact), holed: share(total.holed), missing: share(total.missing) },
  };
}
