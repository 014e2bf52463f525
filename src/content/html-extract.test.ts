import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cpuTimeOf } from '../testing/cpu-time.ts';
import { extractHtml } from './html-extract.ts';

/** Enough article text for Readability to take the page as an article. */
const FILLER = Array.from(
  { length: 6 },
  (_, index) =>
    `<p>Paragraph ${index} explains in some detail how the committee reviewed every proposal submitted during the spring session and why most of them were accepted.</p>`,
).join('\n');

const ARTICLE = `<!doctype html><html lang="en-GB"><head><title>Birds of the River</title>
<base href="https://cdn.example.org/docs/">
<meta property="og:site_name" content="Nature Site"><meta name="author" content="Jane Doe">
<meta property="article:published_time" content="2024-05-01T10:00:00Z">
</head><body><nav><a href="/">Home</a> <a href="/about">About</a></nav><article>
<h1>Birds of the River</h1>
<p>Intro with <strong>bold</strong>, <em>italic</em> and <code>inline()</code> text.</p>
<h2>Species</h2>
<ul><li>Heron</li><li>Kingfisher<ul><li>Common kingfisher</li></ul></li><li>Dipper</li></ul>
<ol start="3"><li>Third</li><li>Fourth</li></ol>
<table><thead><tr><th>Bird</th><th>Length</th></tr></thead><tbody><tr><td>Heron</td><td>95 cm</td></tr><tr><td>Kingfisher</td><td>16 cm</td></tr></tbody></table>
<pre><code class="language-python">def fly(bird):
    return bird.wings * 2
</code></pre>
<blockquote><p>A bird in the hand is worth two in the bush.</p></blockquote>
<p><img src="images/heron.jpg" alt="A grey heron"> <img src="data:image/png;base64,iVBORw0KGgo=" alt="pixel">
<a href="/wiki/Heron">relative</a> <a href="https://example.com/abs">absolute</a> <a href="javascript:alert(1)">script link</a></p>
${FILLER}
</article><footer>Copyright 2024 Nature Site. All rights reserved.</footer></body></html>`;

const PAGE_URL = 'https://www.example.org/articles/birds';

test('markdown keeps the structure: headline, headings, lists, GFM table, fenced code with language, quote', () => {
  const result = extractHtml(ARTICLE, { url: PAGE_URL, mode: 'markdown' });
  assert.equal(result.extractor, 'generic');
  const blocks = result.text.split('\n\n');
  assert.equal(blocks[0], '# Birds of the River');
  assert.equal(blocks[1], 'Intro with **bold**, *italic* and `inline()` text.');
  assert.equal(blocks[2], '## Species');
  assert.equal(blocks[3], '- Heron\n- Kingfisher\n  - Common kingfisher\n- Dipper');
  assert.equal(blocks[4], '3. Third\n4. Fourth');
  assert.equal(blocks[5], '| Bird | Length |\n| --- | --- |\n| Heron | 95 cm |\n| Kingfisher | 16 cm |');
  assert.equal(blocks[6], '```python\ndef fly(bird):\n    return bird.wings * 2\n```');
  assert.equal(blocks[7], '> A bird in the hand is worth two in the bush.');
  assert.match(result.text, /\n\nParagraph 5 explains in some detail .* were accepted\.$/);
  assert.doesNotMatch(result.text, /Home|All rights reserved/);
});

test("headings inside table cells are the cells' labels: kept, on the row, without # marks (text and markdown)", () => {
  const table =
    '<table><tbody><tr><td><h4>Ingredient</h4></td><td><h4>Per person</h4></td><td><h4>For four</h4></td></tr>' +
    '<tr><td colspan="3"><h5>Vegetables</h5></td></tr><tr><td>Onions</td><td>1</td><td>4</td></tr></tbody></table>';
  const html = `<html><body><article><h1>Menus</h1>${FILLER}${table}${FILLER}</article></body></html>`;
  const markdown = extractHtml(html, { url: PAGE_URL, mode: 'markdown' }).text;
  assert.ok(
    markdown.includes(
      '| Ingredient | Per person | For four |\n| --- | --- | --- |\n| Vegetables |  |  |\n| Onions | 1 | 4 |',
    ),
    markdown,
  );
  const text = extractHtml(html, { url: PAGE_URL, mode: 'text' }).text;
  assert.ok(text.includes('Ingredient\tPer person\tFor four\nVegetables\t\t\nOnions\t1\t4'), text);
});

test('links and images are absolute (against <base>), images keep their alt text, data: images go', () => {
  const result = extractHtml(ARTICLE, { url: PAGE_URL, mode: 'markdown' });
  const line = result.text.split('\n\n')[8];
  assert.equal(
    line,
    '![A grey heron](https://cdn.example.org/docs/images/heron.jpg) ' +
      '[relative](https://cdn.example.org/wiki/Heron) [absolute](https://example.com/abs) script link',
  );
  assert.doesNotMatch(result.text, /data:|pixel|javascript:/);
});

