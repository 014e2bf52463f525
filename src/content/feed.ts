import { cleanDocument } from './html/clean-document.ts';
import { type DomElement, ELEMENT_NODE } from './html/dom.ts';
import { flatText } from './html/flat-text.ts';
import { parseDocument } from './html/parse-document.ts';
import { stripInvisible } from './invisible-unicode.ts';
import type { ExtractMode } from './types.ts';
import { formatXml } from './xml-format.ts';

/** Characters of summary kept per entry; the rest is cut at a word and marked with `…`. */
export const FEED_SUMMARY_MAX_CHARS = 600;
/** Characters kept of a title, author or feed description. */
export const FEED_FIELD_MAX_CHARS = 300;
/** HTML read per summary before it is reduced to text: bounds the work a huge entry can cause. */
const SUMMARY_SOURCE_MAX_CHARS = 8000;
/** Entries shown; an archive feed with thousands is cut here (and says so), which bounds the work too. */
export const FEED_MAX_ENTRIES = 200;
const INCOMPLETE_NOTE = '(The feed ends early or is broken: these are the entries that could be read.)';

export interface Feed {
  format: 'rss' | 'atom' | 'rdf';
  /** False when the document does not end with the root's closing tag (cut off or broken). */
  complete: boolean;
  title?: string | undefined;
  description?: string | undefined;
  link?: string | undefined;
  language?: string | undefined;
  entries: FeedEntry[];
  /** Entries in the document, when more than `FEED_MAX_ENTRIES` (the rest are not read). */
  totalEntries: number;
}

export interface FeedEntry {
  title?: string | undefined;
  /** Absolute http(s) URL. */
  link?: string | undefined;
  /** ISO 8601 when the feed's date could be read, else as written. */
  date?: string | undefined;
  author?: string | undefined;
  /** Plain text, at most `FEED_SUMMARY_MAX_CHARS`. */
  summary?: string | undefined;
  /** Enclosure (podcast episode, attachment) URL. */
  media?: string | undefined;
}

export interface RenderedXml {
  kind: 'feed' | 'xml';
  extractor: 'feed' | 'xml';
  title?: string | undefined;
  language?: string | undefined;
  text: string;
}

/**
 * An XML body → readable text. RSS 2.0, RSS 1.0 (RDF) and Atom become a list of entries (title, link,
 * date, summary), as Markdown headings and lists or as plain text; any other XML, or XML too broken to
 * find a feed in, is shown as (re-indented) source.
 */
export async function renderXml(
  source: string,
  options: { url: string; mode: ExtractMode },
): Promise<RenderedXml> {
  const text = source.replace(/^\ufeff/, '');
  const feed = await parseFeed(text, options.url);
  // Broken XML with no entry to show is shown as the text it is, not as an empty feed.
  if (!feed || (!feed.complete && feed.entries.length === 0)) {
    return { kind: 'xml', extractor: 'xml', text: stripInvisible(formatXml(text)) };
  }
  const notes = [
    feed.totalEntries > feed.entries.length
      ? `(The feed has ${feed.totalEntries} entries; the first ${feed.entries.length} are shown.)`
      : undefined,
    feed.complete ? undefined : INCOMPLETE_NOTE,
  ].filter(Boolean);
  const written = [options.mode === 'markdown' ? feedMarkdown(feed) : feedText(feed), ...notes].join('\n\n');
  return {
    kind: 'feed',
    extractor: 'feed',
    // The title reaches the `Title:` line and `data.title`: the same hygiene as the entries.
    title: definedText(feed.title),
    language: definedText(feed.language),
    text: stripInvisible(written),
  };
}

/** Page-written text without its invisible characters; `undefined` when nothing visible is left. */
function definedText(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  return stripInvisible(text).trim() || undefined;
}

