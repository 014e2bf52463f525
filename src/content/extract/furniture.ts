import type { LightElement } from '../html/light-dom.ts';
import { BOILERPLATE, COMMENTS, classNames, furnitureWord } from './class-words.ts';
import type { TextStats } from './text-stats.ts';

/** Elements that are never the article, wherever they stand. */
const FURNITURE_TAGS = new Set(['nav', 'aside', 'footer', 'dialog', 'form']);
/** Controls and embeds: never text to read. */
const FORM_CONTROLS = new Set(['button', 'select', 'input', 'textarea', 'iframe', 'object', 'embed']);
/** Elements whose class names do not make them furniture: the page, the article, its headings. */
const UNNAMED = new Set(['body', 'main', 'article', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

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

/** A wrapper holding at least this share of the page's text is never furniture by its name alone. */
const WRAPPER_SHARE = 0.4;

/**
 * Why an element is page furniture, or `undefined`. Tags and roles decide on their own; class and id
 * words (`share-bar`, `related-posts`, `commentlist`) decide unless content words come with them
 * (`entry-content`) or the element holds much of the page's text.
 */
export function furnitureReason(
  element: LightElement,
  stats: Map<LightElement, TextStats>,
  bodyChars: number,
): string | undefined {
  const name = element.localName;
  if (FORM_CONTROLS.has(name)) return `<${name}>`;
  const chars = stats.get(element)?.chars ?? 0;
  // Whatever its name says, an element holding much of the page's text is (or wraps) the article.
  const wrapper = chars >= bodyChars * WRAPPER_SHARE && chars > 500;
  if (FURNITURE_TAGS.has(name)) return wrapper ? undefined : `<${name}>`;
  if (!element.hasAttributes()) return undefined;
  const role = element.getAttribute('role');
  if (role && FURNITURE_ROLES.has(role.trim().toLowerCase())) return wrapper ? undefined : `role=${role}`;
  if (UNNAMED.has(name)) return undefined;
  const names = classNames(element);
  if (names.length === 0) return undefined;
  const comment = furnitureWord(names, COMMENTS);
  if (comment) return chars < bodyChars * 0.75 ? `class/id "${comment}"` : undefined;
  const boilerplate = furnitureWord(names, BOILERPLATE);
  return boilerplate && !wrapper ? `class/id "${boilerplate}"` : undefined;
}
