import type { DomDocument, DomElement, DomNode } from './dom.ts';

/**
 * The attribute `parseDocument` puts on the empty `<template>` it leaves where React's `<!--/$-->`
 * comment closed a Suspense boundary's fallback (comments themselves are not kept).
 */
export const SUSPENSE_END = 'data-suspense-end';

/** `$RC("B:0","S:0")` completes boundary B:0 with segment S:0; `$RS("S:1","P:1")` fills placeholder P:1. */
const CALL = /\$R([CS])\(\s*"([^"]+)"\s*,\s*"([^"]+)"/g;

/**
 * React's streamed server rendering (Next.js and the like) sends the content of a Suspense boundary late,
 * in `<div hidden id="S:…">` at the end of the body, and a small inline script (`$RC`, `$RS`) moves it
 * into place, over the boundary's "Loading…" fallback, as the page loads. Without scripts the text stays
 * hidden and the fallback shows: this does what the script would, before hidden elements are removed.
 * Only pairs named by the page's own scripts are moved.
 */
export function revealStreamedContent(document: DomDocument): void {
  const moves: Array<{ target: string; source: string; boundary: boolean }> = [];
  for (const script of document.getElementsByTagName('script')) {
    const code = script.textContent ?? '';
    if (!code.includes('$R')) continue;
    for (const [, kind, first = '', second = ''] of code.matchAll(CALL)) {
      moves.push(
        kind === 'C'
          ? { target: first, source: second, boundary: true }
          : { target: second, source: first, boundary: false },
      );
    }
  }
  if (moves.length === 0) {
    revealUnplaced(document);
    return;
  }
  const byId = new Map<string, DomElement>();
  for (const name of ['template', 'div']) {
    for (const element of document.getElementsByTagName(name)) {
      const id = element.getAttribute('id');
      if (id && /^[BPS]:/.test(id) && !byId.has(id)) byId.set(id, element);
    }
  }
  for (const { target, source, boundary } of moves) {
    const template = byId.get(target);
    const segment = byId.get(source);
    if (!template?.parentNode || !segment?.hasAttribute('hidden')) continue;
    const parent = template.parentNode;
    if (boundary) removeFallback(template);
    while (segment.firstChild) parent.insertBefore(segment.firstChild, template);
    template.remove();
    segment.remove();
  }
}

/**
 * Segments streamed in (`<div hidden id="S:n">`) on a page whose scripts never came to place them (a page
 * cut short: a size limit, a crawl that stopped early) are shown where they stand, each only when its
 * Suspense boundary or placeholder (`<template id="B:n">`, `P:n`) is on the page: evidence that React
 * streamed it, not a block someone hid.
 */
function revealUnplaced(document: DomDocument): void {
  const awaited = new Set<string>();
  for (const template of document.getElementsByTagName('template')) {
    const id = template.getAttribute('id')?.match(/^[BP]:(\d+)$/)?.[1];
    if (id !== undefined) awaited.add(id);
  }
  if (awaited.size === 0) return;
  for (const element of document.getElementsByTagName('div')) {
    const id = element.getAttribute('id')?.match(/^S:(\d+)$/)?.[1];
    if (id !== undefined && awaited.has(id) && element.hasAttribute('hidden'))
      element.removeAttribute('hidden');
  }
}

/** The fallback after a boundary's template, up to the end marker; nothing when there is no marker. */
function removeFallback(template: DomElement): void {
  const fallback: DomNode[] = [];
  for (let node = template.nextSibling; node; node = node.nextSibling) {
    if (node.nodeType === 1 && (node as DomElement).hasAttribute(SUSPENSE_END)) {
      for (const each of fallback) each.remove();
      return;
    }
    fallback.push(node);
  }
}
