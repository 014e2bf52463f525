import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSourceLine, isSourcesHeading, parseAnswerSources } from './answer-citations.ts';

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