/** The feed in an XML document, or `undefined` when its root is not `<rss>`, `<feed>` or `<rdf:RDF>`. */
export async function parseFeed(xml: string, url: string): Promise<Feed | undefined> {
  // linkedom's XML parser, loaded with the first feed so that importing Periscope stays light.
  const { DOMParser } = await import('linkedom');
  let root: XmlElement | undefined;
  try {
    root = (new DOMParser().parseFromString(xml, 'text/xml') as unknown as { documentElement?: XmlElement })
      .documentElement;
  } catch {
    return undefined;
  }
  if (!root) return undefined;
  const name = root.tagName.toLowerCase();
  const base = resolveBase(root, url);
  const complete = endsWithClosingTag(xml, root.tagName);
  if (name === 'rss') return readRss(root, base, 'rss', complete);
  if (name === 'rdf:rdf' && (child(root, 'channel') || child(root, 'item'))) {
    return readRss(root, base, 'rdf', complete);
  }
  const atomPrefix = /^(?:([\w.-]+):)?feed$/.exec(name);
  if (atomPrefix) return readAtom(root, base, atomPrefix[1] ? `${atomPrefix[1]}:` : '', complete);
  return undefined;
}

interface XmlElement extends DomElement {
  innerHTML?: string;
}

/** `</rss>` at the end, followed by nothing but whitespace, comments (caching plugins add some) or PIs. */
function endsWithClosingTag(xml: string, tagName: string): boolean {
  const at = xml.lastIndexOf(`</${tagName}`);
  if (at < 0 || xml.length - at > 4096) return false;
  return /^\s*>(?:\s|<!--[\s\S]*?-->|<\?[\s\S]*?\?>)*$/.test(xml.slice(at + tagName.length + 2));
}

function readRss(root: XmlElement, base: string, format: 'rss' | 'rdf', complete: boolean): Feed {
  const channel = child(root, 'channel') ?? root;
  const channelBase = resolveBase(channel, base);
  let items = children(channel, 'item');
  if (items.length === 0) items = children(root, 'item');
  const totalEntries = items.length;
  return {
    format,
    complete,
    title: field(child(channel, 'title'), 'auto'),
    description: field(child(channel, 'description', 'subtitle'), 'auto'),
    link: absoluteLink(textOf(child(channel, 'link')), channelBase),
    language: textOf(child(channel, 'language', 'dc:language')) || undefined,
    entries: items
      .slice(0, FEED_MAX_ENTRIES)
      .map((item) => readRssItem(item, resolveBase(item, channelBase))),
    totalEntries,
  };
}

function readRssItem(item: XmlElement, base: string): FeedEntry {
  const guid = child(item, 'guid');
  const permalink = guid && guid.getAttribute('isPermaLink') !== 'false' ? textOf(guid) : '';
  const link =
    absoluteLink(textOf(child(item, 'link')), base) ??
    absoluteLink(permalink, base) ??
    absoluteLink(child(item, 'atom:link')?.getAttribute('href') ?? '', base);
  return {
    title: field(child(item, 'title'), 'auto'),
    link,
    date: readDate(textOf(child(item, 'pubdate', 'dc:date', 'a10:updated', 'atom:updated', 'updated'))),
    author: field(child(item, 'dc:creator', 'author', 'itunes:author'), 'text'),
    summary: summaryOf(child(item, 'description', 'content:encoded', 'itunes:summary')),
    media: absoluteLink(child(item, 'enclosure')?.getAttribute('url') ?? '', base),
  };
}

