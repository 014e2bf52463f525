// One page of a development set through one engine, against its reference: the page's scores, then every
// paragraph of 12+ words of the reference that is not exact in the output (holed ones with the words cut
// out shown as [-word-], found ones in the output as {+word+}), then the output's paragraphs that are
// mostly not in the reference (+), for looking at what went wrong on a page.
//
// Run: npx node bench/extract-page.ts <page> [--engine=periscope|readability+linkedom|…] [--text]
//   <page>: a wcxb-dev id (0001), a readability page name (nytimes-1) or a trafilatura-dev file name
//   --text also prints the whole output
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  compareShingles,
  FidelityIndex,
  fidelityWords,
  judgeSnippets,
  loadTrafilaturaDev,
  loadWcxbDev,
  paragraphsOf,
  READABILITY_PAGE_URL,
  READABILITY_SET,
  readPageBody,
  readWcxbBody,
  shingleScore,
  tokenize,
} from './extract-corpus.ts';
import { ENGINES, type Engine, extractorFor, textOf } from './extract-engines.ts';
import { htmlText } from './extract-text.ts';

interface Reference {
  label: string;
  html: string;
  body: Uint8Array;
  url: string;
  /** The reference text (wcxb-dev's truth, Readability's output), or undefined for judged snippets. */
  truth?: string;
  paragraphs: string[];
  snippets?: { with: string[]; without: string[] };
}

const option = (name: string) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const name = process.argv.slice(2).find((arg) => !arg.startsWith('--'));
const engine = (option('engine') ?? 'periscope') as Engine;

async function reference(page: string): Promise<Reference | string> {
  const { decodeBody } = await import('../src/content/charset.ts');
  const decoded = (body: Uint8Array) => decodeBody(body, { markup: 'html' }).text;
  if (/^\d+$/.test(page)) {
    const found = loadWcxbDev().find((candidate) => candidate.id === page);
    if (!found) return `no wcxb-dev page ${page}`;
    const body = readWcxbBody(found);
    return {
      label: `wcxb-dev ${found.id} (${found.pageType}) ${found.url}`,
      html: decoded(body),
      body,
      url: found.url,
      truth: found.truth,
      paragraphs: paragraphsOf(found.truth),
    };
  }
  if (existsSync(join(READABILITY_SET, page, 'source.html'))) {
    const html = readFileSync(join(READABILITY_SET, page, 'source.html'), 'utf8');
    const truth = htmlText(readFileSync(join(READABILITY_SET, page, 'expected.html'), 'utf8'));
    return {
      label: `readability ${page}`,
      html,
      body: new TextEncoder().encode(html),
      url: READABILITY_PAGE_URL,
      truth,
      paragraphs: paragraphsOf(truth),
    };
  }
  const judged = loadTrafilaturaDev({ withBodies: false }).find((candidate) => candidate.file === page);
  if (!judged) return `no page ${page} in wcxb-dev, readability or trafilatura-dev`;
  const body = readPageBody(judged);
  return {
    label: `trafilatura-dev ${judged.file} ${judged.url}`,
    html: decoded(body),
    body,
    url: judged.url,
    paragraphs: judged.with,
    snippets: { with: judged.with, without: judged.without },
  };
}

/** The paragraph's words against the output's stretch, aligned by their longest common subsequence. */
function wordDiff(want: string[], got: readonly string[]): string {
  const lengths = Array.from({ length: want.length + 1 }, () => new Array<number>(got.length + 1).fill(0));
  for (let i = want.length - 1; i >= 0; i -= 1) {
    for (let j = got.length - 1; j >= 0; j -= 1) {
      lengths[i]![j] =
        want[i] === got[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
    }
  }
  const parts: string[] = [];
  let i = 0;
  let j = 0;
  while (i < want.length || j < got.length) {
    if (i < want.length && j < got.length && want[i] === got[j]) {
      parts.push(want[i]!);
      i += 1;
      j += 1;
    } else if (j < got.length && (i === want.length || lengths[i]![j + 1]! >= lengths[i + 1]![j]!)) {
      parts.push(`{+${got[j]}+}`);
      j += 1;
    } else {
      parts.push(`[-${want[i]}-]`);
      i += 1;
    }
  }
  return parts.join(' ');
}

async function main(): Promise<void> {
  if (!name || !ENGINES.includes(engine)) {
    console.error(
      `usage: npx node bench/extract-page.ts <wcxb-dev id | readability page | trafilatura-dev file> [--engine=${ENGINES.join('|')}] [--text]`,
    );
    process.exitCode = 2;
    return;
  }
  const page = await reference(name);
  if (typeof page === 'string') {
    console.error(page);
    process.exitCode = 1;
    return;
  }
  const extract = await extractorFor(engine);
  if (typeof extract === 'string') {
    console.error(`${engine}: ${extract}`);
    process.exitCode = 1;
    return;
  }
  let text = '';
  try {
    text = textOf(await extract({ html: page.html, body: page.body, url: page.url }));
  } catch (error) {
    console.log(`${engine} gave no output: ${error instanceof Error ? error.message : String(error)}`);
  }
  console.log(`${page.label}\n${engine}: ${tokenize(text).length} words out`);
  if (page.truth !== undefined) {
    const { precision, recall, f1 } = shingleScore([compareShingles(text, page.truth)]);
    console.log(`F1 ${f1.toFixed(3)}  P ${precision.toFixed(3)}  R ${recall.toFixed(3)}`);
  }
  if (page.snippets) console.log(judgeSnippets(text, page.snippets));

  const index = new FidelityIndex(text);
  const counts = { exact: 0, holed: 0, missing: 0 };
  const report: string[] = [];
  for (const paragraph of page.paragraphs) {
    const found = index.locate(paragraph);
    if (!found) continue;
    counts[found.fidelity] += 1;
    if (found.fidelity === 'holed' && found.from !== undefined) {
      report.push(`HOLED    ${wordDiff(fidelityWords(paragraph), index.words.slice(found.from, found.to))}`);
    } else if (found.fidelity === 'missing') {
      report.push(`MISSING  ${paragraph.replace(/\s+/g, ' ')}`);
    }
  }
  console.log(
    `paragraphs of 12+ words: ${counts.exact} exact, ${counts.holed} holed, ${counts.missing} missing\n`,
  );
  for (const line of report) console.log(`${line}\n`);

  if (page.truth !== undefined) {
    // Output paragraphs of which fewer than half the 4-word shingles are in the reference.
    const truthWords = fidelityWords(page.truth);
    const truthShingles = new Set<string>();
    for (let at = 0; at + 4 <= truthWords.length; at += 1)
      truthShingles.add(truthWords.slice(at, at + 4).join(' '));
    const truthText = ` ${truthWords.join(' ')} `;
    for (const paragraph of paragraphsOf(text)) {
      const words = fidelityWords(paragraph);
      if (words.length === 0) continue;
      let inTruth: number;
      if (words.length < 4) inTruth = truthText.includes(` ${words.join(' ')} `) ? 1 : 0;
      else {
        let hits = 0;
        for (let at = 0; at + 4 <= words.length; at += 1) {
          if (truthShingles.has(words.slice(at, at + 4).join(' '))) hits += 1;
        }
        inTruth = hits / (words.length - 3);
      }
      if (inTruth < 0.5) console.log(`+ ${paragraph.replace(/\s+/g, ' ').slice(0, 160)}`);
    }
  }
  if (process.argv.includes('--text')) console.log(`\n---- output ----\n${text}`);
}

await main();
