import { type DomElement, type DomNode, type DomText, ELEMENT_NODE, TEXT_NODE } from './dom.ts';
import {
  renderBlock,
  renderBlockquote,
  renderHeading,
  renderList,
  renderPreformatted,
  renderRule,
  renderStrayListItem,
} from './render-blocks.ts';
import { emphasis, renderImage, renderInlineCode, renderLink, renderMath } from './render-inline.ts';
import { renderTable } from './render-table.ts';
import {
  type ElementRenderer,
  finish,
  type Heading,
  newSink,
  type SerializeContext,
  type Sink,
} from './sink.ts';
import { collapseWhitespace } from './whitespace.ts';

export interface SerializeOptions {
  mode: 'markdown' | 'text';
  /** Base for relative links and images; without one they stay as written. */
  baseUrl: URL | undefined;
  /** Filled with the headings written, in document order (for the outline). */
  headings?: Heading[] | undefined;
}

/**
 * Write an element's content as Markdown or plain text. Recursive: callers keep the tree shallow
 * (see `limitNesting`) or use `flatText` for anything deeper.
 */
export function serializeContent(root: DomElement, options: SerializeOptions): string {
  const context: SerializeContext = {
    markdown: options.mode === 'markdown',
    baseUrl: options.baseUrl,
    inLink: false,
    inHeading: false,
    headings: options.headings,
    renderChildren,
  };
  const sink = newSink();
  renderChildren(root, sink);
  return finish(sink, context);

  function renderChildren(parent: DomNode, into: Sink): void {
    for (let child = parent.firstChild; child; child = child.nextSibling) renderNode(child, into);
  }

  function renderNode(node: DomNode, into: Sink): void {
    if (node.nodeType === TEXT_NODE) {
      const text = collapseWhitespace((node as DomText).data);
      into.inline.push(context.inLink && context.markdown ? text.replace(/[[\]]/g, '\\$&') : text);
      return;
    }
    if (node.nodeType !== ELEMENT_NODE) return;
    const element = node as DomElement;
    const name = element.localName;
    if (SKIPPED.has(name)) return;
    const render = RENDERERS.get(name);
    if (render) render(element, into, context);
    else if (INLINE.has(name)) renderChildren(element, into);
    else renderBlock(element, into, context);
  }
}

/** Never read: not content, form controls, media without text, ruby annotations. */
const SKIPPED = new Set([
  'head',
  'title',
  'meta',
  'link',
  'base',
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'frame',
  'object',
  'embed',
  'param',
  'svg',
  'canvas',
  'video',
  'audio',
  'source',
  'track',
  'map',
  'area',
  'input',
  'select',
  'option',
  'optgroup',
  'datalist',
  'textarea',
  'button',
  'rt',
  'rp',
  'noembed',
  'dialog',
]);

/** Inline elements read as their text; everything unknown is treated as a block so words never fuse. */
const INLINE = new Set([
  'abbr',
  'acronym',
  'bdi',
  'bdo',
  'big',
  'cite',
  'data',
  'dfn',
  'font',
  'ins',
  'label',
  'mark',
  'nobr',
  'q',
  'ruby',
  'small',
  'span',
  'sub',
  'sup',
  'time',
  'u',
  'var',
  'wbr',
  'output',
  'meter',
  'progress',
  'picture',
  'slot',
  'blink',
]);

const lineBreak: ElementRenderer = (_element, sink) => {
  sink.inline.push('\n');
};

const RENDERERS = new Map<string, ElementRenderer>([
  ['h1', renderHeading],
  ['h2', renderHeading],
  ['h3', renderHeading],
  ['h4', renderHeading],
  ['h5', renderHeading],
  ['h6', renderHeading],
  ['ul', renderList],
  ['ol', renderList],
  ['menu', renderList],
  ['li', renderStrayListItem],
  ['blockquote', renderBlockquote],
  ['pre', renderPreformatted],
  ['xmp', renderPreformatted],
  ['listing', renderPreformatted],
  ['plaintext', renderPreformatted],
  ['table', renderTable],
  ['hr', renderRule],
  ['br', lineBreak],
  ['img', renderImage],
  ['a', renderLink],
  ['strong', emphasis('**')],
  ['b', emphasis('**')],
  ['em', emphasis('*')],
  ['i', emphasis('*')],
  ['del', emphasis('~~')],
  ['s', emphasis('~~')],
  ['strike', emphasis('~~')],
  ['code', renderInlineCode],
  ['kbd', renderInlineCode],
  ['samp', renderInlineCode],
  ['tt', renderInlineCode],
  ['math', renderMath],
]);