test('without <base>, relative URLs resolve against the page URL; a javascript: <base> is ignored', () => {
  for (const base of ['', '<base href="javascript:alert(1)">']) {
    const html = `<html><head>${base}</head><body><article><p><a href="../up.html">up</a> <a href="?q=1">query</a> <a href="/root#s">anchor</a> <img src="//img.example.net/a.png" alt="net"></p>${FILLER}</article></body></html>`;
    const result = extractHtml(html, { url: 'https://site.test/a/b/page.html', mode: 'markdown' });
    assert.equal(
      result.text.split('\n\n')[0],
      '[up](https://site.test/a/up.html) [query](https://site.test/a/b/page.html?q=1) ' +
        '[anchor](https://site.test/root#s) ![net](https://img.example.net/a.png)',
      base,
    );
  }
});

test('a lazy-loaded image is read from data-src instead of its data: placeholder', () => {
  const html = `<html><body><article><p>Look: <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" data-src="/img/real.webp" alt="real"></p>${FILLER}</article></body></html>`;
  const result = extractHtml(html, { url: 'https://site.test/x', mode: 'markdown' });
  assert.equal(result.text.split('\n\n')[0], 'Look: ![real](https://site.test/img/real.webp)');
});

test('text mode has the same content and no Markdown markup', () => {
  const result = extractHtml(ARTICLE, { url: PAGE_URL, mode: 'text' });
  const blocks = result.text.split('\n\n');
  assert.equal(blocks[0], 'Birds of the River');
  assert.equal(blocks[1], 'Intro with bold, italic and inline() text.');
  assert.equal(blocks[2], 'Species');
  assert.equal(blocks[5], 'Bird\tLength\nHeron\t95 cm\nKingfisher\t16 cm');
  assert.equal(blocks[6], 'def fly(bird):\n    return bird.wings * 2');
  assert.equal(blocks[7], 'A bird in the hand is worth two in the bush.');
  assert.equal(blocks[8], 'relative absolute script link');
  for (const markup of ['**', '`', '](', '![', '#', '| ', '> ', '```', 'https://']) {
    assert.ok(!result.text.includes(markup), `text mode contains ${markup}`);
  }
});

test('metadata from <meta> tags and <html lang>', () => {
  const result = extractHtml(ARTICLE, { url: PAGE_URL, mode: 'markdown' });
  assert.equal(result.title, 'Birds of the River');
  assert.equal(result.byline, 'Jane Doe');
  assert.equal(result.publishedAt, '2024-05-01T10:00:00Z');
  assert.equal(result.language, 'en-GB');
  assert.equal(result.siteName, 'Nature Site');
});

test('metadata from OpenGraph', () => {
  const html = `<html lang="fr"><head><title>Balise title</title><meta property="og:title" content="Le titre OG">
<meta property="og:site_name" content="Le Site"><meta property="article:author" content="Marie Curie">
<meta property="article:published_time" content="2023-11-02"></head><body><article>${FILLER}</article></body></html>`;
  const result = extractHtml(html, { url: 'https://site.test/', mode: 'markdown' });
  assert.equal(result.title, 'Le titre OG');
  assert.equal(result.siteName, 'Le Site');
  assert.equal(result.byline, 'Marie Curie');
  assert.equal(result.publishedAt, '2023-11-02');
  assert.equal(result.language, 'fr');
});

test('metadata from JSON-LD (@graph, author list, publisher object)', () => {
  const jsonLd = JSON.stringify({
    '@context': 'https://schema.org',
    '@graph': [
      { '@type': 'WebSite', name: 'Example News' },
      {
        '@type': 'NewsArticle',
        headline: 'Council approves budget',
        datePublished: '2024-03-05T08:00:00Z',
        author: [{ '@type': 'Person', name: 'Ana Silva' }],
        publisher: { '@type': 'Organization', name: 'Example News' },
      },
    ],
  });
  const html = `<html><head><title>Ignored title</title><script type="application/ld+json">${jsonLd}</script></head><body><article>${FILLER}</article></body></html>`;
  const result = extractHtml(html, { url: 'https://news.test/budget', mode: 'markdown' });
  assert.equal(result.title, 'Council approves budget');
  assert.equal(result.byline, 'Ana Silva');
  assert.equal(result.publishedAt, '2024-03-05T08:00:00Z');
  assert.equal(result.siteName, 'Example News');
  assert.doesNotMatch(result.text, /NewsArticle|@graph/);
});

test('CJK text is not split by source line breaks; Korean keeps its spaces', () => {
  const html = `<html lang="zh"><body><article><p>中华人民共和国是世界上人口最多的国家之一，
拥有悠久的历史和灿烂的文化。</p><p>日本は東アジアに位置する島国であり、
豊かな自然と長い歴史を持っています。</p><p>대한민국은 동아시아의
한반도 남부에 위치한 나라이다.</p>${FILLER}</article></body></html>`;
  for (const mode of ['markdown', 'text'] as const) {
    const blocks = extractHtml(html, { url: 'https://x.test/', mode }).text.split('\n\n');
    assert.equal(blocks[0], '中华人民共和国是世界上人口最多的国家之一，拥有悠久的历史和灿烂的文化。');
    assert.equal(blocks[1], '日本は東アジアに位置する島国であり、豊かな自然と長い歴史を持っています。');
    assert.equal(blocks[2], '대한민국은 동아시아의 한반도 남부에 위치한 나라이다.');
  }
});

