// Reading DuckDuckGo's pages: the HTML endpoint, the lite endpoint, the vqd token and the anti-bot page.
// Formats: ../shared/fixtures/providers/FORMATS.md, "DuckDuckGo".
import type { ImageResult, SearchResult } from '../types.ts';

/** The slice of linkedom's DOM used here (the project compiles without the `dom` lib). */
interface Element {
  readonly textContent: string | null;
  readonly nextElementSibling: Element | null;
  readonly classList: { contains(name: string): boolean };
  getAttribute(name: string): string | null;
  querySelector(selector: string): Element | null;
  querySelectorAll(selector: string): Iterable<Element>;
  closest(selector: string): Element | null;
}

/** What a page turned out to be. `blocked` names the marker that gave the anti-bot page away. */
export type PageReading =
  | { kind: 'results'; results: SearchResult[] }
  | { kind: 'no-results' }
  | { kind: 'blocked'; marker: string }
  | { kind: 'unrecognised' };

/**
 * Markers of DuckDuckGo's anti-bot page (2025–26), checked as elements, never as text: a result snippet that
 * quotes "bots use DuckDuckGo too" must not turn a results page into a block.
 */
const BLOCK_SELECTORS: ReadonlyArray<[selector: string, marker: string]> = [
  ['form#challenge-form', 'form#challenge-form'],
  ['form[action*="anomaly.js"]', 'anomaly.js challenge form'],
  ['.anomaly-modal__title', 'div.anomaly-modal__title'],
  ['.anomaly-modal__box', 'div.anomaly-modal__box'],
  ['img.anomaly-modal__image', 'img.anomaly-modal__image'],
];
/**
 * The anti-bot page's own words (FORMATS.md). Read only on a page without results (and without a vqd token), so a
 * snippet quoting them never turns a results page into a block.
 */
const BLOCK_TEXTS: readonly string[] = [
  'Unfortunately, bots use DuckDuckGo too.',
  'Please complete the following challenge to confirm this search was made by a human.',
  'Select all squares containing a duck:',
];
/** The d.js form of the block (recorded with HTTP 200). */
const SCRIPT_BLOCK = /^\s*DDG\.deep\.anomalyDetectionBlock\(/;

let parser: Promise<(html: string) => Element> | undefined;

/** linkedom, loaded on the first DuckDuckGo page so that importing Periscope stays fast. */
async function parse(html: string): Promise<Element> {
  parser ??= import('linkedom').then(
    ({ parseHTML }) =>
      (text: string) =>
        parseHTML(text).document as unknown as Element,
  );
  return (await parser)(html);
}

export function findBlockMarker(document: Element, body: string): string | undefined {
  if (SCRIPT_BLOCK.test(body)) return 'DDG.deep.anomalyDetectionBlock';
  for (const [selector, marker] of BLOCK_SELECTORS) {
    if (document.querySelector(selector)) return marker;
  }
  return undefined;
}

/** The first of the anti-bot page's sentences found in the page's text, named as its marker. */
function findBlockText(document: Element): string | undefined {
  const text = (document.querySelector('body')?.textContent ?? '').replace(/\s+/g, ' ');
  const found = BLOCK_TEXTS.find((sentence) => text.includes(sentence));
  return found === undefined ? undefined : `text "${found}"`;
}

/** `//duckduckgo.com/l/?uddg=<target>&rut=…` → the target; ad links (`y.js`) and non-web links → undefined. */
export function resolveResultHref(href: string | null): string | undefined {
  if (!href) return undefined;
  const url = URL.parse(href, 'https://duckduckgo.com/');
  if (!url) return undefined;
  const isDuckDuckGo = url.hostname === 'duckduckgo.com' || url.hostname.endsWith('.duckduckgo.com');
  if (isDuckDuckGo && url.pathname === '/l/') return url.searchParams.get('uddg') ?? undefined;
  if (isDuckDuckGo && url.pathname === '/y.js') return undefined;
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
}

/** The HTML endpoint: `div.result` blocks with `a.result__a` and `a.result__snippet`; ads (`result--ad`) skipped. */
export async function readHtmlPage(body: string): Promise<PageReading> {
  const document = await parse(body);
  const marker = findBlockMarker(document, body);
  if (marker) return { kind: 'blocked', marker };
  const results: SearchResult[] = [];
  for (const block of document.querySelectorAll('div.result')) {
    if (block.classList.contains('result--ad')) continue;
    const link = block.querySelector('a.result__a');
    const url = resolveResultHref(link?.getAttribute('href') ?? null);
    if (!link || url === undefined) continue;
    results.push({
      title: link.textContent ?? '',
      url,
      snippet: block.querySelector('.result__snippet')?.textContent ?? '',
    });
  }
  if (results.length > 0) return { kind: 'results', results };
  const text = findBlockText(document);
  if (text) return { kind: 'blocked', marker: text };
  if (document.querySelector('.no-results') || /No\s+results\./.test(body)) return { kind: 'no-results' };
  return { kind: 'unrecognised' };
}

/**
 * The lite endpoint: rows of the last table, `a.result-link` (title, href), then a row with `td.result-snippet`,
 * then `span.link-text`; sponsored rows (`tr.result-sponsored`) skipped.
 */
export async function readLitePage(body: string): Promise<PageReading> {
  const document = await parse(body);
  const marker = findBlockMarker(document, body);
  if (marker) return { kind: 'blocked', marker };
  const results: SearchResult[] = [];
  for (const link of document.querySelectorAll('a.result-link')) {
    const row = link.closest('tr');
    if (row?.classList.contains('result-sponsored')) continue;
    const url = resolveResultHref(link.getAttribute('href'));
    if (url === undefined) continue;
    let snippet = '';
    for (let next = row?.nextElementSibling ?? null; next; next = next.nextElementSibling) {
      if (next.querySelector('a.result-link')) break;
      const cell = next.querySelector('td.result-snippet');
      if (cell) {
        snippet = cell.textContent ?? '';
        break;
      }
    }
    results.push({ title: link.textContent ?? '', url, snippet });
  }
  if (results.length > 0) return { kind: 'results', results };
  const text = findBlockText(document);
  if (text) return { kind: 'blocked', marker: text };
  if (/No\s+(?:more\s+)?results\./.test(body)) return { kind: 'no-results' };
  return { kind: 'unrecognised' };
}

/** The vqd token from a duckduckgo.com page: `vqd="…"`, `vqd=…&` or `vqd='…'` (ddgs `_extract_vqd`). */
export function extractVqd(body: string): string | undefined {
  const match = /vqd=(?:"([^"]+)"|'([^']+)'|([0-9-]+)&)/.exec(body);
  return match?.[1] ?? match?.[2] ?? match?.[3];
}

