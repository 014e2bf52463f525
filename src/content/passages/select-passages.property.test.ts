import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seededRandom } from '../../testing/seeded-random.ts';
import type { OutlineEntry } from '../outline.ts';
import { measureTokens, TWELFTHS_PER_TOKEN } from '../token-estimate.ts';
import { MAX_UNIT_CHARS } from './segment-document.ts';
import { selectPassages } from './select-passages.ts';
import { PASSAGE_SEPARATOR, type PassageQuery } from './types.ts';

const WORDS = [
  'river',
  'rivers',
  'Danube',
  'flows',
  'through',
  'countries',
  'the',
  'and',
  'of',
  'in',
  '1858',
  '3,530',
  'kilometres',
  'Häuser',
  'Straße',
  'über',
  'été',
  'canción',
  'naïve',
  'e\u0301te\u0301',
  'cafe\u0301',
  'A\u0308pfel',
  'U.S.',
  'Dr.',
  'e.g.',
  "isn't",
  'co-operate',
  'x²',
  'Ω',
  'Москва',
  'Ελλάδα',
  'שלום',
  'مرحبا',
];
const EMOJI = ['😀', '👍🏽', '👨‍👩‍👧', '🇩🇪', '❤️', '𝔘'];
const CJK = [
  '東京',
  'の',
  '人口',
  'は',
  '約',
  '1400万人',
  'です',
  '中国',
  '北京',
  '是',
  '首都',
  '한국어',
  '日本語',
];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function sentence(random: () => number): string {
  const kind = random();
  if (kind < 0.15) {
    const length = 3 + Math.floor(random() * 12);
    return `${Array.from({ length }, () => pick(random, CJK)).join('')}${pick(random, ['。', '！', '？', ''])}`;
  }
  const length = 3 + Math.floor(random() * 25);
  const words = Array.from({ length }, () =>
    random() < 0.08 ? pick(random, EMOJI) : random() < 0.05 ? pick(random, CJK) : pick(random, WORDS),
  );
  return `${words.join(random() < 0.05 ? '' : ' ')}${pick(random, ['.', '.', '!', '?', '…', '."', ''])}`;
}

function block(random: () => number): string {
  const kind = random();
  if (kind < 0.1)
    return `${'#'.repeat(1 + Math.floor(random() * 3))} ${sentence(random).replace(/[.!?…。！？"]+$/, '')}`;
  if (kind < 0.2) {
    const rows = 2 + Math.floor(random() * 6);
    const header = `| ${pick(random, WORDS)} | ${pick(random, WORDS)} |\n| --- | --- |`;
    return [
      header,
      ...Array.from({ length: rows }, () => `| ${sentence(random)} | ${pick(random, WORDS)} |`),
    ].join('\n');
  }
  if (kind < 0.3) {
    const items = 2 + Math.floor(random() * 6);
    return Array.from({ length: items }, (_, index) =>
      random() < 0.5 ? `- ${sentence(random)}` : `${index + 1}. ${sentence(random)}`,
    ).join('\n');
  }
  if (kind < 0.35) {
    // A very long paragraph without any space: letters, CJK or emoji.
    const unit = pick(random, ['abcdefghij', '東京の人口は約', '😀👍🏽', 'e\u0301'.repeat(5)]);
    return unit.repeat(50 + Math.floor(random() * 400));
  }
  return Array.from({ length: 1 + Math.floor(random() * 8) }, () => sentence(random)).join(' ');
}

function randomDocument(random: () => number): string {
  const blocks = Array.from({ length: 1 + Math.floor(random() * 30) }, () => block(random));
  const separator = () => pick(random, ['\n\n', '\n\n\n', '\n \n', '\n\n  ']);
  return pick(random, ['', '  ', '\n']) + blocks.map((text) => text + separator()).join('');
}

function randomQuery(random: () => number, document: string): string {
  const words = document.match(/[\p{L}\p{N}]+/gu) ?? ['nothing'];
  const length = 1 + Math.floor(random() * 6);
  const query = Array.from({ length }, () => (random() < 0.8 ? pick(random, words) : pick(random, WORDS)));
  return random() < 0.1 ? `"${query.join(' ')}"` : `${query.join(' ')}?`;
}

