// One fixture per site family: a small page written in the shape of that site's real markup (never copied
// from a real page). Each test checks that the site extractor claims the page, keeps the main text and
// drops the site's furniture, and, where the generic extractor alone did worse, says how.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { extractHtml } from '../html-extract.ts';
import { SITE_EXTRACTORS } from './extract-content.ts';

const FIXTURES = new URL('./__fixtures__/', import.meta.url);
const SITE_IDS = SITE_EXTRACTORS.map((extractor) => extractor.id);

function extractPage(html: string, url: string, options: { genericOnly?: boolean } = {}) {
  return extractHtml(html, {
    url,
    mode: 'markdown',
    explain: true,
    skipSteps: options.genericOnly ? new Set(SITE_IDS) : undefined,
  });
}

function extract(name: string, url: string, options: { genericOnly?: boolean } = {}) {
  return extractPage(readFileSync(new URL(name, FIXTURES), 'utf8'), url, options);
}

function assertHas(text: string, snippets: string[]): void {
  for (const snippet of snippets) assert.ok(text.includes(snippet), `missing: ${snippet}\n---\n${text}`);
}

function assertLacks(text: string, snippets: string[]): void {
  for (const snippet of snippets) assert.ok(!text.includes(snippet), `kept: ${snippet}\n---\n${text}`);
}

const WIKI_URL = 'https://en.wikipedia.org/wiki/Lindqvist_Canal';

test('mediawiki: the parsed article under its heading; edit links, boxes, navbox and contents out', () => {
  const { text, extractor } = extract('site--mediawiki-article.html', WIKI_URL);
  assert.equal(extractor, 'mediawiki');
  assert.ok(text.startsWith('# Lindqvist Canal\n'), text);
  assertHas(text, [
    'is a barge canal in southern Sweden',
    '## History',
    'insisted on stone-lined locks',
    'Today the towpath is a cycle route',
    // The infobox stays, as a table; the references list and the markers pointing into it stay.
    '| Locks | 9 |',
    '## References',
    'Berglund, Karin (1998)',
    '[\\[1\\]]',
  ]);
  assertLacks(text, [
    '[edit]',
    'needs additional citations',
    'Canals of Sweden',
    'Dalsland Canal',
    'Contents',
    '58°24′N',
    'From Wikipedia, the free encyclopedia',
    '12 languages',
    'Jump to content',
    'Canals in Sweden',
    'Retrieved from',
    'This page was last edited',
  ]);
});

test('mediawiki: the generic extractor alone keeps edit links, the maintenance box and the page chrome', () => {
  const { text, extractor } = extract('site--mediawiki-article.html', WIKI_URL, { genericOnly: true });
  assert.equal(extractor, 'generic');
  assertHas(text, ['[edit]', 'needs additional citations', 'From Wikipedia, the free encyclopedia']);
});

test('mediawiki: a page saying MediaWiki without its content container is left to the generic extractor', () => {
  const html = `<html><head><meta name="generator" content="MediaWiki 1.39.3"><title>Special page</title></head>
    <body class="mediawiki"><div id="content"><h1>Recent changes</h1>${'<p>Someone changed an article about canals and locks in the morning.</p>'.repeat(8)}</div></body></html>`;
  const { text, extractor } = extractPage(html, 'https://wiki.example.org/wiki/Special:RecentChanges');
  assert.equal(extractor, 'generic');
  assertHas(text, ['Someone changed an article']);
});

const QUESTION_URL =
  'https://stackoverflow.com/questions/7712345/why-does-my-generator-stop-after-the-first-loop';

test('stack-exchange: question title and body, then each answer under a heading with score and acceptance', () => {
  const { text, extractor } = extract('site--stack-exchange-question.html', QUESTION_URL);
  assert.equal(extractor, 'stack-exchange');
  assert.ok(text.startsWith('# Why does my generator stop after the first loop?\n'), text);
  assertHas(text, [
    'I wrote a small generator that yields the lines of a file',
    'yield from handle',
    '## Accepted answer (score 57) by Jonas W',
    'A generator is an *iterator*',
    'rows = list(lines("data.txt"))',
    '## Answer (score 6) by Priya N',
    '`itertools.tee` splits one iterator into two',
  ]);
  assert.ok(text.indexOf('Accepted answer') < text.indexOf('Answer (score 6)'));
  assertLacks(text, [
    'Up vote',
    'Show activity on this post',
    'Did you try calling list()',
    'Thanks, that was exactly it',
    'Add a comment',
    'Improve this answer',
    'answered May 14',
    'Sorted by',
    'Hot Network Questions',
    'How do I reset a generator',
    'Not the answer you',
    'Ask Question',
  ]);
});

