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

test('the token budget bounds CJK text harder than Latin text', () => {
  const chinese = '中文字符'.repeat(5000);
  const latin = 'abcd'.repeat(5000);
  const cjkWindow = paginate(chinese, { startIndex: 0, maxChars: 50_000, maxTokens: 1000 });
  const latinWindow = paginate(latin, { startIndex: 0, maxChars: 50_000, maxTokens: 1000 });
  assert.equal(cjkWindow.length, 1000);
  assert.equal(latinWindow.length, 3000);
  assert.equal(cjkWindow.truncated, true);
  const russian = paginate('абвг'.repeat(5000), { startIndex: 0, maxChars: 50_000, maxTokens: 1000 });
  assert.equal(russian.length, 2000);
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