function readAtom(root: XmlElement, base: string, prefix: string, complete: boolean): Feed {
  const atom = (...names: string[]) => names.map((name) => `${prefix}${name}`);
  const feedAuthor = field(child(child(root, ...atom('author')), ...atom('name')), 'text');
  const entries = children(root, `${prefix}entry`);
  return {
    format: 'atom',
    complete,
    title: atomText(child(root, ...atom('title')), FEED_FIELD_MAX_CHARS),
    description: atomText(child(root, ...atom('subtitle', 'tagline')), FEED_FIELD_MAX_CHARS),
    link: alternateLink(children(root, `${prefix}link`), base),
    language: root.getAttribute('xml:lang') || undefined,
    totalEntries: entries.length,
    entries: entries.slice(0, FEED_MAX_ENTRIES).map((entry) => {
      const entryBase = resolveBase(entry, base);
      return {
        title: atomText(child(entry, ...atom('title')), FEED_FIELD_MAX_CHARS),
        link: alternateLink(children(entry, `${prefix}link`), entryBase),
        date: readDate(textOf(child(entry, ...atom('published', 'updated', 'issued', 'modified')))),
        author: field(child(child(entry, ...atom('author')), ...atom('name')), 'text') ?? feedAuthor,
        summary: atomText(child(entry, ...atom('summary', 'content')), FEED_SUMMARY_MAX_CHARS),
      };
    }),
  };
}

/** Atom's `rel="alternate"` link (the page of the entry), else the first link with no `rel`. */
function alternateLink(links: XmlElement[], base: string): string | undefined {
  const alternate =
    links.find(
      (link) => link.getAttribute('rel') === 'alternate' && /html/.test(link.getAttribute('type') ?? 'html'),
    ) ?? links.find((link) => (link.getAttribute('rel') ?? 'alternate') === 'alternate');
  return absoluteLink(alternate?.getAttribute('href') ?? '', base);
}

/** An Atom text construct: `type="html"` and `type="xhtml"` are markup, anything else is text. */
function atomText(element: XmlElement | undefined, maxChars: number): string | undefined {
  if (!element || element.hasAttribute('src')) return undefined;
  const type = (element.getAttribute('type') ?? 'text').toLowerCase();
  if (type === 'xhtml') return bounded(htmlToText(element.innerHTML ?? element.textContent ?? ''), maxChars);
  return bounded(
    type === 'html' || type === 'text/html' ? htmlToText(textOf(element)) : plainText(textOf(element)),
    maxChars,
  );
}

/** RSS leaves it open whether a title holds markup: read it as HTML when it looks like some. */
function field(element: XmlElement | undefined, kind: 'auto' | 'text'): string | undefined {
  if (!element) return undefined;
  const raw = textOf(element);
  const looksLikeHtml = kind === 'auto' && /<\/?[a-z][^<>]{0,500}>/i.test(raw);
  return bounded(looksLikeHtml ? htmlToText(raw) : plainText(raw), FEED_FIELD_MAX_CHARS);
}

/** RSS summaries are HTML (escaped or in CDATA). */
function summaryOf(element: XmlElement | undefined): string | undefined {
  if (!element) return undefined;
  return bounded(htmlToText(textOf(element)), FEED_SUMMARY_MAX_CHARS);
}

/**
 * HTML from a feed (a summary, a title) → one line of text. The same cleaning as a page's (hidden
 * elements, scripts, comments: a feed can carry a prompt injection as well as a page can).
 */
function htmlToText(html: string): string {
  if (!/[<&]/.test(html)) return plainText(html);
  const source = html.length > SUMMARY_SOURCE_MAX_CHARS ? html.slice(0, SUMMARY_SOURCE_MAX_CHARS) : html;
  const document = parseDocument(source);
  cleanDocument(document);
  return plainText(flatText(document.body));
}