const isWordCharacter = (character: string | undefined) =>
  character !== undefined &&
  /[\p{L}\p{M}\p{N}]/u.test(character) &&
  !/[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/u.test(character);
const isHigh = (code: number) => code >= 0xd800 && code < 0xdc00;
const isLow = (code: number) => code >= 0xdc00 && code < 0xe000;

/** The run of non-space characters around `index`. */
function runLength(document: string, index: number): number {
  let start = index;
  let end = index;
  while (start > 0 && !/\s/.test(document[start - 1]!)) start--;
  while (end < document.length && !/\s/.test(document[end]!)) end++;
  return end - start;
}

/** A cut between two characters of a word is allowed only inside a run too long to keep whole. */
function assertCleanCut(document: string, index: number, context: string): void {
  if (index === 0 || index === document.length) return;
  assert.ok(!isLow(document.charCodeAt(index)), `${context}: cut inside a surrogate pair at ${index}`);
  assert.ok(!isHigh(document.charCodeAt(index - 1)), `${context}: cut inside a surrogate pair at ${index}`);
  assert.ok(
    !/\p{M}/u.test(document[index]!) && document[index] !== '\u200d' && document[index] !== '\ufe0f',
    `${context}: cut before a mark or joiner at ${index}`,
  );
  if (isWordCharacter(document[index - 1]) && isWordCharacter(document[index]))
    assert.ok(runLength(document, index) > MAX_UNIT_CHARS, `${context}: cut inside a word at ${index}`);
}

function outlineOf(document: string): OutlineEntry[] {
  const outline: OutlineEntry[] = [];
  for (const match of document.matchAll(/^(#{1,3}) (.+)$/gm))
    outline.push({ level: match[1]!.length, title: match[2]!, offset: match.index });
  return outline;
}

test('random documents: exact offsets, both budgets, document order, clean cuts, same input → same output', () => {
  for (let seed = 1; seed <= 400; seed++) {
    const random = seededRandom(seed);
    const document = randomDocument(random);
    const outline = outlineOf(document);
    const request: PassageQuery = {
      query: randomQuery(random, document),
      maxChars: 20 + Math.floor(random() * 3000),
      ...(random() < 0.5 ? { maxTokens: 5 + Math.floor(random() * 600) } : {}),
      ...(random() < 0.5 ? { outline } : {}),
      ...(random() < 0.3 ? { language: pick(random, ['en', 'de-DE', 'fr', 'es', 'ja', 'zz']) } : {}),
    };
    const context = `seed ${seed}`;
    const selection = selectPassages(document, request);
    assert.deepEqual(selectPassages(document, request), selection, `${context}: not deterministic`);
    assert.equal(selection.totalLength, document.length);
    let previousEnd = -1;
    let covered = 0;
    for (const passage of selection.passages) {
      assert.equal(document.slice(passage.start, passage.end), passage.text, `${context}: offsets`);
      assert.ok(passage.text.length > 0, `${context}: empty passage`);
      assert.ok(passage.start > previousEnd, `${context}: passages out of order or overlapping`);
      assert.doesNotMatch(passage.text, /^\s|\s$/, `${context}: passage starts or ends with whitespace`);
      assertCleanCut(document, passage.start, context);
      assertCleanCut(document, passage.end, context);
      if (request.outline) {
        const heading = request.outline.filter((entry) => entry.offset <= passage.start).at(-1)?.title;
        assert.equal(passage.heading, heading, `${context}: heading`);
      }
      previousEnd = passage.end;
      covered += passage.end - passage.start;
    }
    assert.equal(selection.coveredChars, covered);
    const joined = selection.passages.map((passage) => passage.text).join(PASSAGE_SEPARATOR);
    assert.ok(
      joined.length <= request.maxChars,
      `${context}: ${joined.length} > maxChars ${request.maxChars}`,
    );
    if (request.maxTokens !== undefined)
      assert.ok(
        measureTokens(joined).twelfths <= request.maxTokens * TWELFTHS_PER_TOKEN,
        `${context}: over maxTokens ${request.maxTokens}`,
      );
  }
});

test('a budget too small for the best sentence gets its beginning, cut at a word boundary', () => {
  const document = 'Supercalifragilistic expialidocious words are long.\n\nShort one.';
  const selection = selectPassages(document, { query: 'expialidocious words', maxChars: 30 });
  assert.deepEqual(
    selection.passages.map((passage) => passage.text),
    ['Supercalifragilistic'],
  );
});

test('budget left after the matching sentences goes to the sentences around them', () => {
  const document = 'Alpha is first. The Rhine is long. Gamma is third.\n\nDelta is elsewhere.';
  const selection = selectPassages(document, { query: 'Rhine', maxChars: 60 });
  assert.deepEqual(
    selection.passages.map((passage) => passage.text),
    ['Alpha is first. The Rhine is long. Gamma is third.'],
  );
});
