import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseDocument } from './parse-document.ts';
import { readMetadata } from './read-metadata.ts';

function metadataOf(head: string, body = '<p>Text.</p>', htmlAttributes = '') {
  return readMetadata(
    parseDocument(`<!doctype html><html ${htmlAttributes}><head>${head}</head><body>${body}</body></html>`),
  );
}

const jsonLd = (value: unknown) => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;

describe('JSON-LD', () => {
  test('a schema.org article gives title, every author, date and publisher before any meta tag', () => {
    const metadata = metadataOf(
      `<title>Tides of the North Sea | Coast Weekly</title>
       <meta property="og:title" content="OpenGraph title">
       <meta name="author" content="Meta Author">
       <meta property="article:published_time" content="2020-01-01">
       <meta property="og:site_name" content="OpenGraph site">
       ${jsonLd({
         '@context': 'https://schema.org',
         '@type': 'NewsArticle',
         headline: 'Tides of the North Sea',
         author: [{ '@type': 'Person', name: 'Ada Lovelace' }, { name: 'Mary Somerville' }],
         datePublished: '2024-12-06T22:00:40.000Z',
         publisher: { '@type': 'Organization', name: 'Coast Weekly' },
       })}`,
    );
    assert.deepEqual(metadata, {
      title: 'Tides of the North Sea',
      byline: 'Ada Lovelace, Mary Somerville',
      publishedAt: '2024-12-06T22:00:40.000Z',
      language: undefined,
      siteName: 'Coast Weekly',
    });
  });

  test('the article is found in @graph, under a @vocab context and with a list of types', () => {
    const metadata = metadataOf(
      jsonLd({
        '@context': { '@vocab': 'http://schema.org/' },
        '@graph': [
          { '@type': 'WebSite', name: 'Coast Weekly' },
          { '@type': ['BlogPosting', 'CreativeWork'], headline: 'Low water', datePublished: '2023-03-01' },
        ],
      }),
    );
    assert.equal(metadata.title, 'Low water');
    assert.equal(metadata.publishedAt, '2023-03-01');
  });

  test('of a differing name and headline, the one matching <title> wins', () => {
    const page = (title: string) =>
      metadataOf(
        `<title>${title}</title>${jsonLd({
          '@context': 'https://schema.org',
          '@type': 'Article',
          name: 'Coast Weekly',
          headline: 'The lighthouse keepers of Heligoland',
        })}`,
      ).title;
    assert.equal(
      page('The lighthouse keepers of Heligoland - Coast Weekly'),
      'The lighthouse keepers of Heligoland',
    );
    assert.equal(page('Something else entirely'), 'Coast Weekly');
  });

  test('items that are not schema.org articles, and JSON that does not parse, do not count as one', () => {
    const metadata = metadataOf(
      `<title>The page title here</title>
       <script type="application/ld+json">{ "@context": "https://schema.org", "@type": </script>
       ${jsonLd({ '@context': 'https://example.com/vocab', '@type': 'Article', headline: 'Not schema.org' })}
       ${jsonLd({ '@context': 'https://schema.org', '@type': 'WebPage', name: 'A web page' })}`,
    );
    assert.equal(metadata.title, 'The page title here');
  });

  test('another item fills what nothing else gives: a recipe’s author and date', () => {
    const metadata = metadataOf(
      jsonLd({
        '@context': 'https://schema.org',
        '@type': 'Recipe',
        name: 'Plum cake',
        author: { '@type': 'Person', name: 'Grete Weiss' },
        datePublished: '2019-08-02',
      }),
    );
    assert.equal(metadata.byline, 'Grete Weiss');
    assert.equal(metadata.publishedAt, '2019-08-02');
  });
});

