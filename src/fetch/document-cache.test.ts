import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DocumentCache } from './document-cache.ts';
import type { FetchedPage } from './fetch-backend.ts';

const page = (text: string): FetchedPage => ({
  url: 'https://example.org/',
  finalUrl: 'https://example.org/',
  status: 200,
  content: { kind: 'text', contentType: 'text/plain', charset: 'utf-8', extractor: 'text', text },
});

test('entries expire after ttlMs', () => {
  let now = 1000;
  const cache = new DocumentCache({ ttlMs: 50, maxChars: 1000, now: () => now });
  cache.set('a', page('hello'));
  assert.equal(cache.get('a')?.content.text, 'hello');
  now += 50;
  assert.equal(cache.get('a'), undefined);
  assert.equal(cache.size, 0);
});

test('the least recently used documents leave first when the character budget is full', () => {
  const cache = new DocumentCache({ ttlMs: 60_000, maxChars: 30 });
  cache.set('a', page('x'.repeat(10)));
  cache.set('b', page('y'.repeat(10)));
  cache.set('c', page('z'.repeat(10)));
  cache.get('a'); // a is now the most recently used
  cache.set('d', page('w'.repeat(10)));
  assert.equal(cache.get('b'), undefined);
  assert.ok(cache.get('a'));
  assert.ok(cache.get('c'));
  assert.ok(cache.get('d'));
});

test('a document larger than the whole budget is not kept, and replacing a key frees its old size', () => {
  const cache = new DocumentCache({ ttlMs: 60_000, maxChars: 20 });
  cache.set('big', page('x'.repeat(21)));
  assert.equal(cache.get('big'), undefined);
  cache.set('a', page('x'.repeat(15)));
  cache.set('a', page('x'.repeat(15)));
  cache.set('b', page('y'.repeat(5)));
  assert.ok(cache.get('a'));
  assert.ok(cache.get('b'));
});
