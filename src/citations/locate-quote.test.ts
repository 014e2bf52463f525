import assert from 'node:assert/strict';
import { test } from 'node:test';
import { locateQuote } from './locate-quote.ts';

const DOCUMENT =
  'Tides rise twice a day.\n\nHigh tide is at 06:12.\nLow tide is at noon.\n\nHigh tide is at 06:12.';

test('an exact quote at the cited range is found there', () => {
  const start = DOCUMENT.indexOf('Low tide');
  const quote = 'Low tide is at noon.';
  assert.deepEqual(locateQuote(DOCUMENT, quote, { start, end: start + quote.length }), {
    start,
    end: start + quote.length,
    match: 'exact',
  });
});

test('without a cited range, the first occurrence; with one elsewhere, the nearest occurrence', () => {
  const quote = 'High tide is at 06:12.';
  const first = DOCUMENT.indexOf(quote);
  const second = DOCUMENT.lastIndexOf(quote);
  assert.notEqual(first, second);
  assert.equal(locateQuote(DOCUMENT, quote)?.start, first);
  assert.equal(locateQuote(DOCUMENT, quote, { start: second - 3, end: second + 10 })?.start, second);
  assert.equal(locateQuote(DOCUMENT, quote, { start: 0, end: 5 })?.start, first);
});

test('a quote that differs in whitespace only is found, and says so; its offsets cover the text as it is', () => {
  const located = locateQuote(DOCUMENT, '  Tides rise twice a day.   High tide   is at 06:12. ');
  assert.deepEqual(located, { start: 0, end: DOCUMENT.indexOf('06:12.') + 6, match: 'whitespace' });
  assert.equal(
    DOCUMENT.slice(located.start, located.end),
    'Tides rise twice a day.\n\nHigh tide is at 06:12.',
  );
});

test('a quote with a word changed, or whitespace where the document has none, is not found', () => {
  assert.equal(locateQuote(DOCUMENT, 'Low tide is at midnight.'), undefined);
  assert.equal(locateQuote(DOCUMENT, 'Low ti de is at noon.'), undefined);
  assert.equal(locateQuote(DOCUMENT, ''), undefined);
  assert.equal(locateQuote(DOCUMENT, '   '), undefined, 'whitespace alone is no quote once trimmed');
});

test('offsets are UTF-16 offsets: emoji, CJK and combining characters before the quote', () => {
  const text = 'é 👩‍🔬 東京 e\u0301 —\u00a0the quote here.';
  const quote = 'the quote here.';
  assert.deepEqual(locateQuote(text, quote), {
    start: text.indexOf(quote),
    end: text.length,
    match: 'exact',
  });
  const loose = locateQuote(text, '— the quote');
  assert.equal(loose?.match, 'whitespace', 'a no-break space counts as whitespace');
  assert.equal(text.slice(loose?.start, loose?.end), '—\u00a0the quote');
});

test('random documents: every slice is found at its own range, or at an identical text nearer', () => {
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const alphabet = ['a', 'b', ' ', '\n', 'é', '東', '😀', 'x'];
  for (let round = 0; round < 200; round += 1) {
    const text = Array.from({ length: 80 }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
    const start = Math.floor(random() * 60);
    const end = start + 1 + Math.floor(random() * 19);
    const quote = text.slice(start, end);
    const located = locateQuote(text, quote, { start, end });
    assert.deepEqual(located, { start, end, match: 'exact' });
    const anywhere = locateQuote(text, quote);
    assert.equal(anywhere?.match, 'exact');
    assert.equal(text.slice(anywhere?.start, anywhere?.end), quote);
  }
});

test('the whitespace-tolerant match takes the quote literally: brackets, dots, stars, backslashes', () => {
  const text = 'Prices (in €) are $5.00*\n  [see note] \\d+ apply.';
  const located = locateQuote(text, 'Prices (in €) are $5.00* [see note] \\d+ apply.');
  assert.deepEqual(located, { start: 0, end: text.length, match: 'whitespace' });
  assert.equal(locateQuote(text, 'Prices (in €) are $5,00* [see note]'), undefined);
});