/** Whether a page without a vqd token is the anti-bot page. */
export async function blockMarkerIn(body: string): Promise<string | undefined> {
  const document = await parse(body);
  return findBlockMarker(document, body) ?? findBlockText(document);
}

/** `i.js` JSON: `results: [{ title, image, thumbnail, url, width, height }]`; undefined when the shape is wrong. */
export function readImagesJson(value: unknown): ImageResult[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const results = (value as { results?: unknown }).results;
  if (!Array.isArray(results)) return undefined;
  const images: ImageResult[] = [];
  for (const item of results as Array<Record<string, unknown>>) {
    if (typeof item?.image !== 'string') continue;
    const image: ImageResult = {
      title: typeof item.title === 'string' ? item.title : '',
      imageUrl: item.image,
    };
    if (typeof item.thumbnail === 'string') image.thumbnailUrl = item.thumbnail;
    if (typeof item.url === 'string') image.sourceUrl = item.url;
    if (typeof item.width === 'number') image.width = item.width;
    if (typeof item.height === 'number') image.height = item.height;
    images.push(image);
  }
  return images;
}

/**
 * `news.js` JSON: `results: [{ date (epoch seconds), excerpt, image, relative_time, source, title, url }]` (the
 * shape of the `DDG.duckbar.load('news', …)` payload recorded in Snazzah/duck-duck-scrape's
 * `test/__util__/data/search/search/news.js`, which its `searchNews` reads from news.js); undefined when the shape
 * is wrong. The date becomes ISO 8601, the publication `source`.
 */
export function readNewsJson(value: unknown): SearchResult[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const results = (value as { results?: unknown }).results;
  if (!Array.isArray(results)) return undefined;
  const news: SearchResult[] = [];
  for (const item of results as Array<Record<string, unknown>>) {
    if (typeof item?.url !== 'string') continue;
    const article: SearchResult = {
      title: typeof item.title === 'string' ? item.title : '',
      url: item.url,
      snippet: typeof item.excerpt === 'string' ? item.excerpt : '',
    };
    if (typeof item.date === 'number' && Number.isFinite(item.date))
      article.publishedAt = new Date(item.date * 1000).toISOString();
    if (typeof item.source === 'string') article.source = item.source;
    news.push(article);
  }
  return news;
}
