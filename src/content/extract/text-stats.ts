import { ELEMENT_NODE, TEXT_NODE } from '../html/dom.ts';
import type { LightChildNode, LightElement, LightText } from '../html/light-dom.ts';

/** Elements whose text runs on inside the paragraph around them. */
export const INLINE_ELEMENTS = new Set([
  'a',
  'abbr',
  'acronym',
  'b',
  'bdi',
  'bdo',
  'big',
  'br',
  'cite',
  'code',
  'data',
  'del',
  'dfn',
  'em',
  'font',
  'i',
  'img',
  'ins',
  'kbd',
  'label',
  'mark',
  'math',
  'nobr',
  'q',
  'rp',
  'rt',
  'ruby',
  's',
  'samp',
  'small',
  'span',
  'strike',
  'strong',
  'sub',
  'sup',
  'time',
  'tt',
  'u',
  'var',
  'wbr',
]);

/** Elements whose text is never read (JSON-LD stays in the tree for metadata). */
const UNREAD = new Set(['script', 'style', 'noscript', 'template', 'textarea', 'select', 'button']);

export interface TextStats {
  /** Visible characters below (whitespace not counted). */
  chars: number;
  /** Of those, characters inside links. */
  linkChars: number;
  /** Characters of the text that belongs to this element's own paragraph (not to block children). */
  ownChars: number;
  /** Commas (Latin, Arabic, CJK) in the own paragraph. */
  ownCommas: number;
  /** Of the own paragraph, characters inside links. */
  ownLinkChars: number;
}

/** The text of `root` as a reader gets it: that of scripts, styles, forms' controls and the like left out (`UNREAD`). */
export function readText(root: LightElement): string {
  let text = '';
  const walk = (element: LightElement) => {
    for (const node of element.childNodes) {
      if (node.nodeType === TEXT_NODE) text += (node as LightText).data;
      else if (node.nodeType === ELEMENT_NODE && !UNREAD.has((node as LightElement).localName)) {
        walk(node as LightElement);
      }
    }
  };
  walk(root);
  return text;
}

/** Visible characters of a text: everything but whitespace. */
export function visibleChars(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code > 32 && code !== 160 && code !== 0x3000) count += 1;
  }
  return count;
}

function commaCount(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 44 || code === 0x060c || code === 0x3001 || code === 0xff0c) count += 1;
  }
  return count;
}

/**
 * Text measures of every element below `root` (and `root` itself), in one iterative walk: how much text,
 * how much of it is link text, and how much forms each element's own paragraph.
 */
export function measureText(root: LightElement): Map<LightElement, TextStats> {
  const stats = new Map<LightElement, TextStats>();
  const blank = (): TextStats => ({ chars: 0, linkChars: 0, ownChars: 0, ownCommas: 0, ownLinkChars: 0 });
  stats.set(root, blank());
  // Walk in document order with explicit ancestry: `paragraph` is the nearest non-inline ancestor.
  const path: Array<{ element: LightElement; stats: TextStats; paragraph: TextStats; inLink: boolean }> = [
    { element: root, stats: stats.get(root)!, paragraph: stats.get(root)!, inLink: false },
  ];
  let node: LightChildNode | null = root.firstChild;
  while (node) {
    const top = path[path.length - 1]!;
    if (node.nodeType === TEXT_NODE) {
      const data = (node as LightText).data;
      const chars = visibleChars(data);
      if (chars > 0) {
        top.paragraph.ownChars += chars;
        top.paragraph.ownCommas += commaCount(data);
        if (top.inLink) top.paragraph.ownLinkChars += chars;
        top.stats.chars += chars;
        if (top.inLink) top.stats.linkChars += chars;
      }
    } else if (node.nodeType === ELEMENT_NODE) {
      const element = node as LightElement;
      const own = blank();
      stats.set(element, own);
      if (element.first && !UNREAD.has(element.localName)) {
        const inline = INLINE_ELEMENTS.has(element.localName);
        path.push({
          element,
          stats: own,
          paragraph: inline ? top.paragraph : own,
          inLink: top.inLink || isLink(element),
        });
        node = element.first;
        continue;
      }
    }
    while (node && !node.nextSibling) {
      const parent: LightElement = path[path.length - 1]!.element;
      if (parent === root) {
        node = null;
        break;
      }
      const done = path.pop()!;
      const outer = path[path.length - 1]!.stats;
      outer.chars += done.stats.chars;
      outer.linkChars += done.stats.linkChars;
      node = parent;
    }
    node = node ? node.nextSibling : null;
  }
  return stats;
}

/**
 * An `<a>` with an `href`, `javascript:` ones included: "back", "print" and "show more" controls are
 * link text as much as menus are. A bare anchor without `href` is not a link.
 */
function isLink(element: LightElement): boolean {
  if (element.localName !== 'a') return false;
  const href = element.getAttribute('href');
  return href !== null;
}
