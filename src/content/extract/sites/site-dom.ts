import { ELEMENT_NODE } from '../../html/dom.ts';
import type { LightChildNode, LightDocument, LightElement } from '../../html/light-dom.ts';
import { visibleChars } from '../text-stats.ts';
import type { ContentSelection, Removal } from '../types.ts';

/**
 * Shared by the site extractors: the cheap page signals they detect a site family by (read once per
 * document, from `<html>`, `<body>` and the `<head>`'s `<meta>`/`<link>` tags, never the whole tree),
 * and the small tree walks they run only once a page is theirs.
 */

/** Below this many visible characters a site extractor's choice is no better than the generic one's. */
export const MIN_SITE_CHARS = 250;

export interface PageSignals {
  /** `<meta name="generator">` contents, lower-cased, joined by `|`. */
  generator: string;
  /** `<html>` and `<body>` class words. */
  rootClasses: Set<string>;
  /** A `<head>` link to Sphinx's `genindex.html` or `_static/` assets, or `<html data-content_root>`. */
  sphinxHead: boolean;
}

const signalCache = new WeakMap<LightDocument, PageSignals>();

export function pageSignals(document: LightDocument): PageSignals {
  const cached = signalCache.get(document);
  if (cached) return cached;
  const generators: string[] = [];
  let sphinxHead = document.documentElement.hasAttribute('data-content_root');
  for (const meta of document.head.getElementsByTagName('meta')) {
    if (meta.getAttribute('name')?.trim().toLowerCase() === 'generator') {
      generators.push((meta.getAttribute('content') ?? '').trim().toLowerCase());
    }
  }
  if (!sphinxHead) {
    for (const link of document.head.getElementsByTagName('link')) {
      const href = link.getAttribute('href') ?? '';
      if (href.endsWith('genindex.html') || href.includes('_static/pygments.css')) {
        sphinxHead = true;
        break;
      }
    }
  }
  const rootClasses = new Set([...classList(document.documentElement), ...classList(document.body)]);
  const signals = { generator: generators.join('|'), rootClasses, sphinxHead };
  signalCache.set(document, signals);
  return signals;
}

/** The page's host name, lower-cased, without a leading `www.`; `''` when unknown. */
export function hostOf(url: URL | undefined): string {
  return url ? url.hostname.toLowerCase().replace(/^www\./, '') : '';
}

export function classList(element: LightElement): string[] {
  const value = element.getAttribute('class');
  return value ? value.trim().split(/\s+/) : [];
}

export function hasClass(element: LightElement, name: string): boolean {
  const value = element.getAttribute('class');
  if (!value?.includes(name)) return false;
  return value.split(/\s+/).includes(name);
}

/** Elements below `root` (not `root` itself) in document order. */
export function* descendants(root: LightElement): Generator<LightElement> {
  let node: LightChildNode | null = root.first;
  while (node) {
    if (node.nodeType === ELEMENT_NODE) {
      const element = node as LightElement;
      yield element;
      if (element.first) {
        node = element.first;
        continue;
      }
    }
    node = nextOutside(node, root);
  }
}

/** The node after `node` and everything inside it, in document order, staying below `root`; null at the end. */
function nextOutside(node: LightChildNode, root: LightElement): LightChildNode | null {
  let current: LightChildNode | null = node;
  while (current && !current.nextSibling) {
    const parent: LightElement | null = current.parentNode as LightElement | null;
    current = parent === root || !parent ? null : parent;
  }
  return current ? current.nextSibling : null;
}

export function findFirst(
  root: LightElement,
  test: (element: LightElement) => boolean,
): LightElement | undefined {
  for (const element of descendants(root)) if (test(element)) return element;
  return undefined;
}

/** Matches below `root`, outermost only: nothing inside a match is visited. */
export function findAll(root: LightElement, test: (element: LightElement) => boolean): LightElement[] {
  const found: LightElement[] = [];
  let node: LightChildNode | null = root.first;
  while (node) {
    if (node.nodeType === ELEMENT_NODE) {
      const element = node as LightElement;
      if (test(element)) found.push(element);
      else if (element.first) {
        node = element.first;
        continue;
      }
    }
    node = nextOutside(node, root);
  }
  return found;
}

export function byId(id: string): (element: LightElement) => boolean {
  return (element) => element.getAttribute('id') === id;
}

export function byClass(name: string, tag?: string): (element: LightElement) => boolean {
  return (element) => (tag === undefined || element.localName === tag) && hasClass(element, name);
}

export function textChars(elements: LightElement[]): number {
  let chars = 0;
  for (const element of elements) chars += visibleChars(element.textContent);
  return chars;
}

export function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Collects what a site extractor took out of its content, in the shape of the generic one's removals. */
export class SiteRemovals {
  readonly list: Removal[] = [];
  readonly step: string;
  constructor(step: string) {
    this.step = step;
  }

  /** Take out every element below the roots that `test` matches, with `reason`. */
  drop(roots: LightElement[], test: (element: LightElement) => string | undefined): void {
    for (const root of roots) {
      const matches: [LightElement, string][] = [];
      for (const element of findAll(root, (element) => test(element) !== undefined)) {
        matches.push([element, test(element)!]);
      }
      for (const [element, reason] of matches) this.remove(element, reason);
    }
  }

  remove(element: LightElement, reason: string): void {
    const text = squash(element.textContent);
    this.list.push({
      step: this.step,
      selector: element.describe(),
      reason,
      text: text.length > 60 ? `${text.slice(0, 60)}…` : text,
    });
    element.remove();
  }
}

/** Whether the roots hold enough text to be worth claiming the page: checked before anything is changed. */
export function enough(roots: LightElement[]): boolean {
  return roots.length > 0 && textChars(roots) >= MIN_SITE_CHARS;
}

export function selection(
  extractor: string,
  roots: LightElement[],
  removals: SiteRemovals,
  title?: string,
): ContentSelection {
  return { extractor, roots, title: title || undefined, removals: removals.list };
}
