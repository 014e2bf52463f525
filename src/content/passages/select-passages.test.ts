import assert from 'node:assert/strict';
import { test } from 'node:test';
import { segmentDocument } from './segment-document.ts';
import { selectPassages } from './select-passages.ts';
import { PASSAGE_SEPARATOR, type PassageQuery } from './types.ts';

const joined = (document: string, request: PassageQuery) =>
  selectPassages(document, request)
    .passages.map((passage) => passage.text)
    .join(PASSAGE_SEPARATOR);

const filler = (count: number) =>
  Array.from(
    { length: count },
    (_, index) => `Paragraph ${index} talks about weather, harvests and markets in the valley for a while.`,
  ).join('\n\n');

test('the answering sentence far past the first window comes back whole, the filler does not', () => {
  const answer = 'The Volga is the longest river in Europe, at 3,530 kilometres.';
  const document = `# Rivers\n\n${filler(200)}\n\nSome rivers are short. ${answer} Others are not.\n\n${filler(50)}`;
  const text = joined(document, { query: 'Which is the longest river in Europe?', maxChars: 300 });
  assert.ok(text.includes(answer), text);
  assert.ok(!text.includes('harvests'));
});

test('stems per language: the question and the page use different forms of the word', () => {
  const cases = [
    {
      language: 'de',
      query: 'Wie viele Häuser hat das Dorf?',
      hit: 'Im Dorf steht ein einziges Haus aus Stein.',
    },
    { language: 'fr', query: 'Combien de chevaux?', hit: 'Le cheval blanc vit seul.' },
    { language: 'es', query: '¿Cuántas canciones grabó?', hit: 'Grabó una canción en Madrid.' },
    { language: 'en', query: 'Who invited the lamas?', hit: 'The emperor sent an invitation to the lama.' },
    {
      language: 'en',
      query: 'When was Chopin baptised?',
      hit: 'Fryderyk was baptized on Easter Sunday, in the same church where his parents had married.',
    },
    {
      language: 'en',
      query: 'Which organization ran the fair?',
      hit: 'A local organisation of farmers and traders from the hills managed it for its first ten years.',
    },
  ];
  for (const { language, query, hit } of cases) {
    const document = `${filler(30)}\n\n${hit}\n\n${filler(30)}`;
    assert.equal(joined(document, { query, maxChars: hit.length, language }), hit, language);
  }
});

test('without a language, the page is guessed from its function words', () => {
  const document = `Die Stadt liegt am Fluss und ist nicht groß.\n\n${'Der Weg ist lang und die Berge sind hoch. '.repeat(20)}\n\nIm Dorf steht ein einziges Haus aus Stein.`;
  assert.equal(
    joined(document, { query: 'Häuser', maxChars: 60 }),
    'Im Dorf steht ein einziges Haus aus Stein.',
  );
});

test('CJK by characters and pairs: a question without spaces finds its sentence', () => {
  const document =
    '大阪は商業の町です。京都には多くの寺があります。東京の人口は約1400万人です。札幌は雪で有名です。';
  assert.equal(
    joined(document, { query: '東京の人口は？', maxChars: 20, language: 'ja' }),
    '東京の人口は約1400万人です。',
  );
});

test('a table is taken whole when it fits, and a list item alone when the list does not', () => {
  const table = '| Planet | Moons |\n| --- | --- |\n| Mars | 2 |\n| Jupiter | 95 |';
  const document = `${filler(10)}\n\n${table}\n\n${filler(10)}`;
  assert.equal(joined(document, { query: 'How many moons has Jupiter?', maxChars: 200 }), table);
  const list = Array.from(
    { length: 40 },
    (_, index) => `- Item ${index} is about ${index === 17 ? 'zebras' : 'cats'}`,
  ).join('\n');
  const text = joined(`${list}\n\n${filler(5)}`, { query: 'zebras', maxChars: 100 });
  assert.ok(text.includes('- Item 17 is about zebras'), text);
  assert.ok(!text.includes('Item 0 '), text);
});