describe('meta tags', () => {
  test('Dublin Core comes before OpenGraph and Twitter; dotted names count as prefixed ones', () => {
    const metadata = metadataOf(
      `<meta name="twitter:title" content="Twitter title">
       <meta property="og:title" content="OpenGraph title">
       <meta name="DC.title" content="Dublin Core title">
       <meta name="author" content="Plain Author">
       <meta name="dc.creator" content="Dublin Core Creator">`,
    );
    assert.equal(metadata.title, 'Dublin Core title');
    assert.equal(metadata.byline, 'Dublin Core Creator');
  });

  test('a property attribute may list several keys', () => {
    const metadata = metadataOf(
      `<title>Title element</title><meta property="og:title dc:title" content="Listed title">
       <meta property="x dc:creator" content="Listed Creator">`,
    );
    assert.equal(metadata.title, 'Listed title');
    assert.equal(metadata.byline, 'Listed Creator');
  });

  test('an article:author that is a URL is no byline; Parse.ly keys are read', () => {
    const metadata = metadataOf(
      `<meta property="article:author" content="https://www.facebook.com/someone">
       <meta name="parsely-title" content="Parsely title">
       <meta name="parsely-pub-date" content="2024-04-20T04:20:00.000Z">`,
      '<p>Text without a byline.</p>',
    );
    assert.equal(metadata.byline, undefined);
    assert.equal(metadata.title, 'Parsely title');
    assert.equal(metadata.publishedAt, '2024-04-20T04:20:00.000Z');
  });

  test('entities escaped twice are decoded once more; empty content is skipped', () => {
    const metadata = metadataOf(
      `<meta property="og:title" content="">
       <meta property="og:title" content="Fish &amp;amp; chips &amp;#8211; a history">
       <meta property="og:site_name" content="Coast &amp;quot;Weekly&amp;quot;">`,
    );
    assert.equal(metadata.title, 'Fish & chips – a history');
    assert.equal(metadata.siteName, 'Coast "Weekly"');
  });

  test('a plain date tag and content-language fill in when nothing else gives them', () => {
    const metadata = metadataOf(
      `<meta name="date" content="2015-04-08T12:46:00"><meta http-equiv="content-language" content="de">`,
    );
    assert.equal(metadata.publishedAt, '2015-04-08T12:46:00');
    assert.equal(metadata.language, 'de');
    const withLang = metadataOf('<meta http-equiv="content-language" content="de">', '<p>x</p>', 'lang="fr"');
    assert.equal(withLang.language, 'fr');
  });
});

describe('the <title>', () => {
  const titleOf = (title: string, body?: string) => metadataOf(`<title>${title}</title>`, body).title;

  test('the site name after the last separator is cut off, en and em dashes included', () => {
    assert.equal(titleOf('Lorem ipsum dolor sit amet – My website'), 'Lorem ipsum dolor sit amet');
    assert.equal(
      titleOf('How tides work on the coast | Science | Coast Weekly'),
      'How tides work on the coast | Science',
    );
    assert.equal(titleOf('Coast Weekly » How tides work on the coast'), 'How tides work on the coast');
  });

  test('a cut that leaves four words or fewer keeps the whole title', () => {
    assert.equal(titleOf('Tides - Coast Weekly'), 'Tides - Coast Weekly');
  });

  test('after a colon, unless a heading repeats the whole title', () => {
    assert.equal(titleOf('Coast Weekly: How the tides are made'), 'How the tides are made');
    assert.equal(
      titleOf('Tides: how they are made', '<h1>Tides: how they are made</h1>'),
      'Tides: how they are made',
    );
  });

  test('a very short title gives way to the only <h1>', () => {
    assert.equal(
      titleOf('Home', '<h1>The lighthouse keepers of Heligoland</h1>'),
      'The lighthouse keepers of Heligoland',
    );
  });
});

describe('the byline in the page', () => {
  const bylineOf = (body: string) => metadataOf('<title>A page</title>', body).byline;

  test('the first element marked as an author, or its itemprop="name" part', () => {
    assert.equal(bylineOf('<p class="byline">By Ada Lovelace</p><p>Text</p>'), 'By Ada Lovelace');
    assert.equal(bylineOf('<p>Text <a rel="author" href="/ada">Ada Lovelace</a></p>'), 'Ada Lovelace');
    assert.equal(
      bylineOf('<div itemprop="author">Written by <span itemprop="name">Ada Lovelace</span></div>'),
      'Ada Lovelace',
    );
  });

  test('hidden elements, page furniture and overlong text are passed over', () => {
    assert.equal(
      bylineOf(
        `<div class="sidebar"><span class="author">Sidebar Author</span></div>
         <section class="comments"><span class="comment-author">Commenter</span></section>
         <nav role="navigation"><a rel="author">Nav Author</a></nav>
         <span class="author" style="display: none">Hidden Author</span>
         <span class="author" hidden>Hidden Too</span>
         <div class="author-box">${'A very long biography of the author. '.repeat(5)}</div>
         <script>var author = "<span class=author>Script</span>";</script>
         <p class="byline">By Ada Lovelace</p>`,
      ),
      'By Ada Lovelace',
    );
  });

  test('a header inside the article, or wrapping it, is the article’s own and keeps its byline', () => {
    assert.equal(
      bylineOf(
        '<header class="site-header"><a rel="author">Site Owner</a></header><article><header class="entry-header"><a rel="author">Ada Lovelace</a></header><p>Text</p></article>',
      ),
      'Ada Lovelace',
    );
    assert.equal(
      bylineOf(
        '<div class="row site_header"><article><span class="author_byline">By Ada</span></article></div>',
      ),
      'By Ada',
    );
  });

  test('meta tags come first; no marked element means no byline', () => {
    assert.equal(
      metadataOf('<meta name="author" content="Meta Author">', '<p class="byline">By Someone</p>').byline,
      'Meta Author',
    );
    assert.equal(bylineOf('<p>Just text.</p>'), undefined);
  });
});
