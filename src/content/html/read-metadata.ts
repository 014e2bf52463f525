import {
  type DomDocument,
  type DomElement,
  type DomNode,
  type DomText,
  ELEMENT_NODE,
  TEXT_NODE,
} from './dom.ts';
import { hiddenByStyle } from './hidden-element.ts';

export interface PageMetadata {
  title?: string | undefined;
  byline?: string | undefined;
  publishedAt?: string | undefined;
  language?: string | undefined;
  siteName?: string | undefined;
}

/**
 * Title, byline, publication date, language and site name, read before anything is removed.
 *
 * Sources, in Readability's order (so a page reads the same here as in Firefox's reader view): the first
 * schema.org article in JSON-LD, then `<meta>` tags (Dublin Core, OpenGraph, Twitter, Parse.ly, Weibo, plain
 * names), then the page itself: `<title>` with the site's name cut off, `<html lang>`, and the first
 * element marked as a byline. A few fallbacks come last, for pages that give none of these.
 */
export function readMetadata(document: DomDocument): PageMetadata {
  const meta = readMetaTags(document);
  const jsonLd = readJsonLd(document);
  const title =
    jsonLd.title ??
    firstOf(meta, TITLE_KEYS) ??
    articleTitle(document) ??
    // Whatever names the page when nothing else does.
    jsonLd.other?.title;
  const byline =
    jsonLd.byline ??
    firstOf(meta, BYLINE_KEYS) ??
    notUrl(meta.get('article:author')) ??
    bylineElement(document) ??
    jsonLd.other?.byline;
  return {
    title,
    byline,
    publishedAt:
      jsonLd.datePublished ??
      firstOf(meta, PUBLISHED_KEYS) ??
      jsonLd.other?.datePublished ??
      firstOf(meta, FALLBACK_PUBLISHED_KEYS),
    language: clean(document.documentElement.getAttribute('lang')) ?? meta.get('content-language'),
    siteName: jsonLd.siteName ?? meta.get('og:site_name') ?? jsonLd.other?.siteName,
  };
}

// ---------------------------------------------------------------------------------------------------
// <meta> tags

const TITLE_KEYS = [
  'dc:title',
  'dcterm:title',
  'og:title',
  'weibo:article:title',
  'weibo:webpage:title',
  'title',
  'twitter:title',
  'parsely-title',
];
const BYLINE_KEYS = ['dc:creator', 'dcterm:creator', 'author', 'parsely-author'];
const PUBLISHED_KEYS = ['article:published_time', 'parsely-pub-date'];
/** Dates that are not always the publication's (Readability reads none of them). */
const FALLBACK_PUBLISHED_KEYS = ['dc:date', 'dcterms:date', 'date', 'pubdate', 'publishdate'];

/** A `property` holds a space-separated list; each may name one of these. */
const PROPERTY_PATTERN =
  /\s*(article|dc|dcterm|og|twitter)\s*:\s*(author|creator|description|published_time|title|site_name)\s*/gi;
/** A `name` is a single key, its prefix separated by `-`, `.` or `:`. */
const NAME_PATTERN =
  /^\s*(?:(dc|dcterm|og|twitter|parsely|weibo:(article|webpage))\s*[-.:]\s*)?(author|creator|pub-date|description|title|site_name)\s*$/i;

/**
 * The `content` of `<meta>` tags by normalised key (`og:title`, `dc:creator`, `parsely-pub-date`, …); the
 * last tag wins for the keys Readability reads, the first for the others (`content-language`, `date`).
 */
function readMetaTags(document: DomDocument): Map<string, string> {
  const contents = new Map<string, string>();
  for (const element of document.getElementsByTagName('meta')) {
    const content = clean(unescapeEntities(element.getAttribute('content') ?? ''));
    if (!content) continue;
    const property = element.getAttribute('property');
    const name = element.getAttribute('name');
    const propertyMatches = property?.match(PROPERTY_PATTERN);
    if (propertyMatches) {
      for (const match of propertyMatches) contents.set(match.toLowerCase().replace(/\s/g, ''), content);
    } else if (name && NAME_PATTERN.test(name)) {
      contents.set(name.toLowerCase().replace(/\s/g, '').replace(/\./g, ':'), content);
    } else {
      for (const key of [name, property, element.getAttribute('http-equiv')]) {
        const normalised = key?.trim().toLowerCase().replace(/\./g, ':');
        if (normalised && !contents.has(normalised)) contents.set(normalised, content);
      }
    }
  }
  return contents;
}

