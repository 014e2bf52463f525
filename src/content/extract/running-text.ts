import { ELEMENT_NODE, TEXT_NODE } from '../html/dom.ts';
import type { LightChildNode, LightElement, LightText } from '../html/light-dom.ts';
import { BOILERPLATE, COMMENTS, classNames, furnitureWord } from './class-words.ts';
import { INLINE_ELEMENTS } from './text-stats.ts';

/** Words of the text around an inline element that make it part of a sentence. */
const MIN_WORDS_AROUND = 3;
/** A word with a letter in it: prices and counts around a button ("Classic $1,395") make no sentence. */
const WORD = /[\p{N}_]*\p{L}[\p{L}\p{N}_]*/gu;
/** Class names (Tailwind, Bootstrap) and inline styles that lay an inline element out as a block. */
const BLOCK_CLASSES = new Set(['block', 'flex', 'grid', 'd-block', 'd-flex', 'd-grid']);
const BLOCK_STYLE = /(?:^|;)\s*display\s*:\s*(?:block|flex|grid|table|list-item)\b/i;

/**
 * Whether `element` is an inline element (a link, a `<span>`, `<em>`, `<time>`, …) inside running text:
 * on its line (up to the `<br>` or block before and after it) the block it stands in has words of its own
 * (`MIN_WORDS_AROUND`, each with a letter), in text directly in the block or its inline wrappers, or in
 * inline siblings that are neither links nor `named` as furniture. Such an element is a piece of a
 * sentence: `lift trade sanctions on <a class="meta-loc">Sudan</a> and` loses a word if it goes, whatever
 * its class or id says, so no step removes it by name while its block stays.
 *
 * Not pieces of a sentence: a share bar of links (no words around them), a label's `More from` or a
 * byline's `By` (too few), a card's `Classic $1,395 <a class="cta">Try it</a> <a>Learn more</a>` (prices
 * and other links do not count), an inline element holding blocks (a tooltip's `<span class="overlay">`
 * around its `<div>`s) or laid out as one (`<span class="block text-meta">`).
 */
export function inRunningText(
  element: LightElement,
  named: (sibling: LightElement) => boolean = namedFurniture,
): boolean {
  if (!INLINE_ELEMENTS.has(element.localName) || laidOutAsBlock(element) || holdsBlocks(element))
    return false;
  const wrappers = new Set<LightElement>();
  let block = element.parentNode as LightElement | null;
  while (block && INLINE_ELEMENTS.has(block.localName)) {
    wrappers.add(block);
    block = block.parentNode as LightElement | null;
  }
  if (!block || block.nodeType !== ELEMENT_NODE) return false;
  // The block's inline content in document order, cut into lines at `<br>`s and nested blocks: the words
  // on the element's own line count.
  let before = 0;
  let after = 0;
  let seen = false;
  const stack: Array<LightChildNode | null> = [block.firstChild];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!node) continue;
    stack.push(node.nextSibling);
    if (node.nodeType === TEXT_NODE) {
      const count = countWords((node as LightText).data);
      if (seen) after += count;
      else before += count;
    } else if (node === element) {
      seen = true;
    } else if (node.nodeType === ELEMENT_NODE) {
      const sibling = node as LightElement;
      if (sibling.localName === 'br' || !INLINE_ELEMENTS.has(sibling.localName)) {
        if (seen) break;
        before = 0;
      } else if (wrappers.has(sibling) || (sibling.localName !== 'a' && !named(sibling))) {
        stack.push(sibling.firstChild);
      }
    }
  }
  return before + after >= MIN_WORDS_AROUND;
}

function countWords(text: string): number {
  let count = 0;
  for (const _ of text.matchAll(WORD)) count += 1;
  return count;
}

/** Whether an element's class or id names it furniture (`BOILERPLATE`, `COMMENTS`). */
export function namedFurniture(element: LightElement): boolean {
  if (!element.hasAttributes()) return false;
  const names = classNames(element);
  return (
    names.length > 0 &&
    (furnitureWord(names, BOILERPLATE) !== undefined || furnitureWord(names, COMMENTS) !== undefined)
  );
}

/** Elements that start a block of their own (an icon's `<svg>` inside a link does not). */
const BLOCKS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'ul',
]);

function laidOutAsBlock(element: LightElement): boolean {
  const classes = element.getAttribute('class');
  if (classes?.split(/\s+/).some((name) => BLOCK_CLASSES.has(name))) return true;
  const style = element.getAttribute('style');
  return style !== null && BLOCK_STYLE.test(style);
}

function holdsBlocks(element: LightElement): boolean {
  return element.getElementsByTagName('*').some((descendant) => BLOCKS.has(descendant.localName));
}
