import type { DomElement } from './dom.ts';
import { resolveImage, resolveLink } from './resolve-url.ts';
import { type ElementRenderer, pushBlock, wrapChildren } from './sink.ts';
import { collapseWhitespace } from './whitespace.ts';

/** `**bold**`, `*italic*`, `~~struck~~` in Markdown (not inside headings); just the text otherwise. */
export function emphasis(marker: string): ElementRenderer {
  return (element, sink, context) => {
    if (!context.markdown || context.inHeading) return context.renderChildren(element, sink);
    wrapChildren(element, sink, context, (text) => `${marker}${text}${marker}`);
  };
}

/** `[text](absolute-url)`; `javascript:` and other unreadable targets, and empty links, keep only the text. */
export const renderLink: ElementRenderer = (element, sink, context) => {
  const href = context.markdown && !context.inLink ? element.getAttribute('href') : null;
  const url = href === null ? undefined : resolveLink(href, context.baseUrl);
  if (url === undefined) return context.renderChildren(element, sink);
  context.inLink = true;
  try {
    wrapChildren(
      element,
      sink,
      context,
      (text) => `[${text.replace(/\s*\n\s*/g, ' ')}](${markdownUrl(url)})`,
    );
  } finally {
    context.inLink = false;
  }
};

/** `![alt](absolute-url)` in Markdown for http(s) images (never `data:`); nothing in text mode. */
export const renderImage: ElementRenderer = (element, sink, context) => {
  if (!context.markdown) return;
  const url = imageUrl(element, context.baseUrl);
  if (url === undefined) return;
  const alt = collapseWhitespace(element.getAttribute('alt') ?? '')
    .trim()
    .replace(/[[\]\\]/g, '\\$&');
  sink.inline.push(`![${alt}](${markdownUrl(url)})`);
};

function imageUrl(image: DomElement, baseUrl: URL | undefined): string | undefined {
  const src = image.getAttribute('src');
  if (src) return resolveImage(src, baseUrl);
  const firstCandidate = image.getAttribute('srcset')?.trim().split(/\s+/)[0]?.replace(/,$/, '');
  return firstCandidate ? resolveImage(firstCandidate, baseUrl) : undefined;
}

/** Inline code: its text between enough backticks (whitespace collapsed as a browser shows it). */
export const renderInlineCode: ElementRenderer = (element, sink, context) => {
  const text = collapseWhitespace(element.textContent ?? '');
  if (!context.markdown || text.trim() === '') {
    sink.inline.push(text);
    return;
  }
  const longestRun = (text.match(/`+/g) ?? []).reduce((longest, run) => Math.max(longest, run.length), 0);
  const fence = '`'.repeat(longestRun + 1);
  const padding = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  sink.inline.push(`${fence}${padding}${text}${padding}${fence}`);
};

/** Keep a URL inside `( )`: escape what would end or split the destination. */
function markdownUrl(url: string): string {
  return url.replace(
    /[()\s<>]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
}

/**
 * MathML as TeX when the markup carries it (`<annotation encoding="application/x-tex">` or `alttext`):
 * `$…$` inline, `$$…$$` for display math. Otherwise its text, token by token.
 */
export const renderMath: ElementRenderer = (element, sink, context) => {
  const tex = texSource(element);
  const text = tex ?? collapseWhitespace(element.textContent ?? '').trim();
  if (!text) return;
  if (!context.markdown || tex === undefined) {
    sink.inline.push(` ${text} `);
    return;
  }
  if (element.getAttribute('display') === 'block') pushBlock(sink, context, `$$\n${tex}\n$$`);
  else sink.inline.push(`$${tex}$`);
};

function texSource(math: DomElement): string | undefined {
  for (const annotation of math.getElementsByTagName('annotation')) {
    if (annotation.getAttribute('encoding') === 'application/x-tex')
      return annotation.textContent?.trim() || undefined;
  }
  return math.getAttribute('alttext')?.trim() || undefined;
}
