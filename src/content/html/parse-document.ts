import { Parser } from 'htmlparser2';
import { LightDocument, type LightElement, LightText } from './light-dom.ts';
import { SUSPENSE_END } from './react-streaming.ts';
import { VOID_ELEMENTS } from './void-elements.ts';

/** Elements that stay in `<head>` when they come before any content. */
const HEAD_ELEMENTS = new Set(['title', 'meta', 'link', 'base', 'script', 'style', 'template', 'noscript']);
const WHITESPACE_ONLY = /^[\t\n\f\r ]*$/;

/**
 * Parse HTML into a `LightDocument` that always has `<html>`, `<head>` and `<body>`, without running
 * anything. htmlparser2 tokenises and keeps its open-element stack (implied end tags, void elements);
 * this builder mirrors that stack and places what comes before the body the way a browser does: head
 * elements into `<head>`, the first content into `<body>`. `<html>` and `<body>` attributes (`lang`,
 * `dir`) land on the document's own elements. Comments are dropped, but for React's `<!--/$-->`, which
 * leaves an empty `<template data-suspense-end>` (see `revealStreamedContent`).
 */
export function parseDocument(html: string): LightDocument {
  const document = new LightDocument();
  const { documentElement: root, head, body } = document;
  /** htmlparser2's open elements, innermost last: what each open tag became here. */
  const open: LightElement[] = [];
  /** Their tag names (`open` maps `<html>`, `<head>` and `<body>` onto the document's own). */
  const openNames: string[] = [];
  let inBody = false;
  let last: LightElement | undefined;

  /** Where a new element (or text, without a name) goes. */
  function parentFor(name: string | undefined): LightElement {
    const top = open.at(-1);
    if (top !== undefined && top !== root && top !== head) return top;
    if (!inBody && name !== undefined && HEAD_ELEMENTS.has(name)) return head;
    inBody = true;
    return body;
  }

  const parser = new Parser(
    {
      onopentagname(name) {
        let element: LightElement;
        if (name === 'html') element = root;
        else if (name === 'head') element = inBody ? body : head;
        else if (name === 'body') {
          inBody = true;
          element = body;
        } else {
          element = parentFor(name).appendChild(document.createElement(name));
        }
        last = element;
        if (!VOID_ELEMENTS.has(name)) {
          open.push(element);
          openNames.push(name);
        }
      },
      onattribute(name, value) {
        // The first value of a name wins; on <html> and <body>, the first tag's (as in a browser).
        if (last && last.getAttribute(name) === null) {
          last.attributeList.push(name, value);
        }
      },
      onopentag() {
        last = undefined;
      },
      onclosetag(name) {
        if (VOID_ELEMENTS.has(name)) return;
        // At the end of input, htmlparser2 may close a tag whose start was cut off: nothing to pop then.
        if (openNames.at(-1) !== name) return;
        open.pop();
        openNames.pop();
      },
      oncomment(data) {
        if (data !== '/$' || !inBody) return;
        const marker = document.createElement('template');
        marker.attributeList.push(SUSPENSE_END, '');
        parentFor('template').appendChild(marker);
      },
      ontext(data) {
        const top = open.at(-1);
        const inside = top !== undefined && top !== root && top !== head;
        if (!inside && !inBody && WHITESPACE_ONLY.test(data)) return;
        const parent = parentFor(undefined);
        const previous = parent.last;
        if (previous && previous.nodeType === 3) (previous as LightText).data += data;
        else parent.appendChild(new LightText(data));
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  return document;
}