/** Collapse whitespace; named HTML entities the XML parser left alone (`&eacute;`) are decoded. */
function plainText(text: string): string {
  let result = text;
  if (/&(?:[a-z][a-z0-9]*|#\d+|#x[\da-f]+);/i.test(result)) {
    result = parseDocument(`<p>${result.replace(/</g, '&lt;')}</p>`).body.textContent || result;
  }
  return result.replace(/\s+/g, ' ').trim();
}

function bounded(text: string, maxChars: number): string | undefined {
  if (text === '') return undefined;
  if (text.length <= maxChars) return text;
  let cut = text.slice(0, maxChars);
  const space = cut.lastIndexOf(' ');
  if (space > maxChars * 0.6) cut = cut.slice(0, space);
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut.trimEnd()}…`;
}

const RFC_822 =
  /^(?:[a-z]{3},?\s+)?\d{1,2}\s+[a-z]{3,}\s+\d{2,4}(?:\s+\d{1,2}:\d{2}(?::\d{2})?)?(?:\s+(?:[+-]\d{4}|[a-z]{1,5}))?$/i;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/** A feed date as ISO 8601 (UTC) when it is one of the usual forms, else as written. */
export function readDate(raw: string): string | undefined {
  const text = raw.trim().replace(/\s+/g, ' ');
  if (text === '') return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return text;
  if (ISO_8601.test(text) || RFC_822.test(text)) {
    const time = Date.parse(text.replace(/^(\d{4}-\d{2}-\d{2}) /, '$1T').replace(/,(\d+)/, '.$1'));
    if (!Number.isNaN(time)) return new Date(time).toISOString().replace('.000Z', 'Z');
  }
  return text.slice(0, 80);
}

function absoluteLink(href: string, base: string): string | undefined {
  const trimmed = href.trim();
  if (trimmed === '') return undefined;
  try {
    const url = new URL(trimmed, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function resolveBase(element: XmlElement, base: string): string {
  const declared = element.getAttribute('xml:base');
  if (!declared) return base;
  try {
    return new URL(declared, base).href;
  } catch {
    return base;
  }
}

function children(element: XmlElement | undefined, name: string): XmlElement[] {
  if (!element) return [];
  const found: XmlElement[] = [];
  for (let node = element.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === ELEMENT_NODE && (node as XmlElement).tagName.toLowerCase() === name) {
      found.push(node as XmlElement);
    }
  }
  return found;
}

/** The first child with any of the names (lower-case, prefix included), trying the names in order. */
function child(element: XmlElement | undefined, ...names: string[]): XmlElement | undefined {
  for (const name of names) {
    const found =
      children(element, name).find(
        (candidate) =>
          textOf(candidate) !== '' || candidate.hasAttribute('href') || candidate.hasAttribute('url'),
      ) ?? children(element, name)[0];
    if (found) return found;
  }
  return undefined;
}

function textOf(element: XmlElement | undefined): string {
  return element?.textContent?.trim() ?? '';
}

// Writers.

function feedMarkdown(feed: Feed): string {
  const parts = [`# ${feed.title ?? 'Untitled feed'}`];
  if (feed.description) parts.push(feed.description);
  if (feed.link) parts.push(feed.link);
  if (feed.entries.length === 0) parts.push('(The feed has no entries.)');
  for (const entry of feed.entries) {
    parts.push(`## ${entry.title ?? '(untitled)'}`);
    const facts = [
      entry.link && `- Link: ${entry.link}`,
      entry.date && `- Date: ${entry.date}`,
      entry.author && `- Author: ${entry.author}`,
      entry.media && `- Media: ${entry.media}`,
    ].filter(Boolean);
    if (facts.length > 0) parts.push(facts.join('\n'));
    if (entry.summary) parts.push(entry.summary);
  }
  return parts.join('\n\n');
}

function feedText(feed: Feed): string {
  const head = [feed.title ?? 'Untitled feed', feed.description, feed.link].filter(Boolean).join('\n');
  const parts = [head];
  if (feed.entries.length === 0) parts.push('(The feed has no entries.)');
  feed.entries.forEach((entry, index) => {
    const byline = [entry.date, entry.author].filter(Boolean).join(' · ');
    const lines = [`${index + 1}. ${entry.title ?? '(untitled)'}`];
    for (const line of [entry.link, byline, entry.media, entry.summary]) if (line) lines.push(`   ${line}`);
    parts.push(lines.join('\n'));
  });
  return parts.join('\n\n');
}
