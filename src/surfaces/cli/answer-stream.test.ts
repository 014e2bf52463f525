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

test('the sources section is held back, whatever the piece size; the body streams; written + held is the whole', () => {
  for (const size of [1, 2, 5, 12, 1000]) {
    const { written, held } = streamIn(ANSWER, size);
    assert.equal(written, 'A new REPL [1].\nAnd free threading [2].\n', `pieces of ${size}`);
    assert.equal(written + held, ANSWER);
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
