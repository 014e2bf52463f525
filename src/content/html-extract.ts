import { cleanDocument, type DocumentStats } from './html/clean-document.ts';
import type { DomDocument, DomElement } from './html/dom.ts';
import { flatText } from './html/flat-text.ts';
import { limitNesting } from './html/limit-nesting.ts';
import { parseDocument } from './html/parse-document.ts';
import { type PageMetadata, readMetadata } from './html/read-metadata.ts';
import { documentBaseUrl } from './html/resolve-url.ts';
import { runReadability } from './html/run-readability.ts';
import { serializeContent } from './html/serialize-content.ts';
import type { Heading } from './html/sink.ts';
import { stripInvisible } from './invisible-unicode.ts';
import { locateHeadings, type OutlineEntry } from './outline.ts';
import type { ExtractMode, ExtractResult } from './types.ts';

export interface ExtractHtmlOptions {
  /** The page's URL: base for relative links and images. */
  url: string;
  mode: ExtractMode;
}

/** Elements nested deeper than this are flattened into their ancestor before parsing. */
export const MAX_NESTING_DEPTH = 512;
/** Above this many elements Readability is skipped and the cleaned body is written out. */
export const MAX_READABILITY_ELEMENTS = 50_000;
/** Tags past this many are dropped before parsing (their text stays): a page of a million tiny elements costs seconds to parse. */
export const MAX_PARSED_ELEMENTS = 100_000;
/**
 * Readability's cost grows steeply with depth (ancestor walks per node, retried passes): 0.2 s at 128
 * levels, a minute at 512. Real pages stay under 40 (the deepest of 481 corpus pages is 37), so a tree
 * deeper than this is hostile or broken and its cleaned body is written out instead.
 */
export const MAX_READABILITY_DEPTH = 128;
/**
 * Readability's article is "too little" — the page's body is written instead — when it holds fewer than
 * this many characters and less than half of the page's visible text.
 */
export const MIN_ARTICLE_CHARS = 250;

/**
 * HTML → main content as Markdown or plain text, with title, byline, date, language and site name.
 *
 * Steps, in order: limit nesting depth → parse (linkedom) → read metadata → clean (scripts, styles,
 * hidden elements, comments, data: images) → Readability → write Markdown/text. When Readability fails
 * or keeps too little, the cleaned `<body>` is written instead (`extractor: 'body'`).
 */
export function extractHtml(html: string, options: ExtractHtmlOptions): ExtractResult {
  const document = parseDocument(
    limitNesting(html, MAX_NESTING_DEPTH, { maxElements: MAX_PARSED_ELEMENTS }).html,
  );
  const metadata = readMetadata(document);
  const baseUrl = documentBaseUrl(
    options.url,
    document.getElementsByTagName('base')[0]?.getAttribute('href'),
  );
  const stats = cleanDocument(document);

  if (stats.elementCount <= MAX_READABILITY_ELEMENTS && stats.maxDepth <= MAX_READABILITY_DEPTH) {
    const article = runReadability(document);
    if (article && !isTooLittle(article.content, stats)) {
      return {
        ...definedOnly({
          title: article.title ?? metadata.title,
          byline: article.byline ?? metadata.byline,
          publishedAt: article.publishedAt ?? metadata.publishedAt,
          language: metadata.language ?? article.language,
          siteName: article.siteName ?? metadata.siteName,
        }),
        ...write(article.content, options.mode, baseUrl),
        extractor: 'readability',
      };
    }
    // Readability has rewritten the tree while trying: start again from the source.
    return extractBody(cleanedDocument(html), metadata, options.mode, baseUrl);
  }
  return extractBody(document, metadata, options.mode, baseUrl);
}

function extractBody(
  document: DomDocument,
  metadata: PageMetadata,
  mode: ExtractMode,
  baseUrl: URL | undefined,
) {
  return { ...definedOnly(metadata), ...write(document.body, mode, baseUrl), extractor: 'body' };
}

function cleanedDocument(html: string): DomDocument {
  const document = parseDocument(
    limitNesting(html, MAX_NESTING_DEPTH, { maxElements: MAX_PARSED_ELEMENTS }).html,
  );
  cleanDocument(document);
  return document;
}

function isTooLittle(content: DomElement, stats: DocumentStats): boolean {
  const raw = content.textContent ?? '';
  const visible = (text: string) => text.replace(/\s+/g, ' ').trim().length;
  // A long article is settled by its first few thousand characters, without folding all of it.
  const head = visible(raw.slice(0, MIN_ARTICLE_CHARS * 8));
  const articleChars = head >= MIN_ARTICLE_CHARS || raw.length <= MIN_ARTICLE_CHARS * 8 ? head : visible(raw);
  return articleChars < MIN_ARTICLE_CHARS && articleChars * 2 < stats.textLength;
}

/** Structured writer first; the flat text walk if the tree is still too deep for it. */
function write(
  root: DomElement,
  mode: ExtractMode,
  baseUrl: URL | undefined,
): { text: string; outline: OutlineEntry[] } {
  const headings: Heading[] = [];
  try {
    const text = stripInvisible(serializeContent(root, { mode, baseUrl, headings }));
    return { text, outline: locateHeadings(text, headings, mode === 'markdown') };
  } catch (error) {
    if (error instanceof RangeError) return { text: stripInvisible(flatText(root)), outline: [] };
    throw error;
  }
}

function definedOnly(metadata: PageMetadata): PageMetadata {
  return Object.fromEntries(
    Object.entries(metadata)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => [key, typeof value === 'string' ? stripInvisible(value) : value]),
  );
}