test('numbers and quoted phrases weigh more than loose words', () => {
  const document = [
    'In 1857 the bridge over the river was begun.',
    'The river bridge opened in 1858 after a long delay.',
    'The old river bridge was painted red in spring.',
  ].join(' ');
  assert.equal(
    joined(document, { query: 'river bridge 1858', maxChars: 60 }),
    'The river bridge opened in 1858 after a long delay.',
  );
  const phrases = 'The red old bridge stood for years. The old red bridge fell down in a storm.';
  assert.equal(
    joined(phrases, { query: '"old red bridge"', maxChars: 50 }),
    'The old red bridge fell down in a storm.',
  );
});

test('abbreviations and initials do not end a sentence', () => {
  const document = `${filler(5)}\n\nDr. J. R. Smith of the U.S. Navy found the wreck. Nobody else did.\n\n${filler(5)}`;
  assert.equal(
    joined(document, { query: 'Who found the wreck?', maxChars: 60 }),
    'Dr. J. R. Smith of the U.S. Navy found the wreck.',
  );
});

test('letters joined by periods (U.S., H.R.) and Fr. do not end a sentence, even before a capital or a digit', () => {
  const document =
    'It was ranked by U.S. News & World Report in 2010. A hall was built under Fr. Zahm in 1883. ' +
    'Two bills (S.742 and H.R. 2562) failed.';
  assert.deepEqual(
    segmentDocument(document).units.map((unit) => document.slice(unit.start, unit.end)),
    [
      'It was ranked by U.S. News & World Report in 2010.',
      'A hall was built under Fr. Zahm in 1883.',
      'Two bills (S.742 and H.R. 2562) failed.',
    ],
  );
});

test('the question without the diacritics of a transliterated word still finds it', () => {
  const hit = 'Karma brings about a consequence or vipāka, the "result".';
  const document = `${filler(30)}\n\n${hit}\n\n${filler(30)}`;
  for (const query of ['What does vipaka mean?', 'What does VIPĀKA mean?'])
    assert.equal(joined(document, { query, maxChars: 100 }), hit, query);
});

test('heading: from the outline when given, else the Markdown heading before the passage', () => {
  const document = `# Guide\n\n## Install\n\nRun the installer twice.\n\n## Usage\n\nPress the red button to start.`;
  const [plain] = selectPassages(document, { query: 'red button', maxChars: 100 }).passages;
  assert.equal(plain?.heading, 'Usage');
  const outline = [{ level: 1, title: 'Whole guide', offset: 0 }];
  const [given] = selectPassages(document, { query: 'red button', maxChars: 100, outline }).passages;
  assert.equal(given?.heading, 'Whole guide');
});

test('nothing matches: the beginning of the document, as a read without a query gives', () => {
  const document = 'First sentence here. Second one.\n\nThird paragraph.';
  assert.equal(joined(document, { query: 'zzz qqq', maxChars: 40 }), 'First sentence here. Second one.');
});

test('nothing matches: the opening sentences, with exact offsets and matched false, up to the first that does not fit', () => {
  // Before, a later sentence that fitted was taken past one that did not: not the page's opening.
  const document =
    '# Tides\n\nThe harbour opens at dawn. Every ship that enters it is logged by the harbour master in ink. ' +
    'Fees are low.\n\nThe quay is long.';
  const selection = selectPassages(document, { query: 'mathmatical proof', maxChars: 45 });
  assert.equal(selection.matched, false);
  assert.deepEqual(
    selection.passages.map(({ text, start, end, score }) => ({ text, start, end, score })),
    [{ text: 'The harbour opens at dawn.', start: 9, end: 35, score: 0 }],
  );
  for (const passage of selection.passages)
    assert.equal(document.slice(passage.start, passage.end), passage.text);
  assert.equal(selectPassages(document, { query: 'harbour', maxChars: 40 }).matched, true);
});

