import { ELEMENT_NODE, TEXT_NODE } from '../../html/dom.ts';
import type { LightElement, LightText } from '../../html/light-dom.ts';
import { classNames, findWord, wordSet } from '../class-words.ts';
import { furnitureReason } from '../furniture.ts';
import { inRunningText, namedFurniture } from '../running-text.ts';
import { visibleChars } from '../text-stats.ts';
import type { Step, StepContext } from '../types.ts';

/** Words of class names for what surrounds an article inside its container: bylines, dates, captions. */
const AROUND = wordSet(
  [
    'authors',
    'byline',
    'credit',
    'credits',
    'keywords',
    'meta',
    'rating',
    'tags',
    'tagcloud',
    'timestamp',
    'topics',
  ],
  ['author', 'caption', 'category', 'categories', 'copyright'],
);

/** Named as furniture, or as what surrounds an article (a second byline or caption span beside one). */
const namedAround = (element: LightElement) =>
  namedFurniture(element) ||
  (element.hasAttributes() && findWord(classNames(element).flat(), AROUND) !== undefined);

/** Blocks judged by their links: related-article lists, "read also" boxes. */
const CONDITIONAL = new Set(['div', 'section', 'ul', 'ol', 'table', 'form', 'fieldset', 'figure', 'p', 'dl']);
/** Longer headings are lead paragraphs in large type, never removed for standing alone. */
const MAX_DANGLING_HEADING_CHARS = 60;
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const CELLS = new Set(['td', 'th']);
const LISTS = new Set(['ul', 'ol']);

/** A block whose whole text is an advertisement label. */
const AD_LABEL =
  /^[\s\-–—|:(]*(?:anzeige|werbung|advertisement|advertising|ad|sponsored|publicidad|publicité|pubblicità|reklama|advertentie|annonse|annons|mainos|reklame)[\s\-–—|:)]*$/i;

/** Longest text read as a picture credit or caption line. */
const MAX_CREDIT_CHARS = 150;
/**
 * "Foto: …", "Credit: …", "Photo credit: …", "© …", stock agencies: the credit line of a picture. A
 * credit after other words is a picture's only after a sentence or a picture word ("Cost per Credit: $1,500" is a price).
 */
