import { extractContent } from './extract/extract-content.ts';
import { visibleChars } from './extract/text-stats.ts';
import type { Removal } from './extract/types.ts';
import { cleanDocument, type DocumentStats } from './html/clean-document.ts';
import type { DomElement } from './html/dom.ts';
import { flatText } from './html/flat-text.ts';
import type { LightDocument, LightElement } from './html/light-dom.ts';
import { limitNesting } from './html/limit-nesting.ts';
import { parseDocument } from './html/parse-document.ts';
import { type PageMetadata, readMetadata } from './html/read-metadata.ts';
import { documentBaseUrl } from './html/resolve-url.ts';
import { serializeContent } from './html/serialize-content.ts';
import type { Heading } from './html/sink.ts';
import { stripInvisible } from './invisible-unicode.ts';
import { locateHeadings, type OutlineEntry } from './outline.ts';
import type { ExtractMode, ExtractResult } from './types.ts';

export interface ExtractHtmlOptions {
  /** The page's URL: base for relative links and images. */
  url: string;
  mode: ExtractMode;
  /** Steps of the generic extractor to leave out, by name (debugging). */
  skipSteps?: ReadonlySet<string> | undefined;
  /** Collect what each step removed, in `removals` of the result. */
  explain?: boolean | undefined;
}

/** Elements nested deeper than this are flattened into their ancestor before parsing. */
export const MAX_NESTING_DEPTH = 512;
/** Content shorter than this, and shorter than half the page's text, gives way to the whole body. */
export const MIN_ARTICLE_CHARS = 250;
/** Tags past this many are dropped before parsing (their text stays): a page of a million tiny elements costs seconds to parse. */
export const MAX_PARSED_ELEMENTS = 100_000;

/**
 * HTML → main content as Markdown or plain text, with title, byline, date, language and site name.
 *
 * Steps, in order: limit nesting depth → parse (htmlparser2 into a light DOM) → read metadata → clean
 * (scripts, styles, hidden elements, comments, data: images) → extractors (site-specific ones first,
 * then the generic one: see `extract/`) → write Markdown/text.
 */
export function extractHtml(
  html: string,
  options: ExtractHtmlOptions,
): ExtractResult & { removals?: Removal[] } {
  const document = parseDocument(
    limitNesting(html, MAX_NESTING_DEPTH, { maxElements: MAX_PARSED_ELEMENTS }).html,
  );
  const metadata = readMetadata(document);
  const baseUrl = documentBaseUrl(
    options.url,
    document.getElementsByTagName('base')[0]?.getAttribute('href'),
  );
  const stats = cleanDocument(document);
  const selection = extractContent({ document, url: baseUrl, metadata }, { skipSteps: options.skipSteps });
  const removals = options.explain ? { removals: selection.removals } : {};
  if (isTooLittle(selection.roots, stats)) {
    // The steps have taken the tree apart: the page's whole cleaned body is written instead.
    const body = parseCleaned(html).body;
    return {
      ...definedOnly(metadata),
      ...write(body, options.mode, baseUrl),
      extractor: 'body',
      ...removals,
    };
  }
  const root = assemble(document, selection.roots, selection.title);
  return {
    ...definedOnly(metadata),
    ...write(root, options.mode, baseUrl),
    extractor: selection.extractor,
    ...removals,
  };
}

function parseCleaned(html: string): LightDocument {
  const document = parseDocument(
    limitNesting(html, MAX_NESTING_DEPTH, { maxElements: MAX_PARSED_ELEMENTS }).html,
  );
  cleanDocument(document);
  return document;
}

/**
 * The chosen content is "too little" — the page's cleaned body is written instead, so a page with text
 * never comes out empty — when it holds fewer than `MIN_ARTICLE_CHARS` characters and less than half of
 * the page's visible text.
 */
function isTooLittle(roots: LightElement[], stats: DocumentStats): boolean {
  let chars = 0;
  for (const root of roots) {
    chars += visibleChars(root.textContent);
    if (chars >= MIN_ARTICLE_CHARS) return false;
  }
  return chars * 2 < stats.textLength;
}

/** One element holding the headline (when given) and the chosen roots, in order. */
function assemble(document: LightDocument, roots: LightElement[], title: string | undefined): LightElement {
  if (roots.length === 1 && title === undefined) return roots[0]!;
  const wrapper = document.createElement('div');
  if (title !== undefined) {
    const heading = wrapper.appendChild(document.createElement('h1'));
    heading.textContent = title;
  }
  for (const root of roots) wrapper.appendChild(root);
  return wrapper;
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
