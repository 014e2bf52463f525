import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isPeriscopeError } from '../errors.ts';
import { paginate } from './paginate.ts';

const words = Array.from({ length: 2000 }, (_, index) => `word${index}`).join(' ');

test('a short text fits in one window', () => {
  const window = paginate('hello world', { startIndex: 0, maxChars: 100, maxTokens: 100 });
  assert.deepEqual(window, {
    text: 'hello world',
    startIndex: 0,
    length: 11,
    totalLength: 11,
    truncated: false,
  });
});

test('windows cover the whole text, never splitting a word, and continue where the last ended', () => {
  let startIndex = 0;
  const pieces: string[] = [];
  for (let guard = 0; guard < 100; guard++) {
    const window = paginate(words, { startIndex, maxChars: 1000, maxTokens: 10_000 });
    assert.ok(window.length <= 1000);
    pieces.push(window.text);
    if (!window.truncated) break;
    assert.equal(window.nextStartIndex, startIndex + window.length);
    assert.ok(window.text.endsWith(' '), 'cut on a space');
    startIndex = window.nextStartIndex as number;
  }
  assert.equal(pieces.join(''), words);
  assert.ok(pieces.length > 10);
});

test('the token budget bounds CJK text harder than Cyrillic, and Cyrillic harder than English', () => {
  const window = (text: string) => paginate(text, { startIndex: 0, maxChars: 50_000, maxTokens: 1000 });
  const chinese = window('中文字符'.repeat(5000));
  const russian = window('абвг'.repeat(5000));
  const english = window('the cat sat on the mat. '.repeat(1000));
  assert.equal(chinese.truncated, true);
  assert.equal(chinese.length, 500, 'two tokens a Han character');
  assert.equal(russian.length, 1000, 'a token a Cyrillic letter');
  assert.ok(english.length > 3000, `${english.length} characters of English`);
});

test('a cut prefers a paragraph break, then a line break, then a space, then any character', () => {
  const cut = (text: string) => paginate(text, { startIndex: 0, maxChars: 1000, maxTokens: 1e6 });
  // The window is cut at 1000 characters; breaks in its last tenth (from 900) are candidates.
  const tail = 'w'.repeat(2000);
  const paragraph = `${'x'.repeat(920)}\n\n${'y'.repeat(30)}\n${'z'.repeat(20)} ${tail}`;
  assert.equal(cut(paragraph).nextStartIndex, 922);
  assert.ok(cut(paragraph).text.endsWith('x\n\n'));
  const line = paragraph.replace('\n\n', 'xx');
  assert.equal(cut(line).nextStartIndex, 953);
  assert.ok(cut(line).text.endsWith('y\n'));
  const space = line.replace('\n', 'y');
  assert.equal(cut(space).nextStartIndex, 974);
  assert.ok(cut(space).text.endsWith('z '));
  assert.equal(cut(space.replace(' ', 'z')).nextStartIndex, 1000);
  // A paragraph break before the last tenth is too far back: the space near the end wins.
  const early = `${'x'.repeat(500)}\n\n${'y'.repeat(450)} ${tail}`;
  assert.equal(cut(early).nextStartIndex, 953);
});

test('a budget smaller than one character still moves on by a character, or a whole surrogate pair', () => {
  const ethiopic = paginate('ሀሁሂ', { startIndex: 0, maxChars: 10, maxTokens: 1 });
  assert.equal(ethiopic.length, 1);
  const emoji = paginate('😀😀', { startIndex: 0, maxChars: 10, maxTokens: 1 });
  assert.equal(emoji.text, '😀');
  assert.equal(emoji.nextStartIndex, 2);
});

test('a window never ends inside a surrogate pair or a CJK run', () => {
  const emoji = '😀'.repeat(3000); // no spaces: no boundary to back off to
  let startIndex = 0;
  const pieces: string[] = [];
  for (let guard = 0; guard < 100; guard++) {
    const window = paginate(emoji, { startIndex, maxChars: 1001, maxTokens: 100_000 });
    assert.ok(!/[\ud800-\udbff]$/.test(window.text), 'no lone high surrogate at the end');
    assert.ok(!/^[\udc00-\udfff]/.test(window.text), 'no lone low surrogate at the start');
    pieces.push(window.text);
    if (!window.truncated) break;
    startIndex = window.nextStartIndex as number;
  }
  assert.equal(pieces.join(''), emoji);
  assert.ok(pieces.length > 5);
});

test('a startIndex past the end is INVALID_INPUT that names the length', () => {
  try {
    paginate('short', { startIndex: 99, maxChars: 10, maxTokens: 10 });
    assert.fail('expected an error');
  } catch (error) {
    assert.ok(isPeriscopeError(error));
    assert.equal(error.code, 'INVALID_INPUT');
    assert.match(error.message, /past the end of the document \(5 characters\)/);
  }
});

test('a startIndex inside a surrogate pair starts at the pair: the window never opens on half a character', () => {
  const text = 'ab😀cd'; // 😀 is two UTF-16 code units, at 2 and 3
  const window = paginate(text, { startIndex: 3, maxChars: 10, maxTokens: 100 });
  assert.equal(window.startIndex, 2);
  assert.equal(window.text, '😀cd');
  assert.equal(paginate(text, { startIndex: 4, maxChars: 10, maxTokens: 100 }).text, 'cd');
});
