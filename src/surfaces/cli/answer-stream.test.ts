import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAnswerStream } from './answer-stream.ts';

/** Push `text` in pieces of `size` characters; what was written, and what finish() held back. */
function streamIn(text: string, size: number) {
  let written = '';
  const stream = createAnswerStream((piece) => {
    written += piece;
  });
  for (let at = 0; at < text.length; at += size) stream.push(text.slice(at, at + size));
  return { written, held: stream.finish() };
}

const ANSWER =
  'A new REPL [1].\nAnd free threading [2].\n\nSources:\n[1] https://a.example/ "x"\n[2] https://b.example/ "y"\n';

test('from the first citation marker on, text is held back, whatever the piece size; written + held is the whole', () => {
  for (const size of [1, 2, 5, 12, 1000]) {
    const { written, held } = streamIn(ANSWER, size);
    assert.equal(written, 'A new REPL ', `pieces of ${size}`);
    assert.equal(written + held, ANSWER);
  }
});

test('without markers the body streams and only the sources section is held; brackets that are no marker pass', () => {
  const text =
    'A list a[1] and a link [2](https://x.example/) and [note] and [12a].\nMore.\n\nSources:\n[1] https://a.example/ "x"\n';
  for (const size of [1, 2, 3, 7, 1000]) {
    const { written, held } = streamIn(text, size);
    assert.equal(written, text.slice(0, text.indexOf('\n\nSources:') + 1), `pieces of ${size}`);
    assert.equal(written + held, text);
  }
});

test('grouped and ranged markers hold too; text before a marker split over pieces is written, the marker is not', () => {
  for (const marker of ['[1, 2]', '[2–4]', '[12]']) {
    const text = `First line.\nIt is so ${marker} and more.\n`;
    for (const size of [1, 4, 1000]) {
      const { written, held } = streamIn(text, size);
      assert.equal(written, 'First line.\nIt is so ', `${marker} in pieces of ${size}`);
      assert.equal(held, `${marker} and more.\n`);
    }
  }
});

test('a section that starts with a source line, no heading; a body line starting with S or [ is still written', () => {
  const text = 'So it goes.\n[note] kept\nSourcesX\n[1] https://a.example/ "x"';
  for (const size of [1, 3, 50]) {
    const { written, held } = streamIn(text, size);
    assert.equal(written, 'So it goes.\n[note] kept\nSourcesX\n');
    assert.equal(held, '[1] https://a.example/ "x"');
  }
});

test('a turn that calls tools writes the text it held from a marker on', () => {
  let written = '';
  const stream = createAnswerStream((piece) => {
    written += piece;
  });
  stream.push('As [1] says, I should check.\n');
  assert.equal(written, 'As ');
  stream.endTurn();
  assert.equal(written, 'As [1] says, I should check.\n');
  stream.push('Answer.');
  assert.equal(stream.finish(), '');
  assert.equal(written, 'As [1] says, I should check.\nAnswer.');
});

test('text without sources is all written, but for trailing blank lines; a tool turn writes what it held', () => {
  assert.deepEqual(streamIn('Plain answer.\n\nSecond paragraph.\n\n', 4), {
    written: 'Plain answer.\n\nSecond paragraph.\n',
    held: '\n',
  });
  let written = '';
  const stream = createAnswerStream((piece) => {
    written += piece;
  });
  stream.push('Let me check.\nSources:\n');
  stream.endTurn();
  stream.push('Answer.');
  assert.equal(written, 'Let me check.\nSources:\nAnswer.');
  assert.equal(stream.finish(), '');
});
