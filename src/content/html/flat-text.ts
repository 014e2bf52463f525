import { type DomNode, type DomText, ELEMENT_NODE, TEXT_NODE } from './dom.ts';
import { collapseWhitespace } from './whitespace.ts';

const SKIPPED = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'BUTTON', 'SELECT', 'TEXTAREA']);
const INLINE = new Set([
  'A',
  'ABBR',
  'B',
  'CITE',
  'CODE',
  'EM',
  'FONT',
  'I',
  'LABEL',
  'MARK',
  'Q',
  'S',
  'SMALL',
  'SPAN',
  'STRONG',
  'SUB',
  'SUP',
  'TIME',
  'U',
]);

/**
 * Plain text of a subtree of any depth, without recursion: text nodes in document order, with a
 * paragraph break wherever a block element starts or ends. The last resort for trees the structured
 * writers cannot take.
 */
export function flatText(root: DomNode): string {
  const parts: string[] = [];
  let node: DomNode | null = root.firstChild;
  while (node && node !== root) {
    const isElement = node.nodeType === ELEMENT_NODE;
    if (node.nodeType === TEXT_NODE) parts.push(collapseWhitespace((node as DomText).data));
    else if (isElement && node.nodeName === 'BR') parts.push('\n');
    else if (isElement && !SKIPPED.has(node.nodeName) && !INLINE.has(node.nodeName)) parts.push('\n\n');
    if (isElement && node.firstChild && !SKIPPED.has(node.nodeName)) {
      node = node.firstChild;
      continue;
    }
    while (node && node !== root && !node.nextSibling) {
      node = node.parentNode;
      if (node && node.nodeType === ELEMENT_NODE && !INLINE.has(node.nodeName)) parts.push('\n\n');
    }
    node = node && node !== root ? node.nextSibling : null;
  }
  return parts
    .join('')
    .replace(/[ \t]*\n[ \t]*/g, '\n')
    .replace(/ {2,}/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
