import type { DomElement, DomNode } from './dom.ts';
import { tidyLines } from './whitespace.ts';

/** Output being built for one container: finished blocks plus the inline run of the current paragraph. */
export interface Sink {
  blocks: string[];
  inline: string[];
}

export interface SerializeContext {
  /** Markdown when true, plain text otherwise. */
  readonly markdown: boolean;
  readonly baseUrl: URL | undefined;
  inLink: boolean;
  inHeading: boolean;
  /** Rendering a table cell's content: a heading there is the cell's label, plain text on the cell's line. */
  inTableCell?: boolean;
  /** Where headings are recorded as they are written, when the caller wants an outline. */
  readonly headings?: Heading[] | undefined;
  /** Render an element's children into a sink (the walker, handed to the renderers). */
  renderChildren(parent: DomNode, sink: Sink): void;
}

/** A heading as written: its level (1–6) and its text without markup. */
export interface Heading {
  level: number;
  text: string;
}

/** Renders one element into the sink. */
export type ElementRenderer = (element: DomElement, sink: Sink, context: SerializeContext) => void;

export function newSink(): Sink {
  return { blocks: [], inline: [] };
}

/** Close the current paragraph: its tidied inline text becomes a block. */
export function flush(sink: Sink, context: SerializeContext): void {
  if (sink.inline.length === 0) return;
  const text = tidyLines(sink.inline.join(''));
  sink.inline.length = 0;
  if (text) sink.blocks.push(context.markdown && !context.inHeading ? escapeLineStarts(text) : text);
}

/** Start a block of its own: the paragraph before it ends first. */
export function pushBlock(sink: Sink, context: SerializeContext, block: string): void {
  flush(sink, context);
  if (block) sink.blocks.push(block);
}

/** Everything in the sink as text, blocks separated by blank lines (or by `separator`). */
export function finish(sink: Sink, context: SerializeContext, separator = '\n\n'): string {
  flush(sink, context);
  return sink.blocks.join(separator);
}

/** An element's children rendered on their own, as finished text. */
export function renderContainer(element: DomElement, context: SerializeContext, separator = '\n\n'): string {
  const sink = newSink();
  context.renderChildren(element, sink);
  return finish(sink, context, separator);
}

/**
 * Render children inline and hand their text to `wrap`; when they turned out to hold blocks, or no
 * text, they stay as rendered (unwrapped).
 */
export function wrapChildren(
  element: DomElement,
  sink: Sink,
  context: SerializeContext,
  wrap: (text: string) => string,
): void {
  const start = sink.inline.length;
  const blockCount = sink.blocks.length;
  context.renderChildren(element, sink);
  if (sink.blocks.length !== blockCount || sink.inline.length === start) return;
  const inner = sink.inline.splice(start).join('');
  const match = /^(\s*)([\s\S]*?)(\s*)$/.exec(inner)!;
  const core = match[2]!;
  sink.inline.push(core ? `${match[1]}${wrap(core)}${match[3]}` : inner);
}

/** Text that would read as Markdown structure at the start of a line gets a backslash. */
function escapeLineStarts(text: string): string {
  return text
    .replace(/^(#{1,6}(?:\s|$)|>|[-+*]\s|`{3}|~{3}|[=-]{2,}$)/gm, '\\$1')
    .replace(/^(\d+)([.)]\s)/gm, '$1\\$2');
}
