import { type DomElement, type DomNode, type DomText, ELEMENT_NODE, TEXT_NODE } from './dom.ts';
import { type ElementRenderer, finish, flush, newSink, pushBlock, renderContainer } from './sink.ts';
import { tidyLines } from './whitespace.ts';

/** Block container (`<p>`, `<div>`, `<section>`, unknown elements): its content is a paragraph apart. */
export const renderBlock: ElementRenderer = (element, sink, context) => {
  flush(sink, context);
  context.renderChildren(element, sink);
  flush(sink, context);
};

/** `## Heading` on one line (plain line in text mode); emphasis inside is dropped. */
export const renderHeading: ElementRenderer = (element, sink, context) => {
  const inner = newSink();
  const wasInHeading = context.inHeading;
  context.inHeading = true;
  let text: string;
  try {
    context.renderChildren(element, inner);
    text = finish(inner, context, ' ').replace(/\s*\n\s*/g, ' ');
  } finally {
    context.inHeading = wasInHeading;
  }
  if (!text) return flush(sink, context);
  if (context.inTableCell) return pushBlock(sink, context, text);
  const level = Number(element.localName.slice(1)) || 1;
  context.headings?.push({ level, text });
  pushBlock(sink, context, context.markdown ? `${'#'.repeat(level)} ${text}` : text);
};

/** `- item` / `1. item` lines; nested lists and extra paragraphs are indented under their item. */
export const renderList: ElementRenderer = (element, sink, context) => {
  const ordered = element.localName === 'ol';
  const reversed = ordered && element.hasAttribute('reversed');
  let number = ordered ? listStart(element, reversed) : 0;
  const items: string[] = [];
  for (let child = element.firstChild; child; child = child.nextSibling) {
    const content = listItemContent(child, context);
    if (!content) continue;
    if (isList(child) && items.length > 0) {
      items[items.length - 1] += `\n${indent(content, '  ')}`;
      continue;
    }
    const marker = ordered ? `${number}.` : '-';
    number = reversed ? Math.max(0, number - 1) : number + 1;
    items.push(indent(content, ' '.repeat(marker.length + 1), `${marker} `));
  }
  pushBlock(sink, context, items.join('\n'));
};

/** A `<li>` outside any list still reads as an item. */
export const renderStrayListItem: ElementRenderer = (element, sink, context) => {
  pushBlock(sink, context, indent(renderContainer(element, context, '\n'), '  ', '- '));
};

function listItemContent(child: DomNode, context: Parameters<ElementRenderer>[2]): string {
  if (child.nodeType === TEXT_NODE) return tidyLines((child as DomText).data.replace(/\s+/g, ' '));
  if (child.nodeType !== ELEMENT_NODE) return '';
  const element = child as DomElement;
  if (isList(element)) {
    const nested = newSink();
    renderList(element, nested, context);
    return finish(nested, context);
  }
  return renderContainer(element, context, '\n');
}

function isList(node: DomNode): boolean {
  return node.nodeName === 'UL' || node.nodeName === 'OL';
}

/** The first item's number: `start`, else 1 (or, counting down in a `reversed` list, the number of items). */
function listStart(list: DomElement, reversed: boolean): number {
  const start = Number.parseInt(list.getAttribute('start') ?? '', 10);
  if (Number.isFinite(start) && start >= 0 && start < 1e9) return start;
  return reversed ? Math.max(1, [...list.children].filter((child) => child.localName === 'li').length) : 1;
}

/** Prefix the first line with `first` and indent the other non-empty lines with `rest`. */
function indent(text: string, rest: string, first = rest): string {
  return text
    .split('\n')
    .map((line, index) => (index === 0 ? first + line : line ? rest + line : line))
    .join('\n');
}

/** `> quoted` lines in Markdown; the plain paragraphs in text mode. */
export const renderBlockquote: ElementRenderer = (element, sink, context) => {
  const content = renderContainer(element, context);
  const quoted = context.markdown ? content.replace(/^/gm, '> ').replace(/^> $/gm, '>') : content;
  pushBlock(sink, context, content ? quoted : '');
};

/** A fenced code block with the language from `language-x`/`lang-x` (raw text in text mode). */
export const renderPreformatted: ElementRenderer = (element, sink, context) => {
  const code = preformattedText(element).replace(/^\n/, '').trimEnd();
  if (code.trim() === '') return flush(sink, context);
  if (!context.markdown) return pushBlock(sink, context, code);
  const longestRun = (code.match(/`{3,}/g) ?? []).reduce((longest, run) => Math.max(longest, run.length), 0);
  const fence = '`'.repeat(Math.max(3, longestRun + 1));
  pushBlock(sink, context, `${fence}${codeLanguage(element)}\n${code}\n${fence}`);
};

/** `---` between sections in Markdown; a paragraph break in text mode. */
export const renderRule: ElementRenderer = (_element, sink, context) => {
  pushBlock(sink, context, context.markdown ? '---' : '');
};

const LINE_ELEMENTS = new Set(['DIV', 'P', 'LI', 'TR']);
const SKIPPED_IN_CODE = new Set(['BUTTON', 'SCRIPT', 'STYLE', 'NOSCRIPT']);

/** The text of a `<pre>` as shown: `<br>` and line-per-`<div>` highlighters become newlines. */
function preformattedText(node: DomNode): string {
  let text = '';
  for (let child = node.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === TEXT_NODE) text += (child as DomText).data;
    else if (child.nodeType !== ELEMENT_NODE || SKIPPED_IN_CODE.has(child.nodeName)) continue;
    else if (child.nodeName === 'BR') text += '\n';
    else {
      if (LINE_ELEMENTS.has(child.nodeName) && text && !text.endsWith('\n')) text += '\n';
      text += preformattedText(child);
    }
  }
  return text;
}

const LANGUAGE_CLASS = /(?:^|\s)(?:lang(?:uage)?|highlight-source)-([\w+#.-]+)/i;

function codeLanguage(pre: DomElement): string {
  const code = pre.firstElementChild?.localName === 'code' ? pre.firstElementChild : undefined;
  for (const element of [pre, code, pre.parentNode as DomElement | null]) {
    if (!element || element.nodeType !== ELEMENT_NODE) continue;
    const fromClass = LANGUAGE_CLASS.exec(element.getAttribute('class') ?? '')?.[1];
    const language = fromClass ?? element.getAttribute('data-lang') ?? element.getAttribute('data-language');
    if (language && /^[\w+#.-]+$/.test(language)) return language.toLowerCase();
  }
  return '';
}
