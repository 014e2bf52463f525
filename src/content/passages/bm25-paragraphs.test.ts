import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bm25Paragraphs, paragraphSpans } from './bm25-paragraphs.ts';
import { contentHash } from './content-hash.ts';
import { PASSAGE_SEPARATOR } from './types.ts';

const DOCUMENT = [
  '# Rivers',
  'The Danube flows through ten countries, more than any other river in the world.',
  '  The Rhine rises in the Swiss Alps and reaches the North Sea at Rotterdam.  ',
  'The Volga is the longest river in Europe, at 3,530 kilometres.',
].join('\n\n');

test('paragraph spans: the text between blank lines, trimmed, with exact offsets', () => {
  const spans = paragraphSpans(DOCUMENT);
  assert.deepEqual(
    spans.map((span) => DOCUMENT.slice(span.start, span.end)),
    [
      '# Rivers',
      'The Danube flows through ten countries, more than any other river in the world.',
      'The Rhine rises in the Swiss Alps and reaches the North Sea at Rotterdam.',
      'The Volga is the longest river in Europe, at 3,530 kilometres.',
    ],
  );
});

test('BM25 paragraphs: the best paragraph first within the budget, returned in document order, offsets exact', () => {
  const selection = bm25Paragraphs(DOCUMENT, {
    query: 'Which is the longest river in Europe?',
    maxChars: 150,
  });
  const best = [...selection.passages].sort((left, right) => right.score - left.score)[0];
  assert.match(best?.text ?? '', /^The Volga/);
  assert.ok(selection.passages.map((chosen) => chosen.text).join(PASSAGE_SEPARATOR).length <= 150);
  for (const chosen of selection.passages)
    assert.equal(DOCUMENT.slice(chosen.start, chosen.end), chosen.text);
  const wide = bm25Paragraphs(DOCUMENT, { query: 'river Rhine Volga', maxChars: 1000 });
  const starts = wide.passages.map((chosen) => chosen.start);
  assert.deepEqual(
    starts,
    [...starts].sort((left, right) => left - right),
  );
  const joined = wide.passages.map((chosen) => chosen.text).join(PASSAGE_SEPARATOR);
  assert.ok(joined.length <= 1000);
  assert.equal(wide.totalLength, DOCUMENT.length);
});

test('a paragraph longer than the budget is cut at a word boundary when it is the best', () => {
  const selection = bm25Paragraphs(DOCUMENT, { query: 'Danube countries', maxChars: 40 });
  const [passage] = selection.passages;
  assert.ok(passage && passage.text.length <= 40);
  assert.equal(DOCUMENT.slice(passage.start, passage.end), passage.text);
  assert.doesNotMatch(passage.text, /\s$/);
});

test('content hash: sha256 of the UTF-8 text, prefixed', () => {
  assert.equal(contentHash('abc'), 'sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
});
