import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractPage } from '../content/extract-page.ts';
import { urlsInText } from './urls-in-text.ts';

test('markdown links, autolinks and bare URLs, without the punctuation around them', () => {
  const text = [
    'See [the docs](https://example.com/docs/a_%28b%29?x=1&y=2) and [a title](https://example.com/t "Title").',
    'Bare: https://bare.example/path, and (https://paren.example/in) and https://wiki.example/A_(b).',
    '<https://auto.example/link> **https://bold.example/x** `https://code.example/y`',
    '- Link: https://feed.example/one?a=1',
    'Repeated: https://bare.example/path.',
  ].join('\n');
  assert.deepEqual(urlsInText(text, 100), [
    'https://example.com/docs/a_%28b%29?x=1&y=2',
    'https://example.com/t',
    'https://bare.example/path',
    'https://paren.example/in',
    'https://wiki.example/A_(b)',
    'https://auto.example/link',
    'https://bold.example/x',
    'https://code.example/y',
    'https://feed.example/one?a=1',
  ]);
  assert.equal(urlsInText(text, 3).length, 3);
  assert.deepEqual(urlsInText('no links here, only http:// and ftp://x.example', 10), []);
});

test('the links of a page as web_fetch gives them in markdown are found', async () => {
  const html = `<html><head><title>T</title></head><body><article><h1>Links</h1><p>See
    <a href="/docs/a_b(c)?x=1&amp;y=2#frag">the docs</a>, <a href="https://Other.example:443/Path%7efoo">other</a> and
    <a href="page two.html">spaces</a>. ${'Enough words to keep this paragraph as the main content. '.repeat(8)}</p>
    </article></body></html>`;
  const page = await extractPage({ html, url: 'https://site.example/dir/page', mode: 'markdown' });
  assert.deepEqual(urlsInText(page.text, 10), [
    'https://site.example/docs/a_b%28c%29?x=1&y=2#frag',
    'https://other.example/Path%7efoo',
    'https://site.example/dir/page%20two.html',
  ]);
});
