import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  citationMarkerAt,
  isSourceLine,
  isSourcesHeading,
  markUnverifiedCitations,
  parseAnswerSources,
  partialCitationMarkerAt,
} from './answer-citations.ts';

test('the sources section the system prompt asks for: numbers, URLs, quotes and offsets; the body without it', () => {
  const answer = [
    'Python 3.13 has a new REPL [1] and an experimental free-threaded build [2].',
    '',
    'Sources:',
    '[1] https://docs.python.org/3.13/whatsnew/ "Python 3.13 ships a new interactive interpreter."',
    '[2] https://peps.python.org/pep-0703/ “Free threading is experimental.” (120–151)',
    '',
  ].join('\n');
  const parsed = parseAnswerSources(answer);
  assert.equal(parsed.body, 'Python 3.13 has a new REPL [1] and an experimental free-threaded build [2].');
  assert.deepEqual(parsed.sources, [
    {
      n: 1,
      url: 'https://docs.python.org/3.13/whatsnew/',
      quote: 'Python 3.13 ships a new interactive interpreter.',
    },
    {
      n: 2,
      url: 'https://peps.python.org/pep-0703/',
      quote: 'Free threading is experimental.',
      start: 120,
      end: 151,
    },
  ]);
});

test('variants models write: markdown headings, list bullets, bold numbers, angle brackets; no quote; a repeat', () => {
  const answer = [
    'Body [1][2].',
    '## Sources',
    '- **[1]**: <https://a.example/x> — "quoted, with a comma"',
    '* [2] https://b.example/y.',
    '[1] https://c.example/z "a second line for 1 is ignored"',
  ].join('\n');
  const parsed = parseAnswerSources(answer);
  assert.equal(parsed.body, 'Body [1][2].');
  assert.deepEqual(parsed.sources, [
    { n: 1, url: 'https://a.example/x', quote: 'quoted, with a comma' },
    { n: 2, url: 'https://b.example/y' },
  ]);
});

test('an answer without a sources list: no sources, the body is the answer; a stray heading mid-text is no section', () => {
  assert.deepEqual(parseAnswerSources('Plain answer (https://x.example/).\n'), {
    sources: [],
    sectionStart: 35,
    body: 'Plain answer (https://x.example/).',
  });
  const parsed = parseAnswerSources('References:\nsome prose\n\n[1] https://x.example/ "q"');
  assert.equal(parsed.body, 'References:\nsome prose');
});

test('heading and source-line recognisers', () => {
  for (const line of ['Sources:', '**Sources:**', '### References', 'sources\n'])
    assert.equal(isSourcesHeading(line), true, line);
  for (const line of ['Sources: see below', 'The sources are many.'])
    assert.equal(isSourcesHeading(line), false);
  assert.equal(isSourceLine('[3] https://x.example/'), true);
  assert.equal(isSourceLine('[3] see https://x.example/'), false);
});

test('unverified citations are marked where they are cited; verified ones, code and non-markers are left alone', () => {
  const citations = [
    { n: 1, verified: true },
    { n: 2, verified: false },
    { n: 3, verified: true },
  ];
  const cases: Array<[string, string]> = [
    ['Fast [1]. Free [2].', 'Fast [1]. Free [2 unverified].'],
    ['Both [1, 2] and [1,3].', 'Both [1][2 unverified] and [1,3].'],
    ['A range [1–3], adjacent [2][3].', 'A range [1][2 unverified][3], adjacent [2 unverified][3].'],
    ['Listed nowhere [7].', 'Listed nowhere [7 unverified].'],
    [
      'Index a[2], link [2](https://x.example/), `b[2]`, [2x], [2–40].',
      'Index a[2], link [2](https://x.example/), `b[2]`, [2x], [2–40].',
    ],
    ['```\nxs[2] = [2]\n```\nSee [2].', '```\nxs[2] = [2]\n```\nSee [2 unverified].'],
    ['No markers at all.', 'No markers at all.'],
  ];
  for (const [text, marked] of cases) assert.equal(markUnverifiedCitations(text, citations), marked, text);
});

test('marker finders: where the first marker starts, and an end that may still become one', () => {
  assert.equal(citationMarkerAt('So it is [2].'), 9);
  assert.equal(citationMarkerAt('a[2] [note]'), -1);
  // `[1]` at the very end may still turn out to be a link, `[1](…)`.
  for (const end of ['so [', 'so [1', 'so [1, ', 'so [1–', 'so [1]'])
    assert.equal(partialCitationMarkerAt(end), 3, end);
  for (const end of ['so [n', 'so a[1', 'so [1] ', 'so']) assert.equal(partialCitationMarkerAt(end), -1, end);
});
