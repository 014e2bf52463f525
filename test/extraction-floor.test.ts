// Regression floors for main-content extraction on the two development sets in ../shared/corpus/ (see
// bench/extract.bench.ts for the side-by-side numbers). A floor only moves up: when a change raises the
// score, raise the floor to the new score less a small margin; a change that drops below it is a
// regression, whatever else it fixes.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  compareShingles,
  judgeSnippets,
  listReadabilitySet,
  loadTrafilaturaDev,
  READABILITY_PAGE_URL,
  READABILITY_SET,
  type ShingleCounts,
  type SnippetCounts,
  shingleScore,
  snippetScore,
  TRAFILATURA_DEV,
} from '../bench/extract-corpus.ts';
import { htmlText } from '../bench/extract-text.ts';
import { renderContent } from '../src/content/render-content.ts';

/** trafilatura-dev, trafilatura's metric (snippet F1 over all pages): measured 0.937. */
const TRAFILATURA_DEV_MIN_F1 = 0.931;
/** readability, agreement with Readability.js's own output (word-shingle F1): measured 0.953. */
const READABILITY_MIN_AGREEMENT = 0.948;

const encoder = new TextEncoder();

async function extractText(body: Uint8Array, url: string): Promise<string> {
  try {
    const result = await renderContent({ url, headers: { 'content-type': 'text/html' }, body, mode: 'text' });
    return result.text;
  } catch {
    return ''; // a page judged not to be content counts as empty output
  }
}

test('trafilatura-dev: snippet F1 stays at or above its floor, and no page comes out empty', {
  skip: existsSync(TRAFILATURA_DEV)
    ? false
    : `the shared corpus is not beside this checkout (${TRAFILATURA_DEV})`,
}, async () => {
  const perPage: SnippetCounts[] = [];
  const empty: string[] = [];
  for (const page of loadTrafilaturaDev()) {
    const text = await extractText(page.body, page.url);
    if (text.trim() === '') empty.push(page.file);
    perPage.push(judgeSnippets(text, page));
  }
  const score = snippetScore(perPage);
  assert.deepEqual(empty, [], 'pages with an article came out empty');
  assert.ok(
    score.f1 >= TRAFILATURA_DEV_MIN_F1,
    `F1 ${score.f1.toFixed(4)} (P ${score.precision.toFixed(4)}, R ${score.recall.toFixed(4)}) is below the floor ${TRAFILATURA_DEV_MIN_F1}`,
  );
});

test('readability: agreement with Readability.js stays at or above its floor', {
  skip: existsSync(READABILITY_SET)
    ? false
    : `the shared corpus is not beside this checkout (${READABILITY_SET})`,
}, async () => {
  const perPage: ShingleCounts[] = [];
  for (const name of listReadabilitySet()) {
    const html = readFileSync(join(READABILITY_SET, name, 'source.html'), 'utf8');
    const expected = htmlText(readFileSync(join(READABILITY_SET, name, 'expected.html'), 'utf8'));
    perPage.push(compareShingles(await extractText(encoder.encode(html), READABILITY_PAGE_URL), expected));
  }
  const score = shingleScore(perPage);
  assert.ok(
    score.f1 >= READABILITY_MIN_AGREEMENT,
    `agreement ${score.f1.toFixed(4)} (P ${score.precision.toFixed(4)}, R ${score.recall.toFixed(4)}) is below the floor ${READABILITY_MIN_AGREEMENT}`,
  );
});
