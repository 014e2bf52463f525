import type { DomDocument } from './dom.ts';

export interface PageMetadata {
  title?: string | undefined;
  byline?: string | undefined;
  publishedAt?: string | undefined;
  language?: string | undefined;
  siteName?: string | undefined;
}

/**
 * Metadata from `<meta>` tags, JSON-LD and `<html lang>`, read before anything is removed. Readability
 * finds most of this too; these values fill its gaps and serve pages it cannot handle.
 */
export function readMetadata(document: DomDocument): PageMetadata {
  const meta = metaContents(document);
  const jsonLd = readJsonLd(document);
  return {
    title: meta.get('og:title') ?? meta.get('twitter:title') ?? jsonLd.headline ?? documentTitle(document),
    byline: meta.get('author') ?? meta.get('article:author') ?? jsonLd.author,
    publishedAt: meta.get('article:published_time') ?? jsonLd.datePublished ?? meta.get('date'),
    language: clean(document.documentElement.getAttribute('lang')) ?? meta.get('content-language'),
    siteName: meta.get('og:site_name') ?? jsonLd.publisher,
  };
}

function clean(value: string | null | undefined): string | undefined {
  const trimmed = value?.replace(/\s+/g, ' ').trim();
  return trimmed ? trimmed : undefined;
}

/** First non-empty `content` per lower-cased `property`, `name` or `http-equiv`. */
function metaContents(document: DomDocument): Map<string, string> {
  const contents = new Map<string, string>();
  for (const element of document.getElementsByTagName('meta')) {
    const content = clean(element.getAttribute('content'));
    if (!content) continue;
    for (const attribute of ['property', 'name', 'http-equiv']) {
      const key = element.getAttribute(attribute)?.trim().toLowerCase();
      if (key && !contents.has(key)) contents.set(key, content);
    }
  }
  return contents;
}

function documentTitle(document: DomDocument): string | undefined {
  return clean(document.title) ?? clean(document.getElementsByTagName('title')[0]?.textContent);
}

interface JsonLdFields {
  headline?: string | undefined;
  author?: string | undefined;
  datePublished?: string | undefined;
  publisher?: string | undefined;
}

const MAX_JSON_LD_CHARS = 1_000_000;

/** The first schema.org item (searching arrays and `@graph`) that has a publication date or headline. */
function readJsonLd(document: DomDocument): JsonLdFields {
  for (const script of document.getElementsByTagName('script')) {
    if (script.getAttribute('type')?.trim().toLowerCase() !== 'application/ld+json') continue;
    const source = script.textContent ?? '';
    if (source.length > MAX_JSON_LD_CHARS) continue;
    const item = findArticleItem(parseJson(source));
    if (item) {
      return {
        headline: textOf(item.headline) ?? textOf(item.name),
        author: nameOf(item.author),
        datePublished: textOf(item.datePublished),
        publisher: nameOf(item.publisher),
      };
    }
  }
  return {};
}

function parseJson(source: string): unknown {
  try {
    return JSON.parse(source.replace(/^\s*<!\[CDATA\[|\]\]>\s*$/g, ''));
  } catch {
    return undefined;
  }
}

type JsonObject = Record<string, unknown>;

function findArticleItem(value: unknown): JsonObject | undefined {
  const queue: unknown[] = [value];
  for (let index = 0; index < queue.length && index < 200; index += 1) {
    const item = queue[index];
    if (Array.isArray(item)) queue.push(...item);
    else if (item && typeof item === 'object') {
      const object = item as JsonObject;
      if (object.datePublished !== undefined || object.headline !== undefined) return object;
      if (object['@graph'] !== undefined) queue.push(object['@graph']);
    }
  }
  return undefined;
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' ? clean(value) : undefined;
}

function nameOf(value: unknown): string | undefined {
  if (typeof value === 'string') return clean(value);
  const first = Array.isArray(value) ? value[0] : value;
  return first && typeof first === 'object' ? textOf((first as JsonObject).name) : undefined;
}