test('stack-exchange: the generic extractor alone leaves bare vote counts and signatures between the posts', () => {
  const { text, extractor } = extract('site--stack-exchange-question.html', QUESTION_URL, {
    genericOnly: true,
  });
  assert.equal(extractor, 'generic');
  assertHas(text, ['answered May 14, 2019', 'Not the answer you']);
  assertLacks(text, ['Accepted answer (score 57)']);
});

test('github: a repository page gives its README only; anchors and copy buttons out', () => {
  const { text, extractor } = extract('site--github-readme.html', 'https://github.com/tessa-lind/quillpad');
  assert.equal(extractor, 'github');
  assert.ok(text.startsWith('# quillpad\n'), text);
  assertHas(text, [
    'A tiny outliner for the terminal. Items nest',
    'cargo install quillpad --locked',
    '## Keys',
  ]);
  assertLacks(text, [
    'Copy',
    'Fold nested items with Tab',
    '214 commits',
    'Languages',
    'Sign in',
    '© 2023 GitHub',
  ]);
});

test('github: an issue page gives the title and every comment body, each under its author', () => {
  const url = 'https://github.com/tessa-lind/quillpad/issues/58';
  const { text, extractor } = extract('site--github-issue.html', url);
  assert.equal(extractor, 'github');
  assert.ok(text.startsWith('# Folding loses the cursor position on wrapped lines\n'), text);
  assertHas(text, [
    '### okafor-e commented',
    'the cursor jumps to the first item of the file',
    '### tessa-lind commented',
    'A fix is in the `fold-rows` branch',
  ]);
  assertLacks(text, ['added the', 'Assignees', 'No milestone', '👍', 'Show options', 'Terms']);
  // The generic extractor alone chose the header and lost both comments.
  const generic = extract('site--github-issue.html', url, { genericOnly: true }).text;
  assertLacks(generic, ['the cursor jumps to the first item of the file']);
});

test('docs (Sphinx, Read the Docs theme): the article body; permalinks, breadcrumbs and pager out', () => {
  const url = 'https://tidewater.readthedocs.io/en/latest/guide/retries.html';
  const { text, extractor } = extract('site--sphinx-rtd.html', url);
  assert.equal(extractor, 'sphinx');
  assert.ok(text.startsWith('# Retry policies\n'), text);
  assertHas(text, [
    '## Backoff',
    'spreads retries of many clients',
    'RetryPolicy(attempts=5',
    'always wins over',
  ]);
  assertLacks(text, ['¶', 'Edit on GitHub', 'Previous', 'Next', 'Search docs', 'Installation', 'Built with']);
  // The generic extractor alone kept the "¶" permalinks in every heading.
  assertHas(extract('site--sphinx-rtd.html', url, { genericOnly: true }).text, ['# Retry policies[¶]']);
});

test('docs (MkDocs Material): the article; edit button, permalinks and last-update line out', () => {
  const url = 'https://fernlog.dev/configuration/';
  const { text, extractor } = extract('site--mkdocs-material.html', url);
  assert.equal(extractor, 'mkdocs');
  assert.ok(text.startsWith('# Configuration\n'), text);
  assertHas(text, ['## Levels', 'a quiet sink costs almost nothing', 'level = "info"', '## Rotation']);
  assertLacks(text, [
    'Edit this page',
    '¶',
    'Last update',
    'Previous',
    'Table of contents',
    'Material for MkDocs',
  ]);
  const generic = extract('site--mkdocs-material.html', url, { genericOnly: true }).text;
  assertHas(generic, ['[Edit this page]', '# Configuration[¶]']);
});

test('docs (Docusaurus): the doc body; hash links, edit link, last-updated line and pager out', () => {
  const { text, extractor } = extract('site--docusaurus.html', 'https://orrery.dev/docs/guides/caching');
  assert.equal(extractor, 'docusaurus');
  assert.ok(text.startsWith('# Caching\n'), text);
  assertHas(text, ['two-level cache', '## Sizing the cache', 'raise `cache.memoryMb`', 'not safe to share']);
  assertLacks(text, [
    'Edit this page',
    'Last updated',
    'Direct link',
    'Previous',
    'Introduction',
    'On this page',
  ]);
});

test('docs (MDN): the article; copy buttons and the "last modified" box out', () => {
  const url =
    'https://developer.mozilla.org/en-US/docs/Web/JavaScript/Reference/Global_Objects/Array/findLast';
  const { text, extractor } = extract('site--mdn.html', url);
  assert.equal(extractor, 'mdn');
  assert.ok(text.startsWith('# Array.prototype.findLast()\n'), text);
  assertHas(text, [
    'iterates the array in reverse order',
    'findLast(callbackFn, thisArg)',
    'near the end of the array',
  ]);
  assertLacks(text, [
    'Help improve MDN',
    'last modified',
    'Copy to Clipboard',
    'In this article',
    'Instance methods',
  ]);
});