function firstOf(meta: Map<string, string>, keys: string[]): string | undefined {
  for (const key of keys) {
    const value = meta.get(key);
    if (value !== undefined) return value;
  }
  return undefined;
}

function notUrl(value: string | undefined): string | undefined {
  return value === undefined || /^[a-z][a-z\d+.-]*:\/\/\S+$/i.test(value) ? undefined : value;
}

// ---------------------------------------------------------------------------------------------------
// JSON-LD

interface JsonLdFields {
  title?: string | undefined;
  byline?: string | undefined;
  datePublished?: string | undefined;
  siteName?: string | undefined;
  /** The same fields from the first item of another type (a `WebPage`, a `Product`), for fallbacks. */
  other?: JsonLdFields | undefined;
}

const MAX_JSON_LD_CHARS = 1_000_000;
/** Readability's schema.org types: `Article` and its subtypes, and postings. */
const ARTICLE_TYPES =
  /^(?:Article|AdvertiserContentArticle|NewsArticle|AnalysisNewsArticle|AskPublicNewsArticle|BackgroundNewsArticle|OpinionNewsArticle|ReportageNewsArticle|ReviewNewsArticle|Report|SatiricalArticle|ScholarlyArticle|MedicalScholarlyArticle|SocialMediaPosting|BlogPosting|LiveBlogPosting|DiscussionForumPosting|TechArticle|APIReference)$/;
const SCHEMA_ORG = /^https?:\/\/schema\.org\/?$/;

type JsonObject = Record<string, unknown>;

/** The first schema.org article in a `<script type="application/ld+json">` (top level, in a list or in `@graph`). */
function readJsonLd(document: DomDocument): JsonLdFields {
  let other: JsonLdFields | undefined;
  for (const script of document.getElementsByTagName('script')) {
    if (script.getAttribute('type')?.trim().toLowerCase() !== 'application/ld+json') continue;
    const source = script.textContent ?? '';
    if (source.length > MAX_JSON_LD_CHARS) continue;
    const items = schemaItems(parseJson(source));
    const article = items.find((item) => typesOf(item).some((type) => ARTICLE_TYPES.test(type)));
    if (article) return { ...articleFields(article, document), other };
    for (const item of items) other = fillIn(other, articleFields(item, document));
  }
  return { other };
}

/** Schema.org types whose `description` is the item's own text (a product's, an offer's). */
const DESCRIBED_TYPES = /^(?:Product|ProductGroup|IndividualProduct|ProductModel)$/;

/** The text of the page's `<script type="application/ld+json">`s, for `readJsonLdDescription` after cleaning. */
export function jsonLdSources(document: DomDocument): string[] {
  const sources: string[] = [];
  for (const script of document.getElementsByTagName('script')) {
    if (script.getAttribute('type')?.trim().toLowerCase() !== 'application/ld+json') continue;
    const source = script.textContent ?? '';
    if (source.length <= MAX_JSON_LD_CHARS) sources.push(source);
  }
  return sources;
}

/**
 * The `description` of the first schema.org item of `DESCRIBED_TYPES` in the page's JSON-LD (`sources`,
 * from `jsonLdSources`), when it holds at least `minChars` characters (its markup, if any, taken out).
 */
export function readJsonLdDescription(sources: readonly string[], minChars: number): string | undefined {
  for (const source of sources) {
    for (const item of schemaItems(parseJson(source))) {
      if (!typesOf(item).some((type) => DESCRIBED_TYPES.test(type))) continue;
      // Some shops write the description as HTML.
      const markup = typeof item.description === 'string' ? item.description : undefined;
      const description = textOf(markup?.replace(/<[^>]*>/g, ' '));
      if (description !== undefined && description.length >= minChars) return description;
    }
  }
  return undefined;
}

