import { extractContent } from './extract/extract-content.ts';
import { insideNeverWrapper } from './extract/furniture.ts';
import { readText, visibleChars } from './extract/text-stats.ts';
import type { ContentSelection, Removal } from './extract/types.ts';
import { cdataAsBrowsers } from './html/bogus-cdata.ts';
import { cleanDocument, type DocumentStats } from './html/clean-document.ts';
import type { DomElement } from './html/dom.ts';
import { flatText } from './html/flat-text.ts';
import { type LightDocument, LightElement } from './html/light-dom.ts';
import { limitNesting } from './html/limit-nesting.ts';
import { parseDocument } from './html/parse-document.ts';
import {
  jsonLdSources,
  type PageMetadata,
  readJsonLdDescription,
  readMetadata,
} from './html/read-metadata.ts';
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
/** Content shorter than this gives way to the whole body when that holds more than twice as much. */
export const MIN_ARTICLE_CHARS = 250;
/** A recalled text shorter than this (or the whole cleaned body) gives way to the page when the page is no article. */
export const RECALL_YIELD_CHARS = 2 * MIN_ARTICLE_CHARS;
/** Content this short, however it is chosen, is next to nothing: the cleaned body is written instead. */
export const NEARLY_EMPTY_CHARS = 50;
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
  source: string,
  options: ExtractHtmlOptions,
): ExtractResult & { removals?: Removal[] } {
  const html = cdataAsBrowsers(source);
  const document = parseDocument(
    limitNesting(html, MAX_NESTING_DEPTH, { maxElements: MAX_PARSED_ELEMENTS }).html,
  );
  const metadata = readMetadata(document);
  const jsonLd = jsonLdSources(document);
  const baseUrl = documentBaseUrl(
    options.url,
    document.getElementsByTagName('base')[0]?.getAttribute('href'),
  );
  const stats = cleanDocument(document);
  const selection = extractContent({ document, url: baseUrl, metadata }, { skipSteps: options.skipSteps });
  const removals = options.explain ? { removals: selection.removals } : {};
  // A recalled text that is itself short, or the whole page as cleaned, is no better a guess than the
  // page without its furniture: a grid of items, each a link and a line, gives way first.
  const recalled = recall(html, selection, stats, baseUrl, metadata, options);
  const fallback =
    recalled === undefined || recalled.short
      ? (giveWay(html, document, selection, baseUrl, metadata, options) ?? recalled)
      : recalled;
  if (fallback) {
    return {
      ...definedOnly(metadata),
      ...write(described(fallback.root, jsonLd), options.mode, baseUrl),
      extractor: fallback.extractor,
      ...(options.explain ? { removals: [...selection.removals, ...fallback.removals] } : {}),
    };
  }
  const root = assemble(document, selection.roots, selection.title);
  return {
    ...definedOnly(metadata),
    ...write(described(root, jsonLd), options.mode, baseUrl),
    extractor: selection.extractor,
    ...removals,
  };
}

/** A JSON-LD description shorter than this is a tagline, not the item's text. */
export const DESCRIPTION_MIN_CHARS = 150;
/** The description is missing from the content when less than this share of its word pairs are in it. */
export const DESCRIPTION_COVERED_SHARE = 0.5;

/**
 * The content with the page's JSON-LD product description put in front of it, after its headline, when
 * the content is short (under `GIVE_WAY_MAX_CHARS`) and does not hold it: a product page whose text is
 * rendered by scripts, or sits in a sheet or tab the extractor passed over. A long content is the page's
 * text already, which a description only repeats in other words. `jsonLd`: the page's JSON-LD, read
 * before the extractors took anything out.
 */
function described(root: LightElement, jsonLd: readonly string[]): LightElement {
  if (jsonLd.length === 0) return root;
  const text = readText(root);
  if (visibleChars(text) >= GIVE_WAY_MAX_CHARS) return root;
  const description = readJsonLdDescription(jsonLd, DESCRIPTION_MIN_CHARS);
  if (description === undefined) return root;
  const pairs = wordPairs(description);
  const have = new Set(wordPairs(text));
  let found = 0;
  for (const pair of pairs) if (have.has(pair)) found += 1;
  if (found >= pairs.length * DESCRIPTION_COVERED_SHARE) return root;
  const paragraph = new LightElement('p');
  paragraph.textContent = description;
  const heading = root.getElementsByTagName('h1')[0];
  const parent = heading?.parentNode as LightElement | null | undefined;
  if (heading && parent) parent.insertBefore(paragraph, heading.nextSibling);
  else root.insertBefore(paragraph, root.firstChild);
  return root;
}

function wordPairs(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const pairs: string[] = [];
  for (let index = 0; index + 1 < words.length; index += 1) pairs.push(`${words[index]} ${words[index + 1]}`);
  return pairs;
}

/** What a fallback writes instead of the choice: `body` (recall), `page` (give-way). */
interface Fallback {
  root: LightElement;
  removals: Removal[];
  extractor: string;
}

/** What the recall fallback found, and whether it is short enough to give way to the page (`giveWay`). */
interface Recalled extends Fallback {
  short: boolean;
}

/**
 * The recall fallback, for a choice shorter than `MIN_ARTICLE_CHARS` that may be a fragment of the page's
 * text (a gallery's captions, a stray teaser, an article whose wrapper was taken for furniture): the
 * body without its furniture when that holds more than twice as much; else the best block of the page
 * with its furniture left in, on the same terms; else, when everything is next to nothing, the body as
 * cleaned, so a page with text never comes out empty. `undefined`: the choice stands. `short` when what
 * it found holds under `RECALL_YIELD_CHARS`, or is that whole body: then give-way goes first.
 */