const CREDIT =
  /(?:^|[\s(|/])(?:fotos?|photos?|bild(?:er|quelle)?|titelbild|image|cr[ée]dits? photos?|cr[ée]dito|fuente|quelle)\s*:|(?:^|[(|/.!?]|(?:photos?|image|picture)\s)\s*cr[ée]dits?\s*:|^\s*(?:©|\(c\)\s|copyright\b)|getty ?images|shutterstock|istock(?:photo)?(?:\.com)?\b|\bimago\b|\(foto\b/i;

/**
 * Inside the chosen content: furniture (as on the page), bylines, dates, captions and tag lists by their
 * class names (never a link or a span inside a sentence: `inRunningText`), figure captions, advertisement labels, blocks that are mostly links (related-article
 * lists, "read also"), and headings left with nothing under them.
 */
export const pruneContent: Step = {
  name: 'prune-content',
  run(context) {
    const contentChars = context.roots.reduce((sum, root) => sum + (context.stats.get(root)?.chars ?? 0), 0);
    const contentProse = context.roots.reduce((sum, root) => {
      const stats = context.stats.get(root);
      return sum + (stats?.chars ?? 0) - (stats?.linkChars ?? 0);
    }, 0);
    const found: Array<[LightElement, string]> = [];
    const itemLines = repeatedItemLines(context.roots);
    for (const root of context.roots)
      collect(root, found, (element) => pruneReason(element, context, contentChars, contentProse, itemLines));
    for (const [element, reason] of found) context.remove(element, 'prune-content', reason);
    for (const root of context.roots) removeDanglingHeadings(root, context);
    context.measure();
  },
};

function collect(
  root: LightElement,
  found: Array<[LightElement, string]>,
  reasonFor: (element: LightElement) => string | undefined,
): void {
  const pending: LightElement[] = [root];
  while (pending.length > 0) {
    const element = pending.pop()!;
    for (let child = element.firstChild; child; child = child.nextSibling) {
      if (child.nodeType !== ELEMENT_NODE) continue;
      const candidate = child as LightElement;
      const reason = reasonFor(candidate);
      if (reason) found.push([candidate, reason]);
      else if (candidate.firstChild) pending.push(candidate);
    }
  }
}

function pruneReason(
  element: LightElement,
  context: StepContext,
  contentChars: number,
  contentProse: number,
  itemLines: Set<string>,
): string | undefined {
  const furniture = furnitureReason(element, context.stats, contentProse);
  if (furniture) return furniture;
  const name = element.localName;
  if (name === 'figcaption') return '<figcaption>';
  const stats = context.stats.get(element);
  const chars = stats?.chars ?? 0;
  // A piece of a sentence stays with it, whatever its name or its words say ("Advertising: reach buyers…").
  let inText: boolean | undefined;
  const inSentence = () => (inText ??= inRunningText(element, namedAround));
  const around = findWord(classNames(element).flat(), AROUND);
  // A table cell named `rating` or `author` is a column of the table, not a byline.
  if (
    around &&
    !CELLS.has(name) &&
    chars < Math.max(200, contentChars * 0.2) &&
    !itemLines.has(lineKey(element)) &&
    !inSentence()
  ) {
    return `class/id "${around}"`;
  }
  if (!stats || chars === 0) return undefined;
  if (chars < 20 && AD_LABEL.test(element.textContent) && !inSentence()) return 'advertisement label';
  if (
    chars <= MAX_CREDIT_CHARS &&
    stats.ownChars >= chars * 0.8 &&
    CREDIT.test(element.textContent) &&
    !inSentence()
  ) {
    return 'picture credit';
  }
  if (!CONDITIONAL.has(name)) return undefined;
  // A paragraph with a picture in it is part of the text, links or not.
  if (name === 'p' && element.getElementsByTagName('img').length > 0) return undefined;
  const linkDensity = stats.linkChars / chars;
  if (
    linkDensity > maxLinkDensity(name) &&
    chars < contentChars * 0.5 &&
    // An item's own author line, repeated down a list, is links by nature (each name links to its page).
    !itemLines.has(lineKey(element)) &&
    !wholeCell(element, chars, context) &&
    !(name === 'p' && wordsOutsideLinks(element) >= PROSE_WORDS) &&
    !(LISTS.has(name) && linksElsewhere(element, context.input.url))
  ) {
    return `links ${Math.round(linkDensity * 100)}%`;
  }
  return undefined;
}

/** A block with more of its text in links than this is a list of links (related articles, "read also"). */
const MAX_LINK_DENSITY = 0.5;
/**
 * A list with a quarter of its text outside links is the article's own (references with their authors
 * and titles, steps with a link in each), not a list of other pages: related-links lists are nearly
 * all link text.
 */
const MAX_LIST_LINK_DENSITY = 0.75;
/** A paragraph with 40 % of its text outside links is prose that links, not a link with a label. */
const MAX_PARAGRAPH_LINK_DENSITY = 0.6;

function maxLinkDensity(name: string): number {
  if (LISTS.has(name)) return MAX_LIST_LINK_DENSITY;
  return name === 'p' ? MAX_PARAGRAPH_LINK_DENSITY : MAX_LINK_DENSITY;
}

/** An item line's class signature repeated this many times marks a list of items (see `repeatedItemLines`). */
const MIN_ITEM_LINES = 3;

/** An element's tag and class attribute: what the lines of one list's items share. */
function lineKey(element: LightElement): string {
  return `${element.localName}.${(element.getAttribute('class') ?? '').trim()}`;
}

/**
 * Tag-and-class signatures of byline, date, rating and category lines (`AROUND` words) that stand
 * `MIN_ITEM_LINES` times or more in the content, with text: an article has one byline, a list of posts,
 * papers or products has one per item, and those are the item's own text ("27 February 2026, Keith
 * Randall", "8 reviews, 4.7 out of 5 stars"), not the page's.
 */
function repeatedItemLines(roots: LightElement[]): Set<string> {
  const counts = new Map<string, number>();
  for (const root of roots) {
    for (const element of root.getElementsByTagName('*')) {
      if (!element.hasAttribute('class') || findWord(classNames(element).flat(), AROUND) === undefined) {
        continue;
      }
      if (element.textContent.trim() === '') continue;
      const key = lineKey(element);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return new Set([...counts].filter(([, count]) => count >= MIN_ITEM_LINES).map(([key]) => key));
}

/**
 * Words outside links that make a paragraph prose with links in it ("Katie Hockman gave a great talk on
 * <a>the Go Checksum Database</a> at <a>GopherCon 2019</a>.") rather than a link with a label ("Read
 * more: <a>…</a>", "Also read: <a>…</a>").
 */
const PROSE_WORDS = 6;
const WORD = /[\p{N}_]*\p{L}[\p{L}\p{N}_]*/gu;

function wordsOutsideLinks(element: LightElement): number {
  let words = 0;
  const pending: LightElement[] = [element];
  while (pending.length > 0) {
    const parent = pending.pop()!;
    for (let child = parent.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === TEXT_NODE) {
        for (const _ of (child as LightText).data.matchAll(WORD)) words += 1;
      } else if (child.nodeType === ELEMENT_NODE && (child as LightElement).localName !== 'a') {
        pending.push(child as LightElement);
      }
    }
  }
  return words;
}

/**
 * Whether the block is (nearly) all the text of the table cell it stands in: then it is the cell's value
 * (`<td><p><a>Hertz</a></p></td>`), and the table was judged by its links as a whole. A related-links box
 * inside a layout table's one big cell is a small part of it.
 */
function wholeCell(element: LightElement, chars: number, context: StepContext): boolean {
  for (
    let node = element.parentNode as LightElement | null;
    node;
    node = node.parentNode as LightElement | null
  ) {
    if (CELLS.has(node.localName)) return chars >= (context.stats.get(node)?.chars ?? 0) * 0.8;
    if (node.localName === 'table' || context.roots.includes(node)) return false;
  }
  return false;
}

/**
 * A heading followed by nothing, or directly by a heading of the same or a higher rank, introduced
 * something that is gone (a related-links list, a newsletter box): it goes too.
 */
function removeDanglingHeadings(root: LightElement, context: StepContext): void {
  for (const heading of root.getElementsByTagName('*')) {
    if (!HEADINGS.has(heading.localName) || heading.localName === 'h1') continue;
    // A long "heading" is a lead paragraph set in large type.
    if (visibleChars(heading.textContent) > MAX_DANGLING_HEADING_CHARS) continue;
    // In a table cell a heading labels its column or row (`<td><h4>Amount</h4></td>` beside another), not a section.
    if (inTableCell(heading, root)) continue;
    const next = nextContent(heading, root);
    const rank = Number(heading.localName.slice(1));
    if (next === undefined || (HEADINGS.has(next.localName) && Number(next.localName.slice(1)) <= rank)) {
      context.remove(heading, 'prune-content', 'heading without content');
    }
  }
}

function inTableCell(element: LightElement, root: LightElement): boolean {
  for (
    let node = element.parentNode as LightElement | null;
    node && node !== root;
    node = node.parentNode as LightElement | null
  ) {
    if (CELLS.has(node.localName)) return true;
  }
  return false;
}

/** The next element with text after `element` in document order (not inside it), within `root`. */
function nextContent(element: LightElement, root: LightElement): LightElement | undefined {
  let node: LightElement | LightText | null = element;
  while (node && node !== root) {
    let sibling: LightElement | LightText | null = node.nextSibling;
    while (sibling) {
      if (sibling.nodeType === TEXT_NODE) {
        if ((sibling as LightText).data.trim() !== '') return sibling.parentNode as LightElement;
      } else if ((sibling as LightElement).textContent.trim() !== '') {
        return firstTextElement(sibling as LightElement);
      } else if (hasMedia(sibling as LightElement)) {
        return sibling as LightElement;
      }
      sibling = sibling.nextSibling;
    }
    node = node.parentNode as LightElement | null;
  }
  return undefined;
}

/** The innermost element where `element`'s first text starts (a heading inside wrappers counts). */
function firstTextElement(element: LightElement): LightElement {
  let current = element;
  for (;;) {
    if (HEADINGS.has(current.localName)) return current;
    let next: LightElement | undefined;
    for (let child = current.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === TEXT_NODE) {
        if ((child as LightText).data.trim() !== '') return current;
      } else if ((child as LightElement).textContent.trim() !== '') {
        next = child as LightElement;
        break;
      }
    }
    if (!next) return current;
    current = next;
  }
}

const MEDIA = new Set(['img', 'picture', 'video', 'audio', 'svg', 'math', 'table']);

function hasMedia(element: LightElement): boolean {
  return (
    MEDIA.has(element.localName) || [...MEDIA].some((name) => element.getElementsByTagName(name).length > 0)
  );
}

/** Fewest links for a list to be judged by where they lead. */
const MIN_OUTBOUND_LINKS = 3;

/**
 * A list whose links nearly all lead to other sites: the article's sources, references or picks, part of
 * what it says; a list of related articles or sections links back into the site.
 */
function linksElsewhere(list: LightElement, pageUrl: URL | undefined): boolean {
  if (pageUrl === undefined) return false;
  const home = siteOf(pageUrl.hostname);
  let links = 0;
  let elsewhere = 0;
  for (const link of list.getElementsByTagName('a')) {
    const href = link.getAttribute('href');
    if (!href) continue;
    let target: URL;
    try {
      target = new URL(href, pageUrl);
    } catch {
      continue;
    }
    if (target.protocol !== 'http:' && target.protocol !== 'https:') continue;
    links++;
    if (siteOf(target.hostname) !== home) elsewhere++;
  }
  return links >= MIN_OUTBOUND_LINKS && elsewhere >= links * 0.8;
}

/** A host without its `www.`: what two links must share to lead to the same site. */
function siteOf(hostname: string): string {
  return hostname.replace(/^www\d?\./, '');
}
