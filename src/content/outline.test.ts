import assert from 'node:assert/strict';
import { test } from 'node:test';
import { locateHeadings, markdownOutline } from './outline.ts';

test('markdownOutline finds ATX headings with their offsets, not the ones inside code fences', () => {
  const text =
    '# Title\n\nIntro.\n\n```sh\n# not a heading\n```\n\n## Install ##\n\nText.\n\n~~~\n## nor this\n~~~\n### [Use](https://x.example/) it\n';
  const outline = markdownOutline(text);
  assert.deepEqual(
    outline.map(({ level, title }) => [level, title]),
    [
      [1, 'Title'],
      [2, 'Install'],
      [3, 'Use it'],
    ],
  );
  for (const entry of outline) assert.ok(text.slice(entry.offset).startsWith('#'.repeat(entry.level)));
});

test('locateHeadings gives repeated titles their own offsets and skips headings it cannot find', () => {
  const text = 'Notes\n\nbody\n\nNotes\n\nmore body';
  const outline = locateHeadings(
    text,
    [
      { level: 2, text: 'Notes' },
      { level: 2, text: 'Missing' },
      { level: 2, text: 'Notes' },
    ],
    false,
  );
  assert.deepEqual(
    outline.map((entry) => entry.offset),
    [0, 13],
  );
});

test('a heading text inside a line is not taken for the heading', () => {
  const text = 'See Setup below.\n\n## Setup\n';
  assert.deepEqual(locateHeadings(text, [{ level: 2, text: 'Setup' }], true), [
    { level: 2, title: 'Setup', offset: 18 },
  ]);
});