test('a page whose article element holds little of its text still yields all of it', () => {
  const stations = Array.from(
    { length: 30 },
    (_, index) =>
      `<li>Station ${index}: trains leave every ten minutes towards the harbour and the old town.</li>`,
  ).join('');
  const html = `<html><head><title>Timetable</title></head><body><div id="main"><article><p>The timetable below lists every station served by the harbour line, with departures.</p></article></div><div><ul>${stations}</ul></div></body></html>`;
  const result = extractHtml(html, { url: 'https://x.test/', mode: 'markdown' });
  assert.equal(result.title, 'Timetable');
  const lines = result.text.split('\n');
  assert.equal(
    lines[0],
    'The timetable below lists every station served by the harbour line, with departures.',
  );
  assert.equal(lines[2], '- Station 0: trains leave every ten minutes towards the harbour and the old town.');
  assert.equal(
    lines.at(-1),
    '- Station 29: trains leave every ten minutes towards the harbour and the old town.',
  );
});

test('a fragment without <html> or <body> still reads', () => {
  const result = extractHtml('<p>Just a fragment of text.</p>', { url: 'https://x.test/', mode: 'text' });
  assert.equal(result.text, 'Just a fragment of text.');
});

test('scripts, styles, hidden elements and comments are never text', () => {
  const html = `<html><body><article><p>Visible words.</p><script>var secret = "script text";</script><style>.x{}</style>
<p hidden>hidden attribute</p><p style="display:none">display none</p><p aria-hidden="true">aria hidden</p>
<!-- a comment --><noscript>noscript text</noscript><template><p>template text</p></template>${FILLER}</article></body></html>`;
  const result = extractHtml(html, { url: 'https://x.test/', mode: 'text' });
  assert.equal(result.text.split('\n\n')[0], 'Visible words.');
  for (const hidden of [
    'script text',
    'hidden attribute',
    'display none',
    'aria hidden',
    'a comment',
    'template',
  ]) {
    assert.ok(!result.text.includes(hidden), hidden);
  }
});

test('100 000 nested <div>s: the deep text comes out, quickly', () => {
  const html = `<html><head><title>Deep</title></head><body>${'<div>'.repeat(100_000)}<p>The deepest paragraph of all.</p>${'</div>'.repeat(100_000)}<p>After the pit.</p></body></html>`;
  const { result, cpuMs } = cpuTimeOf(() => extractHtml(html, { url: 'https://x.test/', mode: 'markdown' }));
  // A guard against quadratic work (minutes at this depth), not a speed measure: ~0.3–0.6 s of CPU, which a loaded
  // machine does not stretch (its wall-clock time it does). Speed is measured in bench/extract.bench.ts.
  assert.ok(cpuMs < 20_000, `took ${Math.round(cpuMs)} ms of CPU`);
  assert.equal(result.title, 'Deep');
  assert.equal(result.text, 'The deepest paragraph of all.\n\nAfter the pit.');
});

test('markup tricks cannot smuggle deep nesting past the limit', () => {
  // `</div/>` closes nothing in the parser: a naive depth counter would see balanced tags.
  const html = `<html><body>${`${'<div>'.repeat(100)}${'</div/>'.repeat(100)}`.repeat(1000)}<p>Bottom text.</p></body></html>`;
  const { result, cpuMs } = cpuTimeOf(() => extractHtml(html, { url: 'https://x.test/', mode: 'text' }));
  // A guard against quadratic work (minutes at this depth), not a speed measure: see above.
  assert.ok(cpuMs < 20_000, `took ${Math.round(cpuMs)} ms of CPU`);
  assert.equal(result.text, 'Bottom text.');
});

test('layout tables read cell by cell, words never fused; a reversed list counts down', () => {
  const html = `<html><body><article><table role="presentation"><tr><td>Left column text</td><td>Right column text</td></tr></table>
<table><tr><td>Only one column</td></tr><tr><td>Second row</td></tr></table>
<ol reversed><li>Three</li><li>Two</li><li>One</li></ol><ol reversed start="10"><li>Ten</li><li>Nine</li></ol>${FILLER}</article></body></html>`;
  const blocks = extractHtml(html, { url: 'https://x.test/', mode: 'markdown' }).text.split('\n\n');
  assert.deepEqual(blocks.slice(0, 6), [
    'Left column text',
    'Right column text',
    'Only one column',
    'Second row',
    '3. Three\n2. Two\n1. One',
    '10. Ten\n9. Nine',
  ]);
});