function recall(
  html: string,
  selection: ContentSelection,
  stats: DocumentStats,
  baseUrl: URL | undefined,
  metadata: PageMetadata,
  options: ExtractHtmlOptions,
): Recalled | undefined {
  const chosenChars = textChars(selection.roots);
  if (chosenChars >= MIN_ARTICLE_CHARS) return undefined;
  let most = chosenChars;
  for (const step of ['pick-content', 'drop-furniture']) {
    const document = parseCleaned(html);
    const skipSteps = new Set([...(options.skipSteps ?? []), step]);
    const fallback = extractContent({ document, url: baseUrl, metadata }, { skipSteps });
    const chars = textChars(fallback.roots);
    // Without furniture removal, only a block the scoring chose will do: never the page as it is.
    // Nor a cookie or login panel's text, which furniture removal would have taken out whatever it held.
    const chosen =
      step === 'pick-content' ||
      (!fallback.roots.includes(document.body) && !fallback.roots.some(insideNeverWrapper));
    if (chosen && chosenChars * 2 < chars) {
      return {
        root: assemble(document, fallback.roots, fallback.title),
        removals: fallback.removals,
        extractor: 'body',
        short: chars < RECALL_YIELD_CHARS,
      };
    }
    most = Math.max(most, chars);
  }
  if (most < NEARLY_EMPTY_CHARS && chosenChars * 2 < stats.textLength) {
    return { root: parseCleaned(html).body, removals: [], extractor: 'body', short: true };
  }
  return undefined;
}

/** A page that is not an article gives way to its whole body when the choice holds less than this share of it. */
export const GIVE_WAY_SHARE = 1 / 3;
/** A chosen block this long is an article's body, whatever else the page holds: it never gives way. */
export const GIVE_WAY_MAX_CHARS = 1000;

/**
 * The give-way rule, for a page that is no article (no publication date in its metadata, no `og:type`
 * article unless the choice is under `MIN_ARTICLE_CHARS`: a listing, a category grid, a service's landing page) whose chosen block holds less than `GIVE_WAY_SHARE` of the
 * text left once the furniture (navigation, header, footer, sidebars) is out: its items are each a
 * link and a line, which scoring by paragraphs passes over for the one block of prose on the page. The
 * body without its furniture is written instead, its link lists kept, from its one headline on (what
 * stands before that is the site's header: `cutBeforeHeadline`). `undefined`: the choice stands.
 */
function giveWay(
  html: string,
  page: LightDocument,
  selection: ContentSelection,
  baseUrl: URL | undefined,
  metadata: PageMetadata,
  options: ExtractHtmlOptions,
): Fallback | undefined {
  if (selection.pageChars === undefined || metadata.publishedAt !== undefined) return undefined;
  const chosenChars = textChars(selection.roots);
  // A page that says it is an article is taken at its word when the choice could be one: not when it is
  // shorter than any article (listings say `og:type` article too).
  if (declaredArticle(page) && chosenChars >= MIN_ARTICLE_CHARS) return undefined;
  if (chosenChars >= GIVE_WAY_MAX_CHARS || chosenChars >= selection.pageChars * GIVE_WAY_SHARE)
    return undefined;
  const document = parseCleaned(html);
  const skipSteps = new Set([...(options.skipSteps ?? []), 'pick-content', 'prune-content']);
  const fallback = extractContent({ document, url: baseUrl, metadata }, { skipSteps });
  if (textChars(fallback.roots) <= chosenChars) return undefined;
  cutBeforeHeadline(fallback.roots);
  return {
    root: assemble(document, fallback.roots, fallback.title),
    removals: fallback.removals,
    extractor: 'page',
  };
}

/** `<meta property="og:type" content="article">`: the page says it is an article. */
function declaredArticle(document: LightDocument): boolean {
  for (const meta of document.head.getElementsByTagName('meta')) {
    if (meta.getAttribute('property')?.trim().toLowerCase() !== 'og:type') continue;
    if (meta.getAttribute('content')?.trim().toLowerCase().startsWith('article')) return true;
  }
  return false;
}

function parseCleaned(html: string): LightDocument {
  const document = parseDocument(
    limitNesting(html, MAX_NESTING_DEPTH, { maxElements: MAX_PARSED_ELEMENTS }).html,
  );
  cleanDocument(document);
  return document;
}

/** Visible characters of the roots' text. */
function textChars(roots: LightElement[]): number {
  let chars = 0;
  for (const root of roots) chars += visibleChars(root.textContent);
  return chars;
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

/**
 * In a page given way to, what stands before its one headline (`<h1>`) is the site's header left in (its
 * sign-in and app links, a tagline, a language menu not named as furniture): it goes. With no `<h1>`, or
 * several, nothing is cut.
 */
function cutBeforeHeadline(roots: LightElement[]): void {
  const headlines = roots
    .flatMap((root) => root.getElementsByTagName('h1'))
    .filter((headline) => visibleChars(headline.textContent) > 0);
  if (headlines.length !== 1) return;
  for (
    let node = headlines[0]!;
    !roots.includes(node) && node.parentNode;
    node = node.parentNode as LightElement
  ) {
    while (node.previousSibling) node.previousSibling.remove();
  }
}