test('the best sentence longer than the budget: its beginning at a word boundary, never a neighbour in its place', () => {
  // A 130-character answer at --max-chars 120: before, the sentence after it (no word of the question, ranked
  // only by its neighbour's words) was returned as the best-matching passage, and the answer dropped.
  const answer =
    'The lighthouse at Cordouan was finished in 1611 by the engineer Louis de Foix after twenty-seven years of ' +
    'difficult building work.';
  const document = `Ships pass the estuary every day. ${answer} Storms are frequent there in winter.\n\nA market is held.`;
  const query = 'When was the Cordouan lighthouse finished?';
  for (const maxChars of [120, 60, 20]) {
    const selection = selectPassages(document, { query, maxChars });
    assert.equal(selection.passages.length, 1, `${maxChars}: ${JSON.stringify(selection.passages)}`);
    const [passage] = selection.passages;
    assert.ok(answer.startsWith(passage!.text), `${maxChars}: ${passage!.text}`);
    assert.ok(passage!.text.length <= maxChars && passage!.text.length > maxChars - 15, passage!.text);
    assert.match(answer.slice(passage!.text.length), /^\s/, 'cut at a word boundary');
    assert.equal(document.slice(passage!.start, passage!.end), passage!.text);
    assert.equal(selection.matched, true);
  }
});

test('an empty or blank document gives no passage', () => {
  for (const document of ['', '  \n\n \t'])
    assert.deepEqual(selectPassages(document, { query: 'anything', maxChars: 100 }), {
      passages: [],
      matched: false,
      coveredChars: 0,
      totalLength: document.length,
    });
});

test('bare punctuation (an ellipsis) is no passage of its own: it does not pull in filler when the best does not fit', () => {
  // The matching sentence is longer than the budget. Before: the ellipsis after it, scored by its neighbour,
  // fitted, and the budget left went to the sentence after it ("... The harbour is calm."): no word of the answer.
  const document =
    'The tides of the Atlantic coast rise twice a day, pulled by the moon and the sun together, and the harbour ' +
    'masters of every port along it print tables of the hours a year ahead. ... The harbour is calm.';
  const selection = selectPassages(document, { query: 'how often do tides rise', maxChars: 40 });
  assert.deepEqual(
    selection.passages.map((passage) => passage.text),
    ['The tides of the Atlantic coast rise'],
  );
});

test('a question for years or dates, in the plural too, prefers the sentence that holds one', () => {
  const dated = 'The emperor ruled the empire from 1402 until 1424.';
  const document = `The reign of the emperor saw reform.\n\n${dated}\n\nThe court met in the north.`;
  for (const query of [
    'During what years did the emperor reign?',
    'Which dates mark the reign of the emperor?',
  ])
    assert.equal(joined(document, { query, maxChars: dated.length, language: 'en' }), dated, query);
});

test('a misspelt long word matches the page word one edit away, only when the page lacks it as typed', () => {
  const hit = 'Her proof was the most mathematical of the century.';
  const document = `${filler(20)}\n\n${hit}\n\n${filler(20)}`;
  const selection = selectPassages(document, { query: 'mathmatical', maxChars: 100 });
  assert.equal(selection.matched, true);
  assert.deepEqual(
    selection.passages.map((passage) => passage.text),
    [hit],
  );
  // The page holds the word as typed: the word one edit away (`desert` for `dessert`) is not matched.
  const both = `The desert was crossed in May.\n\n${filler(2)}\n\nThe dessert was sweet.`;
  assert.equal(joined(both, { query: 'dessert', maxChars: 60 }), 'The dessert was sweet.');
  assert.equal(
    selectPassages(both, { query: 'dessrt', maxChars: 60 }).matched,
    false,
    'six letters: too short',
  );
  // Short words and numbers are not matched at one edit: 1612 is not 1611.
  const years = `${filler(5)}\n\nThe bridge was finished in 1612.`;
  assert.equal(selectPassages(years, { query: '1611', maxChars: 100 }).matched, false);
});
