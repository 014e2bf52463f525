import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exactUrl } from './exact-url.ts';

test('spellings of one address compare equal', () => {
  const same = [
    'https://Example.COM/a/b?x=1',
    'HTTPS://example.com:443/a/b?x=1',
    'https://example.com/a/./c/../b?x=1#section',
    'https://example.com/%61/b?x=1',
    'example.com/a/b?x=1',
  ];
  for (const url of same) assert.equal(exactUrl(url), 'https://example.com/a/b?x=1', url);
  assert.equal(exactUrl('http://example.com:80/'), 'http://example.com/');
  assert.equal(exactUrl('https://example.com/page?'), 'https://example.com/page');
  assert.equal(exactUrl('https://bücher.example/'), 'https://xn--bcher-kva.example/');
  assert.equal(exactUrl('https://example.com/a_%28b%29'), exactUrl('https://example.com/a_(b)'));
  assert.equal(exactUrl('https://example.com/%7efoo'), exactUrl('https://example.com/~foo'));
  assert.equal(exactUrl('https://example.com/a%2fb'), 'https://example.com/a%2Fb');
  assert.equal(exactUrl('https://example.com/q?a=%e2%82%ac'), 'https://example.com/q?a=%E2%82%AC');
});

test('an added path, query or slash, another scheme, or an escape that changes meaning is another URL', () => {
  const seen = exactUrl('https://example.com/docs/page');
  for (const other of [
    'https://example.com/docs/page/',
    'https://example.com/docs/page/x',
    'https://example.com/docs/page?q=1',
    'https://example.com/docs/page?',
    'http://example.com/docs/page',
    'https://example.com:8443/docs/page',
    'https://www.example.com/docs/page',
    'https://example.com/docs%2Fpage',
  ]) {
    if (other.endsWith('?')) assert.equal(exactUrl(other), seen, 'an empty query adds nothing');
    else assert.notEqual(exactUrl(other), seen, other);
  }
  assert.notEqual(exactUrl('https://example.com/s?a=1&b=2'), exactUrl('https://example.com/s?b=2&a=1'));
  assert.notEqual(exactUrl('https://example.com/s?a=%26'), exactUrl('https://example.com/s?a=&'));
});

test('what is not an http(s) URL has no exact form', () => {
  for (const text of ['mailto:a@example.com', 'ftp://example.com/x', 'javascript:alert(1)', 'http://', '']) {
    assert.equal(exactUrl(text), undefined, text);
  }
});
