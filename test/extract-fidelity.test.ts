// The fidelity measure of bench/extract (is each reference paragraph exact, holed or missing in an
// extractor's output?): its verdicts on small texts written for each case.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FidelityIndex, fidelityRates, judgeFidelity, paragraphsOf } from '../bench/extract-corpus.ts';

const PARAGRAPH =
  'After nearly twenty years of frosty relations the government plans to lift trade sanctions on Northland, officials said.';

test('fidelity: a paragraph whole in the output is exact, whatever the case, spacing and punctuation', () => {
  const index = new FidelityIndex(
    `Menu\n\n${PARAGRAPH.toUpperCase().replace(/ /g, '  ').replace(',', ' —')}\n\nMore`,
  );
  assert.equal(index.judge(PARAGRAPH), 'exact');
});

test('fidelity: words inserted (a footnote mark) or split differently (sup markup) lose nothing: exact', () => {
  const inserted = PARAGRAPH.replace('sanctions on Northland', 'sanctions [12] on Northland');
  assert.equal(new FidelityIndex(inserted).judge(PARAGRAPH), 'exact');
  const glued = PARAGRAPH.replace('Northland', 'North land');
  assert.equal(new FidelityIndex(glued).judge(PARAGRAPH), 'exact');
});

test('fidelity: a word cut out of the middle makes the paragraph holed', () => {
  const output = PARAGRAPH.replace(' frosty', '');
  assert.equal(new FidelityIndex(output).judge(PARAGRAPH), 'holed');
});

test('fidelity: a paragraph gone, or only its start there, is missing; a short one is not judged', () => {
  assert.equal(new FidelityIndex('Something else entirely, at length and more.').judge(PARAGRAPH), 'missing');
  assert.equal(new FidelityIndex(PARAGRAPH.slice(0, 60)).judge(PARAGRAPH), 'missing');
  assert.equal(
    new FidelityIndex(PARAGRAPH).judge('Only eleven words are here, which is one too few.'),
    undefined,
  );
});

test('fidelity: the end found far away from the start is no hole, the paragraph is missing', () => {
  const words = PARAGRAPH.split(' ');
  const far = `${words.slice(0, 5).join(' ')} ${'filler '.repeat(80)}${words.slice(-5).join(' ')}`;
  assert.equal(new FidelityIndex(far).judge(PARAGRAPH), 'missing');
});

test('fidelity: paragraphs split on blank lines, counts pooled over pages', () => {
  assert.deepEqual(paragraphsOf('one\n\ntwo\n  \nthree\nstill three'), ['one', 'two', 'three\nstill three']);
  const page = judgeFidelity(PARAGRAPH, [PARAGRAPH, PARAGRAPH.replace('frosty', 'warm'), 'Too short.']);
  assert.deepEqual([page.exact, page.holed, page.missing], [1, 1, 0]);
  const rates = fidelityRates([page, { exact: 0, holed: 0, missing: 2 }]);
  assert.equal(rates.paragraphs, 4);
  assert.deepEqual(rates.rates, { exact: 0.25, holed: 0.25, missing: 0.5 });
});
