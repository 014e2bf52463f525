import { stripInvisible } from '../invisible-unicode.ts';
import {
  type DomDocument,
  type DomElement,
  type DomNode,
  type DomText,
  ELEMENT_NODE,
  TEXT_NODE,
} from './dom.ts';
import { hiddenReason } from './hidden-element.ts';
import { revealStreamedContent } from './react-streaming.ts';

/** What the cleaning walk learned about the document, used to pick an extraction strategy. */
export interface DocumentStats {
  elementCount: number;
  /** Deepest element nesting below `<html>`. */
  maxDepth: number;
  /** Characters of visible text (each text node trimmed), a cheap measure of how much there is to read. */
  textLength: number;
}

/** Elements never worth reading; `<script type="application/ld+json">` stays for metadata. */
const REMOVED_ELEMENTS = new Set(['script', 'style', 'template', 'svg', 'canvas']);
/**
 * Below this many characters of visible text outside `<noscript>`, the page is a shell whose only words
 * are in `<noscript>` ("You need to enable JavaScript…"): those are then kept, so the reader can say so.
 */
export const NOSCRIPT_KEEP_BELOW_CHARS = 200;

/**
 * One walk over the whole document (iterative, so depth cannot overflow the stack) that removes what a
 * reader never sees, and so what a prompt injection hides in: scripts, styles, templates, comments,
 * hidden elements (`hidden`, `aria-hidden="true"`, inline styles such as `display:none`, `opacity:0` or
 * off-screen positions, screen-reader-only classes; see `hiddenReason`), `<noscript>` text when the page
 * has text without it, and `data:` images (after promoting a lazy-load URL). Invisible characters
 * (zero-width, tag, bidi control) are taken out of the text nodes that stay. First, content a React page
 * streams in hidden is moved where its script would put it (`revealStreamedContent`).
 */
export function cleanDocument(document: DomDocument): DocumentStats {
  revealStreamedContent(document);
  return cleanTree(document, document.documentElement);
}

/** Clean everything below `root` (not `root` itself). */
function cleanTree(document: DomDocument, root: DomElement): DocumentStats {
  const stats: DocumentStats = { elementCount: 0, maxDepth: 0, textLength: 0 };
  const mathHosts: DomElement[] = [];
  const noscripts: DomElement[] = [];
  let node: DomNode | null = root.firstChild;
  let depth = 1;
  let rootText: number | undefined;
  const mostOfPage = (element: DomElement) => {
    rootText ??= textChars(root);
    return textChars(element) >= rootText * FADE_IN_SHARE;
  };
  while (node) {
    const isElement = node.nodeType === ELEMENT_NODE;
    if (isElement && isMathHost(node as DomElement)) mathHosts.push(node as DomElement);
    if (isElement ? isInvisible(node as DomElement, mostOfPage) : node.nodeType !== TEXT_NODE) {
      const removed: DomNode = node;
      [node, depth] = nextOutside(removed, depth, root);
      removed.remove();
      continue;
    }
    if (isElement && (node as DomElement).localName === 'noscript') {
      // Decided once the rest of the page is measured; its insides are cleaned only if it stays.
      noscripts.push(node as DomElement);
      [node, depth] = nextOutside(node, depth, root);
      continue;
    }
    if (isElement) {
      stats.elementCount += 1;
      if (depth > stats.maxDepth) stats.maxDepth = depth;
      if (node.firstChild) {
        node = node.firstChild;
        depth += 1;
        continue;
      }
    } else if (node.parentNode?.nodeName !== 'SCRIPT') {
      const text = node as DomText;
      const visible = stripInvisible(text.data);
      if (visible !== text.data) text.textContent = visible;
      stats.textLength += visible.trim().length;
    }
    [node, depth] = nextOutside(node, depth, root);
  }
  for (const host of mathHosts) replaceWithMath(document, host);
  settleNoscripts(document, noscripts, stats);
  return stats;
}

/**
 * `<noscript>` text is what a browser without JavaScript shows: on a page with content it is noise (or a
 * hiding place), so it goes; on a near-empty page it is the only honest text, so it is unwrapped (the
 * writers skip `<noscript>`), after its own cleaning. A `<noscript>` holding only images stays, for
 * Readability to swap in for lazy-load placeholders.
 */
function settleNoscripts(document: DomDocument, noscripts: DomElement[], stats: DocumentStats): void {
  const keepText = stats.textLength < NOSCRIPT_KEEP_BELOW_CHARS;
  for (const noscript of noscripts) {
    const hasText = (noscript.textContent ?? '').trim() !== '';
    if (!hasText) continue;
    if (!keepText) {
      noscript.remove();
      continue;
    }
    const parent = noscript.parentNode;
    if (!parent) continue;
    const inner = cleanTree(document, noscript);
    stats.elementCount += inner.elementCount;
    stats.textLength += inner.textLength;
    for (const child of [...noscript.childNodes]) parent.insertBefore(child, noscript);
    noscript.remove();
  }
}