test('docs: a generator tag with next to nothing in the expected container leaves the page to the generic extractor', () => {
  const html = `<html><head><meta name="generator" content="Docusaurus v3.1.0"><title>Blog</title></head><body>
    <div class="main-wrapper"><article><div class="theme-doc-markdown markdown"><p>Moved.</p></div></article>
    <section class="blog-list">${'<p>Release notes: the renderer now caches tiles per style and zoom level.</p>'.repeat(6)}</section></div></body></html>`;
  const { text, extractor } = extractPage(html, 'https://orrery.dev/blog');
  assert.notEqual(extractor, 'docusaurus');
  assertHas(text, ['Release notes: the renderer now caches tiles']);
});

test('site extractors leave pages of no known family to the generic extractor', () => {
  for (const name of ['recall--short-post-without-furniture.html', 'furniture--login-dialog.html']) {
    const { extractor } = extract(name, 'https://www.example.org/news/page');
    assert.ok(extractor === 'generic' || extractor === 'body', `${name}: ${extractor}`);
  }
});

const FORUM_URL = 'https://forum.example.org/topic/1-thread/';

test('forum (Invision): each post as author, date and body; signatures, profile panes and the sidebar out', () => {
  const { text, extractor } = extract('site--invision-topic.html', FORUM_URL);
  assert.equal(extractor, 'forum-invision');
  assert.ok(text.startsWith('# Spare fan header on the new case\n'), text);
  assert.ok(
    text.includes('Mirela\n\nPosted March 19, 2024\n\nThere is a small four-pin header on the bottom panel'),
    text,
  );
  assertHas(text, [
    'Tobiah\n\nPosted March 20, 2024\n\nIt is for the lighting controller',
    'a spare for a pump.',
  ]);
  assertLacks(text, ['Ryzen 7, 32 GB', 'Popular now', 'Powered by', '12 posts', 'Quote']);
});

test('forum (XenForo): posts found by markup, quotes kept without their fold-out link, user stats out', () => {
  const { text, extractor } = extract('site--xenforo-thread.html', FORUM_URL);
  assert.equal(extractor, 'forum-xenforo');
  assertHas(text, [
    'felixen\n\nJul 9, 2022\n\nI switched off message syncing today',
    '> felixen said:',
    'spikeymike\n\nJul 9, 2022\n\n',
    'Turning sync off alone keeps the copy.',
  ]);
  assertLacks(text, [
    'Click to expand',
    'macrumors newbie',
    'Joined',
    '273',
    'iPhone 13, MacBook Air',
    'people like this',
  ]);
  // The generic extractor alone keeps the profile pane's stats and the quote's fold-out link.
  const generic = extractPage(
    readFileSync(new URL('site--xenforo-thread.html', FIXTURES), 'utf8'),
    FORUM_URL,
    {
      genericOnly: true,
    },
  ).text;
  assertHas(generic, ['Click to expand', 'Joined']);
});

test('forum (Discourse): the crawler view, by its generator tag, with names and dates; likes and category out', () => {
  const { text, extractor } = extract('site--discourse-topic.html', FORUM_URL);
  assert.equal(extractor, 'forum-discourse');
  assert.ok(text.startsWith('# Containers cannot resolve each other\n'), text);
  assertHas(text, [
    'amondale (Amondale)\n\nNovember 8, 2024, 7:33pm\n\nTwo containers point at the same resolver',
    'rimelek (Ákos)\n\nNovember 8, 2024, 8:42pm\n\nName resolution between containers',
  ]);
  assertLacks(text, ['2 Likes', 'Networking', 'FAQ']);
});

test('forum: a page of no known engine is left to the others, whatever its host', () => {
  const html = readFileSync(new URL('site--xenforo-thread.html', FIXTURES), 'utf8').replace(
    '<html id="XF"',
    '<html',
  );
  const { extractor } = extractPage(html, 'https://forums.macrumors.com/threads/1/');
  assert.equal(extractor, 'generic');
});

test('forum (vBulletin 4): each post as author, date and body (its blockquote written as plain text); user stats and reply links out', () => {
  const { text, extractor } = extract('site--vbulletin-thread.html', FORUM_URL);
  assert.equal(extractor, 'forum-vbulletin');
  assertHas(text, [
    'HOSTLAR\n\n11-29-2024, 09:03 AM\n\nWe run a small online shop on shared hosting',
    'serverfox\n\n11-29-2024, 10:41 AM\n\nLower the time to live of your DNS records',
  ]);
  assertLacks(text, ['Junior Guru', 'Join Date', 'Reply With Quote', 'Contact Us', '> We run']);
});