/** `fields` with its gaps filled from `more`. */
function fillIn(fields: JsonLdFields | undefined, more: JsonLdFields): JsonLdFields {
  return {
    title: fields?.title ?? more.title,
    byline: fields?.byline ?? more.byline,
    datePublished: fields?.datePublished ?? more.datePublished,
    siteName: fields?.siteName ?? more.siteName,
  };
}

/** The top-level items of a JSON-LD document whose context is schema.org, and those of their `@graph`. */
function schemaItems(value: unknown): JsonObject[] {
  const items: JsonObject[] = [];
  for (const item of Array.isArray(value) ? value : [value]) {
    if (!isObject(item) || !isSchemaOrg(item['@context'])) continue;
    items.push(item);
    const graph = item['@graph'];
    if (Array.isArray(graph)) items.push(...graph.filter(isObject));
  }
  return items;
}

function isSchemaOrg(context: unknown): boolean {
  if (typeof context === 'string') return SCHEMA_ORG.test(context);
  if (Array.isArray(context)) return context.some(isSchemaOrg);
  return isObject(context) && typeof context['@vocab'] === 'string' && SCHEMA_ORG.test(context['@vocab']);
}

function typesOf(item: JsonObject): string[] {
  const type = item['@type'];
  return (Array.isArray(type) ? type : [type]).filter((value) => typeof value === 'string');
}

function articleFields(item: JsonObject, document: DomDocument): JsonLdFields {
  return {
    title: itemTitle(item, document),
    byline: authorNames(item.author),
    datePublished: textOf(item.datePublished),
    siteName: isObject(item.publisher) ? textOf(item.publisher.name) : undefined,
  };
}

/**
 * `name` and `headline` should agree; where they differ (some sites put their own name in `name`) the one
 * closer to the page's `<title>` wins, `name` when neither is.
 */
function itemTitle(item: JsonObject, document: DomDocument): string | undefined {
  const name = textOf(item.name);
  const headline = textOf(item.headline);
  if (name !== undefined && headline !== undefined && name !== headline) {
    const title = articleTitle(document) ?? '';
    return similarity(headline, title) > 0.75 && similarity(name, title) <= 0.75 ? headline : name;
  }
  return name ?? headline;
}

function authorNames(author: unknown): string | undefined {
  const names = (Array.isArray(author) ? author : [author])
    .map((entry) => (isObject(entry) ? textOf(entry.name) : undefined))
    .filter((name) => name !== undefined);
  return names.length > 0 ? names.join(', ') : undefined;
}

