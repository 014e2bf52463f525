import { parseHTML } from 'linkedom';
import type { DomDocument, DomElement } from './dom.ts';

/** Parse HTML into a linkedom document that always has `<html>`, `<head>` and `<body>`. */
export function parseDocument(html: string): DomDocument {
  let document = parseHTML(html).document as unknown as DomDocument;
  if (document.documentElement?.tagName !== 'HTML') {
    // linkedom builds no implied <html> for fragments ("<p>hi"): wrap and parse again.
    document = parseHTML(`<!DOCTYPE html><html><head></head><body>${html}</body></html>`)
      .document as unknown as DomDocument;
  }
  ensureHeadAndBody(document, document.documentElement);
  return document;
}

/** `<html><head>…</head><p>…</html>` has no `<body>` in linkedom: move everything but `<head>` into one
 * (and add an empty `<head>` where there is none). */
function ensureHeadAndBody(document: DomDocument, root: DomElement): void {
  let head: DomElement | undefined;
  for (let child = root.firstElementChild; child; child = child.nextElementSibling) {
    if (child.tagName === 'HEAD') head = child;
    if (child.tagName !== 'BODY') continue;
    if (!head) root.insertBefore(document.createElement('head'), child);
    return;
  }
  const body = document.createElement('body');
  for (const child of [...root.childNodes]) {
    if (child !== head) body.appendChild(child);
  }
  if (!head) root.appendChild(document.createElement('head'));
  root.appendChild(body);
}
