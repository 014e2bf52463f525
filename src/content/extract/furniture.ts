import { ELEMENT_NODE } from '../html/dom.ts';
import type { LightElement } from '../html/light-dom.ts';
import { BOILERPLATE, COMMENTS, classNames, furnitureWord, NEVER_WRAPPER } from './class-words.ts';
import { inRunningText } from './running-text.ts';
import type { TextStats } from './text-stats.ts';

/** Elements that are never the article, wherever they stand. */
const FURNITURE_TAGS = new Set(['nav', 'aside', 'footer', 'dialog', 'form']);
/** Controls and embeds: never text to read. */
const FORM_CONTROLS = new Set(['button', 'select', 'input', 'textarea', 'iframe', 'object', 'embed']);
/** Elements whose class names do not make them furniture: the page, the article, its headings, code. */
const UNNAMED = new Set(['body', 'main', 'article', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'code']);

/** ARIA landmarks and widgets that are not the article. */
const FURNITURE_ROLES = new Set([
  'navigation',
  'banner',
  'contentinfo',
  'complementary',
  'search',
  'menu',
  'menubar',
  'toolbar',
  'dialog',
  'alertdialog',
  'tablist',
]);

/**
 * A wrapper holding at least this share of the page's prose (text outside links) is never furniture by
 * its name alone: menus do not count, so a small article in a big menu keeps its `social-sticky` wrapper.
 */
const WRAPPER_SHARE = 0.4;

/**
 * Why an element is page furniture, or `undefined`. Tags and roles decide on their own; class and id
 * words (`share-bar`, `related-posts`, `commentlist`) decide unless content words come with them
 * (`entry-content`) or the element is a wrapper: it holds much of the page's prose and, when `article`
 * (the provisional best block) is given, that too. Words of `NEVER_WRAPPER` (login, cookie banners)
 * decide even then; a `<footer>`, `<aside>` or `<nav>` is no wrapper outside the page's `main` (when
 * given: its `<main>` with text). Names and roles never take an inline element out of the sentence it stands in
 * (`inRunningText`): `sanctions on <a class="meta-loc">Sudan</a> and` keeps its country.
 */
export function furnitureReason(
  element: LightElement,
  stats: Map<LightElement, TextStats>,
  wholeProse: number,
  article?: LightElement,
  main?: LightElement,
): string | undefined {
  const name = element.localName;
  if (FORM_CONTROLS.has(name)) return `<${name}>`;
  const measured = stats.get(element);
  const chars = measured?.chars ?? 0;
  const prose = chars - (measured?.linkChars ?? 0);
  // Whatever its name says, an element holding much of the page's prose is (or wraps) the article.
  const wrapper =
    prose >= wholeProse * WRAPPER_SHARE &&
    chars > 500 &&
    (article === undefined || contains(element, article));
  if (FURNITURE_TAGS.has(name)) {
    // A page's footer or aside is no wrapper of the article when the page marks its main content elsewhere.
    const outsideMain = main !== undefined && !contains(element, main) && !contains(main, element);
    return wrapper && !outsideMain ? undefined : `<${name}>`;
  }
  if (!element.hasAttributes()) return undefined;
  const role = element.getAttribute('role');
  if (role && FURNITURE_ROLES.has(role.trim().toLowerCase())) {
    return wrapper ? undefined : byName(element, `role=${role}`);
  }
  if (UNNAMED.has(name)) return undefined;
  const names = classNames(element);
  if (names.length === 0) return undefined;
  const comment = furnitureWord(names, COMMENTS);
  if (comment) {
    if (prose >= wholeProse * 0.75 || labelledLine(element, measured)) return undefined;
    return byName(element, `class/id "${comment}"`);
  }
  const boilerplate = furnitureWord(names, BOILERPLATE);
  if (!boilerplate) return undefined;
  // `toc` names a table of contents, which is links, and as often the sections it points to
  // (`toc_should-you-invest`, `toc-para`, `no_toc_section`), which are prose.
  if (boilerplate === 'toc' && prose >= 200 && (measured?.linkChars ?? 0) < chars * 0.5) return undefined;
  if (wrapper && !names.some((words) => words.some((word) => NEVER_WRAPPER.has(word)))) return undefined;
  return byName(element, `class/id "${boilerplate}"`);
}

/** Longest text read as one labelled line of an item (`Comments: 12 pages, 4 figures`). */
const MAX_LABELLED_LINE_CHARS = 300;
/** A field's label: a few words and a colon at the start of the line. */
const LABEL = /^\s*[\p{L}][\p{L} ]{0,30}:/u;

/**
 * A short line of text that starts with its label (`Comments: 12 pages, 4 figures`, `Replies: none`):
 * one field of an item, named for what it says, not a section of posts. A comment section holds posts
 * (blocks of their own), or links to them.
 */
function labelledLine(element: LightElement, measured: TextStats | undefined): boolean {
  if (!measured || measured.chars === 0 || measured.chars > MAX_LABELLED_LINE_CHARS) return false;
  if (measured.ownChars < measured.chars * 0.9 || measured.linkChars >= measured.chars * 0.5) return false;
  return LABEL.test(element.textContent);
}

/**
 * Whether the element stands in (or is) a block named as what never wraps an article (a cookie or
 * consent panel, a login dialog: `NEVER_WRAPPER`): text found there is that panel's own.
 */
export function insideNeverWrapper(element: LightElement): boolean {
  for (let node: LightElement | null = element; node; node = node.parentNode as LightElement | null) {
    if (node.nodeType !== ELEMENT_NODE) break;
    if (!node.hasAttributes()) continue;
    if (classNames(node).some((words) => words.some((word) => NEVER_WRAPPER.has(word)))) return true;
  }
  return false;
}

/** A verdict by name or role, unless the element is a piece of a sentence. */
function byName(element: LightElement, reason: string): string | undefined {
  return inRunningText(element) ? undefined : reason;
}

function contains(ancestor: LightElement, element: LightElement): boolean {
  for (let node: LightElement | null = element; node; node = node.parentNode as LightElement | null) {
    if (node === ancestor) return true;
  }
  return false;
}