function parseJson(source: string): unknown {
  try {
    return JSON.parse(source.replace(/^\s*<!\[CDATA\[|\]\]>\s*$/g, ''));
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' ? clean(unescapeEntities(value)) : undefined;
}

/** How much of `b`'s text is made of words also in `a`: 1 all of it, 0 none. */
function similarity(a: string, b: string): number {
  const wordsA = a.toLowerCase().split(/\W+/).filter(Boolean);
  const wordsB = b.toLowerCase().split(/\W+/).filter(Boolean);
  if (wordsA.length === 0 || wordsB.length === 0) return 0;
  const unique = wordsB.filter((word) => !wordsA.includes(word));
  return 1 - unique.join(' ').length / wordsB.join(' ').length;
}

// ---------------------------------------------------------------------------------------------------
// The page itself

const SEPARATOR = / [|\-\\/>»–—] /;
const HIERARCHICAL_SEPARATOR = / [\\/>»] /;
const wordCount = (text: string) => text.split(/\s+/).length;

/**
 * The `<title>` without the site's name: the part before the last separator (`|`, `-`, `»`, …) or after
 * the colon, unless that leaves too few words; a title too short or too long gives way to the page's only
 * `<h1>`. Readability's rules, so the two agree.
 */
function articleTitle(document: DomDocument): string | undefined {
  const original = document.title.trim();
  let title = original;
  let hierarchical = false;
  if (SEPARATOR.test(title)) {
    hierarchical = HIERARCHICAL_SEPARATOR.test(title);
    const separators = [...original.matchAll(/ [|\-\\/>»–—] /g)];
    title = original.slice(0, separators.at(-1)?.index);
    if (wordCount(title) < 3) title = original.replace(/^[^|\-\\/>»–—]*[|\-\\/>»–—]/, '');
  } else if (title.includes(': ')) {
    const headings = [...document.getElementsByTagName('h1'), ...document.getElementsByTagName('h2')];
    if (!headings.some((heading) => (heading.textContent ?? '').trim() === title)) {
      title = original.slice(original.lastIndexOf(':') + 1);
      if (wordCount(title) < 3) title = original.slice(original.indexOf(':') + 1);
      else if (wordCount(original.slice(0, original.indexOf(':'))) > 5) title = original;
    }
  } else if (title.length > 150 || title.length < 15) {
    const headings = document.getElementsByTagName('h1');
    if (headings.length === 1) title = (headings[0]?.textContent ?? '').trim().replace(/\s{2,}/g, ' ');
  }
  title = title.trim().replace(/\s{2,}/g, ' ');
  const words = wordCount(title);
  if (words <= 4 && (!hierarchical || words !== wordCount(original.replace(/[|\-\\/>»–—]+/g, '')) - 1)) {
    title = original;
  }
  return clean(unescapeEntities(title));
}

/** Class or id words of an element holding the byline. */
const BYLINE_CLASS = /byline|author|dateline|writtenby|p-author/i;
/** Class or id words of page furniture that Readability drops before it looks for a byline. */
const UNLIKELY_CANDIDATE =
  /-ad-|ai2html|banner|breadcrumbs|combx|comment|community|cover-wrap|disqus|extra|footer|gdpr|header|legends|menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|sponsor|supplemental|ad-break|agegate|pagination|pager|popup|yom-remote/i;
const MAYBE_CANDIDATE = /and|article|body|column|content|main|shadow/i;
const UNLIKELY_ROLES = new Set([
  'menu',
  'menubar',
  'complementary',
  'navigation',
  'alert',
  'alertdialog',
  'dialog',
]);
/** Elements whose text is never the page's. */
const NOT_READ = new Set(['script', 'noscript', 'style', 'template', 'head']);
const MAX_BYLINE_CHARS = 100;

/**
 * The first visible element, in document order, marked as a byline (`rel="author"`, `itemprop="author"`,
 * or a class or id such as `byline`, `author`) with some text but under 100 characters; its
 * `itemprop="name"` descendant when it has one. Hidden elements and page furniture (headers, sidebars,
 * comments, navigation) are skipped with everything inside them.
 */
function bylineElement(document: DomDocument): string | undefined {
  const wrapsArticle = articleAncestors(document);
  let node: DomNode | null = document.documentElement;
  while (node) {
    const element = node as DomElement;
    let skip = node.nodeType !== ELEMENT_NODE || NOT_READ.has(element.localName) || isHidden(element);
    if (!skip) {
      const classAndId = `${element.getAttribute('class') ?? ''} ${element.getAttribute('id') ?? ''}`;
      if (isByline(element, classAndId)) {
        const text = clean((itemPropName(element) ?? element).textContent);
        if (text !== undefined) return text;
      }
      skip = isFurniture(element, classAndId, wrapsArticle);
    }
    node = nextNode(node, skip);
  }
  return undefined;
}

function isHidden(element: DomElement): boolean {
  if (element.hasAttribute('hidden')) return true;
  if (element.getAttribute('aria-modal') === 'true' && element.getAttribute('role') === 'dialog') return true;
  if (
    element.getAttribute('aria-hidden') === 'true' &&
    !(element.getAttribute('class') ?? '').includes('fallback-image')
  ) {
    return true;
  }
  const style = element.getAttribute('style');
  const byStyle = style ? hiddenByStyle(style) : undefined;
  return byStyle === 'display:none' || byStyle === 'visibility:hidden';
}

function isByline(element: DomElement, classAndId: string): boolean {
  const marked =
    element.getAttribute('rel') === 'author' ||
    (element.getAttribute('itemprop') ?? '').includes('author') ||
    BYLINE_CLASS.test(classAndId);
  if (!marked) return false;
  const length = textLength(element, MAX_BYLINE_CHARS);
  return length > 0 && length < MAX_BYLINE_CHARS;
}

/** The length of an element's trimmed text, counted no further than `atMost`. */
function textLength(element: DomElement, atMost: number): number {
  let text = '';
  const end = nextNode(element, true);
  for (let node = nextNode(element, false); node && node !== end; ) {
    if (node.nodeType === TEXT_NODE) {
      text = (text + (node as DomText).data).trimStart();
      if (text.trimEnd().length >= atMost) return atMost;
    }
    node = nextNode(node, false);
  }
  return text.trimEnd().length;
}

/**
 * Page furniture, by role or by class and id words (Readability's), but not a "header" that is the
 * article's own (inside an `<article>`) or that wraps the article: those hold the byline.
 */
function isFurniture(element: DomElement, classAndId: string, wrapsArticle: Set<DomNode>): boolean {
  if (UNLIKELY_ROLES.has(element.getAttribute('role') ?? '')) return true;
  if (
    !UNLIKELY_CANDIDATE.test(classAndId) ||
    MAYBE_CANDIDATE.test(classAndId) ||
    element.localName === 'body' ||
    element.localName === 'a' ||
    hasAncestor(element, ['table', 'code'])
  ) {
    return false;
  }
  const header = /header/i.test(classAndId) && !UNLIKELY_CANDIDATE.test(classAndId.replace(/header/gi, ''));
  return !(header && (wrapsArticle.has(element) || hasAncestor(element, ['article'])));
}

/** The elements that hold an `<article>`. */
function articleAncestors(document: DomDocument): Set<DomNode> {
  const ancestors = new Set<DomNode>();
  for (const article of document.getElementsByTagName('article')) {
    for (let node = article.parentNode; node && !ancestors.has(node); node = node.parentNode)
      ancestors.add(node);
  }
  return ancestors;
}

function hasAncestor(element: DomElement, names: string[]): boolean {
  for (let node = element.parentNode; node; node = node.parentNode) {
    if (node.nodeType === ELEMENT_NODE && names.includes((node as DomElement).localName)) return true;
  }
  return false;
}

/** The first descendant with `itemprop` naming `name`. */
function itemPropName(element: DomElement): DomElement | undefined {
  for (const descendant of element.getElementsByTagName('*')) {
    if ((descendant.getAttribute('itemprop') ?? '').includes('name')) return descendant;
  }
  return undefined;
}

/** The next node in document order; past `node`'s children when `skipChildren`. */
function nextNode(node: DomNode, skipChildren: boolean): DomNode | null {
  if (!skipChildren && node.firstChild) return node.firstChild;
  for (let current: DomNode | null = node; current; current = current.parentNode) {
    if (current.nextSibling) return current.nextSibling;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------
// Text

function clean(value: string | null | undefined): string | undefined {
  const trimmed = value?.replace(/\s+/g, ' ').trim();
  return trimmed ? trimmed : undefined;
}

const NAMED_ENTITIES: Record<string, string> = { quot: '"', amp: '&', apos: "'", lt: '<', gt: '>' };

/** Entities left in a value that was escaped twice (`&amp;quot;` in the source). */
function unescapeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text
    .replace(/&(quot|amp|apos|lt|gt);/g, (_, name: string) => NAMED_ENTITIES[name] ?? '')
    .replace(/&#(?:x([0-9a-f]+)|([0-9]+));/gi, (_, hex: string | undefined, decimal: string | undefined) => {
      const code = Number.parseInt(hex ?? decimal ?? '', hex ? 16 : 10);
      const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
      return String.fromCodePoint(valid ? code : 0xfffd);
    });
}
