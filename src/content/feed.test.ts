import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { FEED_MAX_ENTRIES, FEED_SUMMARY_MAX_CHARS, parseFeed, readDate, renderXml } from './feed.ts';
import { renderContent } from './render-content.ts';
import type { ExtractMode } from './types.ts';

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/feed/${name}`, import.meta.url));
const WORDPRESS = fixture('wordpress.rss');
const RELEASES = fixture('github-releases.atom');
const RSS1 = fixture('rss1.rdf');
// Real feeds written by real generators (see __fixtures__/feed/README.md): Hugo's RSS 2.0, jekyll-feed's Atom.
const HUGO = fixture('hugo-tufte.rss');
const JEKYLL = fixture('jekyll-al-folio.atom');

function render(
  body: Uint8Array | string,
  contentType: string,
  mode: ExtractMode = 'markdown',
  url = 'https://harbourlights.example/feed/',
) {
  return renderContent({
    url,
    headers: { 'content-type': contentType },
    body: typeof body === 'string' ? new TextEncoder().encode(body) : body,
    mode,
  });
}

test('an RSS 2.0 feed becomes a Markdown list of entries: title, absolute link, ISO date, author, text summary', async () => {
  const rendered = await render(WORDPRESS, 'application/rss+xml; charset=UTF-8');
  assert.equal(rendered.kind, 'feed');
  assert.equal(rendered.extractor, 'feed');
  assert.equal(rendered.title, 'Harbour Lights – Notes from a coastal town');
  assert.equal(rendered.language, 'en-GB');
  const { text } = rendered;
  assert.match(
    text,
    /^# Harbour Lights – Notes from a coastal town\n\nTides, boats and the people who mend them\n\nhttps:\/\/harbourlights\.example\//,
  );
  assert.match(
    text,
    /## Why the spring tides came early this year\n\n- Link: https:\/\/harbourlights\.example\/2025\/03\/spring-tides-early\/\n- Date: 2025-03-14T09:12:41Z\n- Author: Morwenna Pascoe\n\nThe harbour master’s tables said the 18th/,
  );
  assert.match(text, /## Re-caulking the “Lowena”: a week in photos/);
  // A relative link is resolved against the feed's URL.
  assert.match(
    text,
    /- Link: https:\/\/harbourlights\.example\/2025\/03\/lifeboat-open-day\/\n- Date: 2025-03-01T08:00:00Z/,
  );
  // Summary HTML is reduced to text; hidden text and data: images never come through.
  assert.doesNotMatch(text, /<p>|<a |evil\.example|AI assistants|data:image|base64/);
  assert.equal(rendered.outline?.length, 4, 'the feed title and one heading per entry');
});

test('the same feed in text mode is a numbered plain list', async () => {
  const { text } = await render(WORDPRESS, 'application/rss+xml', 'text');
  assert.match(
    text,
    /^Harbour Lights – Notes from a coastal town\nTides, boats and the people who mend them\nhttps:\/\/harbourlights\.example\/\n\n1\. Why the spring tides/,
  );
  assert.match(
    text,
    /\n3\. Lifeboat open day, 5 April\n {3}https:\/\/harbourlights\.example\/2025\/03\/lifeboat-open-day\/\n {3}2025-03-01T08:00:00Z · Morwenna Pascoe\n {3}Come and see the Shannon-class boat up close\./,
  );
  assert.doesNotMatch(text, /^#|- Link:/m);
});

test('an Atom feed: html, text and xhtml constructs, alternate links, dates with offsets, entry authors', async () => {
  const rendered = await render(
    RELEASES,
    'application/atom+xml; charset=utf-8',
    'markdown',
    'https://github.com/example-org/tidewatch/releases.atom',
  );
  assert.equal(rendered.kind, 'feed');
  assert.equal(rendered.title, 'Release notes from tidewatch');
  assert.equal(rendered.language, 'en-US');
  const { text } = rendered;
  assert.match(
    text,
    /^# Release notes from tidewatch\n\nhttps:\/\/github\.com\/example-org\/tidewatch\/releases\n/,
  );
  assert.match(
    text,
    /## v2\.4\.0\n\n- Link: https:\/\/github\.com\/example-org\/tidewatch\/releases\/tag\/v2\.4\.0\n- Date: 2025-03-12T15:04:22Z\n- Author: mpascoe\n\nWhat's Changed Harmonic tide predictions for 312 new stations by @mpascoe in #881 Fix daylight-saving offset/,
  );
  // type="text": markup-looking text stays text.
  assert.match(
    text,
    /## v2\.3\.1 <security>\n\n- Link: https:\/\/github\.com\/example-org\/tidewatch\/releases\/tag\/v2\.3\.1\n- Date: 2025-02-27T08:41:05Z\n- Author: jtrelawny\n\nPatch release: rejects station IDs with path separators\. Upgrade strongly recommended\./,
  );
});

test('an RSS 1.0 (RDF) feed in ISO-8859-1, found by sniffing even when served as text/xml', async () => {
  const rendered = await render(RSS1, 'text/xml', 'text', 'https://news.example.org/index.rdf');
  assert.equal(rendered.kind, 'feed');
  assert.equal(rendered.charset, 'windows-1252');
  assert.equal(rendered.contentType, 'text/xml');
  assert.match(
    rendered.text,
    /^Example News\nNews for nerds, stuff that matters\nhttps:\/\/news\.example\.org\/\n\n1\. Café Owners Build Open-Source Tide Gauge\n {3}https:\/\/news\.example\.org\/story\/25\/03\/13\/1923\/new-tide-gauge\?utm_source=rss1\.0mainlinkanon&utm_medium=feed\n {3}2025-03-13T19:40:00Z · msmash\n {3}An anonymous reader writes: A group of café owners/,
  );
});

test('a real Hugo RSS 2.0 feed: channel, item, RFC 822 date, escaped-HTML description reduced to text', async () => {
  const rendered = await render(
    HUGO,
    'application/rss+xml',
    'markdown',
    'https://alanorth.github.io/hugo-theme-tufte-css/index.xml',
  );
  assert.equal(rendered.kind, 'feed');
  assert.equal(rendered.title, 'Hugo Tufte CSS');
  assert.equal(rendered.language, 'en-us');
  const { text } = rendered;
  assert.match(
    text,
    /^# Hugo Tufte CSS\n\nRecent content on Hugo Tufte CSS\n\nhttps:\/\/alanorth\.github\.io\/hugo-theme-tufte-css\/index\.xml\n\n## Getting Started with Hugo\n\n- Link: https:\/\/alanorth\.github\.io\/hugo-theme-tufte-css\/2014\/04\/getting-started-with-hugo\/\n- Date: 2014-04-02T00:00:00Z\n\nStep 1\. Install Hugo Goto hugo releases and download the appropriate version/,
  );
  // Hugo escapes the post's HTML (&lt;p&gt;, &#34;): it comes out as text, links and code included.
  assert.doesNotMatch(text, /&lt;|&amp;|&#34;|<p>|<code>|href=/);
  assert.match(text, /Open your browser to http:\/\/localhost:1313 Corresponding pseudo commands: git clone/);
  const summary = text.slice(text.indexOf('Step 1.'));
  assert.ok(summary.length <= FEED_SUMMARY_MAX_CHARS + 1, `${summary.length} characters`);
  assert.match(summary, /…$/);
  assert.deepEqual(
    rendered.outline?.map((entry) => entry.title),
    ['Hugo Tufte CSS', 'Getting Started with Hugo'],
  );
});

test('a real jekyll-feed Atom feed: CDATA summaries, empty authors, dates with offsets in UTC', async () => {
  const rendered = await render(
    JEKYLL,
    'application/atom+xml',
    'text',
    'https://paolapesantezcabrera.github.io/al-folio/feed.xml',
  );
  assert.equal(rendered.kind, 'feed');
  assert.equal(rendered.title, 'blank');
  assert.equal(rendered.language, 'en');
  assert.equal(
    rendered.text,
    [
      'blank',
      'A simple, whitespace theme for academics. Based on [*folio](https://github.com/bogoli/-folio) design.',
      'https://paolapesantezcabrera.github.io/al-folio/',
      '',
      '1. a post with giscus comments',
      '   https://paolapesantezcabrera.github.io/al-folio/blog/2022/giscus-comments/',
      '   2022-12-10T15:59:00Z',
      '   an example of a blog post with giscus comments',
      '',
      '2. Displaying External Posts on Your al-folio Blog',
      '   https://paolapesantezcabrera.github.io/al-folio/blog/2022/displaying-external-posts-on-your-al-folio-blog/',
      '   2022-04-23T23:20:09Z',
      '',
      '3. a post with redirect',
      '   https://paolapesantezcabrera.github.io/al-folio/blog/2022/redirect/',
      '   2022-02-01T17:39:00Z',
      '   you can also redirect to assets like pdf',
    ].join('\n'),
  );
  const markdown = await render(JEKYLL, 'application/atom+xml');
  assert.equal(markdown.outline?.length, 4, 'the feed title and one heading per entry');
});

test('feeds are recognised by their bytes under other labels, and only when they start like one', async () => {
  const asHtml = await render(WORDPRESS, 'text/html; charset=UTF-8');
  assert.equal(asHtml.kind, 'feed');
  assert.equal(asHtml.contentType, 'application/rss+xml');
  const unlabelled = await render(RELEASES, 'application/octet-stream');
  assert.equal(unlabelled.kind, 'feed');
  assert.equal(unlabelled.contentType, 'application/atom+xml');
  const asPlain = await render(RSS1, 'text/plain');
  assert.equal(asPlain.kind, 'feed');
  // An HTML page that merely mentions <rss> stays HTML.
  const page = await render(
    `<!doctype html><html><head><title>Feeds</title></head><body><article><h1>About feeds</h1><p>${'The &lt;rss&gt; element is the root of an RSS document. '.repeat(20)}</p></article></body></html>`,
    'text/html',
  );
  assert.equal(page.kind, 'html');
});

test('other XML is shown as text, re-indented when it came minified', async () => {
  const sitemap =
    '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.com/</loc><lastmod>2025-03-01</lastmod></url><url><loc>https://example.com/about</loc></url></urlset>';
  const rendered = await render(sitemap.repeat(1), 'application/xml');
  assert.equal(rendered.kind, 'xml');
  assert.equal(rendered.extractor, 'xml');
  assert.equal(
    rendered.text,
    [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
      '  <url>',
      '    <loc>https://example.com/</loc>',
      '    <lastmod>2025-03-01</lastmod>',
      '  </url>',
      '  <url>',
      '    <loc>https://example.com/about</loc>',
      '  </url>',
      '</urlset>',
    ].join('\n'),
  );
  const laidOut = '<?xml version="1.0"?>\n<config>\n  <name>periscope</name>\n</config>\n';
  assert.equal((await render(laidOut, 'text/xml')).text, laidOut.trim());
  assert.equal((await render(laidOut, 'application/octet-stream')).kind, 'xml');
});

test('broken XML: a feed cut short keeps the entries read and says so; one with nothing to read is shown as text', async () => {
  const source = WORDPRESS.toString('utf8');
  const cut = source.slice(0, source.indexOf('<item>', source.indexOf('<item>') + 1) + 200);
  const rendered = await render(cut, 'application/rss+xml');
  assert.equal(rendered.kind, 'feed');
  assert.match(rendered.text, /## Why the spring tides came early this year/);
  assert.match(rendered.text, /The feed ends early or is broken/);
  assert.doesNotMatch((await render(WORDPRESS, 'application/rss+xml')).text, /ends early/);

  const hopeless = await render(
    '<?xml version="1.0"?><rss><channel><title>Half a feed</ti',
    'application/rss+xml',
  );
  assert.equal(hopeless.kind, 'xml');
  assert.match(hopeless.text, /Half a feed/);
  for (const garbage of ['<<<>>>', '<?xml', '<rss', '<rss version="2.0"><channel><item><title>x</title>']) {
    const result = await render(garbage, 'application/rss+xml');
    assert.ok(
      result.text.length <= garbage.length * 2 + 200,
      `bounded output for ${JSON.stringify(garbage)}`,
    );
  }
});

test('summaries are bounded per entry and cut at a word', async () => {
  const long = 'Tide '.repeat(1000);
  const xml = `<rss><channel><title>T</title><item><title>Long</title><description>${long}</description></item></channel></rss>`;
  const summary = (await parseFeed(xml, 'https://example.com/'))?.entries[0]?.summary ?? '';
  assert.ok(summary.length <= FEED_SUMMARY_MAX_CHARS + 1, String(summary.length));
  assert.match(summary, /Tide…$/);
});

test('links that are not http(s) are dropped; entity-only titles are decoded; invisible characters go', async () => {
  const xml = `<rss><channel><title>Caf&amp;eacute; \u200b\u{e0049}\u{e0047}News</title>
    <item><title>One</title><link>javascript:alert(1)</link><guid>https://example.com/one</guid></item>
    <item><title>Two</title><link>data:text/html,hi</link></item></channel></rss>`;
  const feed = await parseFeed(xml, 'https://example.com/feed');
  assert.equal(feed?.title, 'Café \u200b\u{e0049}\u{e0047}News');
  assert.equal(feed?.entries[0]?.link, 'https://example.com/one');
  assert.equal(feed?.entries[1]?.link, undefined);
  const rendered = await renderXml(xml, { url: 'https://example.com/feed', mode: 'text' });
  assert.match(rendered.text, /^Café News\n/);
  // The title the `Title:` line and data.title show is cleaned as the text is.
  assert.equal(rendered.title, 'Café News');
  const invisible = await renderXml(
    '<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en\u200b"><title>\u200b\u{e0041}</title><entry><title>x</title></entry></feed>',
    { url: 'https://example.com/feed', mode: 'text' },
  );
  assert.equal(invisible.title, undefined);
  assert.equal(invisible.language, 'en');
});

test('feed dates become ISO 8601 when they are in a usual form, and stay as written otherwise', () => {
  assert.equal(readDate('Fri, 14 Mar 2025 09:12:41 +0000'), '2025-03-14T09:12:41Z');
  assert.equal(readDate('Mon, 3 Mar 2025 17:30:00 EST'), '2025-03-03T22:30:00Z');
  assert.equal(readDate('14 Mar 2025 09:12 GMT'), '2025-03-14T09:12:00Z');
  assert.equal(readDate('2025-02-27T09:41:05+01:00'), '2025-02-27T08:41:05Z');
  assert.equal(readDate('2025-02-27T09:41:05.250Z'), '2025-02-27T09:41:05.250Z');
  assert.equal(readDate('2025-02-27'), '2025-02-27');
  assert.equal(readDate('  the day before yesterday '), 'the day before yesterday');
  assert.equal(readDate(''), undefined);
});

test('an archive feed with thousands of entries shows the first FEED_MAX_ENTRIES and says how many there are', async () => {
  const items = Array.from(
    { length: FEED_MAX_ENTRIES + 50 },
    (_, index) =>
      `<item><title>Entry ${index}</title><link>https://example.com/${index}</link><description>&lt;p&gt;Text ${index}&lt;/p&gt;</description></item>`,
  ).join('');
  const { text } = await renderXml(
    `<rss version="2.0"><channel><title>Archive</title>${items}</channel></rss>`,
    {
      url: 'https://example.com/feed',
      mode: 'text',
    },
  );
  assert.match(text, new RegExp(`\\n${FEED_MAX_ENTRIES}\\. Entry ${FEED_MAX_ENTRIES - 1}\\n`));
  assert.doesNotMatch(text, new RegExp(`Entry ${FEED_MAX_ENTRIES}\\b`));
  assert.match(
    text,
    new RegExp(`The feed has ${FEED_MAX_ENTRIES + 50} entries; the first ${FEED_MAX_ENTRIES} are shown`),
  );
});