/** The next node in document order that is not inside `node`, with its depth. */
function nextOutside(node: DomNode, depth: number, root: DomNode): [DomNode | null, number] {
  let current = node;
  let currentDepth = depth;
  while (current !== root) {
    const sibling = current.nextSibling;
    if (sibling) return [sibling, currentDepth];
    const parent = current.parentNode;
    if (!parent) break;
    current = parent;
    currentDepth -= 1;
  }
  return [null, currentDepth];
}

/**
 * MathJax hides its MathML from Readability: v3 wraps it in `<mjx-container class="… CtxtMenu …">`
 * ("menu" reads as boilerplate), v2 keeps the TeX in `<script type="math/tex">`. Both become a bare
 * `<math>` element, which the writer renders as TeX or text.
 */
function isMathHost(element: DomElement): boolean {
  return (
    element.localName === 'mjx-container' ||
    (element.localName === 'script' && /^math\/tex/i.test(element.getAttribute('type') ?? ''))
  );
}

function replaceWithMath(document: DomDocument, host: DomElement): void {
  const parent = host.parentNode;
  if (!parent) return;
  let math = host.getElementsByTagName('math')[0];
  if (host.localName === 'script') {
    math = document.createElement('math');
    math.setAttribute('alttext', host.textContent ?? '');
    if (/mode\s*=\s*display/i.test(host.getAttribute('type') ?? '')) math.setAttribute('display', 'block');
  }
  if (math) parent.insertBefore(math, host);
  host.remove();
}

function isInvisible(element: DomElement, mostOfPage: (element: DomElement) => boolean): boolean {
  const name = element.localName;
  if (REMOVED_ELEMENTS.has(name)) return name !== 'script' || !isJsonLd(element);
  if (name === 'img') return !keepImage(element);
  const hiddenBy = hiddenReason(element);
  // A page faded in as it loads (Webflow's `<div class="page-wrapper" style="opacity:0">`) or held out of sight
  // until its styles are in (Next.js and Gatsby's `<div style="visibility:hidden">` around the whole app) is the page.
  if (hiddenBy === 'opacity:0' || hiddenBy === 'visibility:hidden') return !mostOfPage(element);
  return hiddenBy !== undefined;
}

/**
 * Share of the page's text an `opacity:0` or `visibility:hidden` element must hold to be a fade-in (or a page
 * kept out of sight until its styles load) rather than hidden text: a
 * script shows it once the page loads, and no page hides most of what it says from its readers.
 */
const FADE_IN_SHARE = 0.5;

/** Characters of text below `root`, outside elements never read (scripts, styles, `<noscript>`). */
function textChars(root: DomElement): number {
  let chars = 0;
  const pending: DomNode[] = [root];
  while (pending.length > 0) {
    const node = pending.pop()!;
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === TEXT_NODE) chars += (child as DomText).data.trim().length;
      else if (child.nodeType === ELEMENT_NODE) {
        const name = (child as DomElement).localName;
        if (!REMOVED_ELEMENTS.has(name) && name !== 'noscript') pending.push(child);
      }
    }
  }
  return chars;
}

function isJsonLd(script: DomElement): boolean {
  return script.getAttribute('type')?.trim().toLowerCase() === 'application/ld+json';
}

const LAZY_SOURCE_ATTRIBUTES = ['data-src', 'data-original', 'data-lazy-src', 'data-url', 'data-hi-res-src'];
const IMAGE_URL = /^\s*\S+\.(?:jpe?g|png|webp|gif|avif)(?:[?#]\S*)?\s*$/i;
const DATA_URL = /^\s*data:/i;

/**
 * Keep an image only if it can have a real URL: a `data:` placeholder gives way to a lazy-load URL
 * (`data-src` & co., or any attribute holding an image URL) or to a `srcset`; otherwise it is dropped.
 */
function keepImage(image: DomElement): boolean {
  const src = image.getAttribute('src');
  if (src !== null && src.trim() !== '' && !DATA_URL.test(src)) return true;
  const lazy = lazyImageUrl(image);
  if (lazy) {
    image.setAttribute('src', lazy);
    return true;
  }
  if (src !== null) image.removeAttribute('src');
  const srcset = image.getAttribute('srcset');
  return srcset !== null && srcset.trim() !== '' && !DATA_URL.test(srcset);
}

function lazyImageUrl(image: DomElement): string | undefined {
  for (const name of LAZY_SOURCE_ATTRIBUTES) {
    const value = image.getAttribute(name);
    if (value && !DATA_URL.test(value)) return value.trim();
  }
  for (const attribute of image.attributes) {
    if (attribute.name !== 'src' && attribute.name !== 'srcset' && IMAGE_URL.test(attribute.value)) {
      return attribute.value.trim();
    }
  }
  return undefined;
}
