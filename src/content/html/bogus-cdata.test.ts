import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractHtml } from '../html-extract.ts';
import { cdataAsBrowsers } from './bogus-cdata.ts';

const POST =
  '<p>After helping friends choose a graphics card for years, I put together one comparison of the current cards, with the specs that matter and the differences between them, for gaming and for work.</p>';

test('a stray <![CDATA[ in the body ends at the next > as in a browser, not at ]]>: the page after it stays', () => {
  const html = `<html><body><![CDATA[\n<div id="top"></div><div class="page"><h1>GPU guide</h1>${POST}</div></body></html>`;
  const { text } = extractHtml(html, { url: 'https://forum.example.org/t/1', mode: 'text' });
  assert.ok(text.includes('I put together one comparison of the current cards'), text);
});

test('cdataAsBrowsers: only the opening of a CDATA section changes, never inside a script; a page without one is returned as it is', () => {
  assert.equal(cdataAsBrowsers('<p>a</p><![CDATA[ x ]]>'), '<p>a</p><!CDATA[ x ]]>');
  const jsonLd = '<script type="application/ld+json">//<![CDATA[\n{"@type":"Article"}\n//]]></script>';
  assert.equal(cdataAsBrowsers(`${jsonLd}<p><![CDATA[`), `${jsonLd}<p><!CDATA[`);
  const plain = '<p>no sections here</p>';
  assert.equal(cdataAsBrowsers(plain), plain);
});
