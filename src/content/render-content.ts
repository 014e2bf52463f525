import { PeriscopeError } from '../errors.ts';
import { decodeBody } from './charset.ts';
import { cleanMarkdown } from './clean-markdown.ts';
import { parseContentType } from './content-type.ts';
import { renderXml } from './feed.ts';
import { extractHtml } from './html-extract.ts';
import { DEFAULT_IMAGE_MAX_BYTES, renderImage } from './image.ts';
import { stripInvisible } from './invisible-unicode.ts';
import { markdownOutline } from './outline.ts';
import { judgePage } from './page-verdict.ts';
import { DEFAULT_PDF_MAX_BYTES, DEFAULT_PDF_MAX_PAGES, renderPdf } from './pdf.ts';
import { sniffContent } from './sniff.ts';
import type { ContentInput, RenderedContent } from './types.ts';

/**
 * One HTTP response → readable text. The kind is decided from the bytes and the declared type
 * (`sniffContent`), the charset the way a browser does (`decodeBody`), then one handler per kind:
 * HTML → main content (Markdown or text), JSON → pretty-printed, text and Markdown → as they are, less the
 * characters a reader cannot see (`stripInvisible`) and, in Markdown, `data:` images (`cleanMarkdown`),
 * RSS/Atom feeds → a list of entries, other XML → its (re-indented) source.
 * PDFs → their text (PDF.js, loaded on the first PDF), PNG/JPEG/GIF/WebP images → a multimodal block.
 * Other binary bodies are `UNSUPPORTED_CONTENT`: never handed on as garbled text.
 */
export async function renderContent(input: ContentInput): Promise<RenderedContent> {
  const contentType = parseContentType(input.headers['content-type']);
  const sniffed = sniffContent(input.body, contentType);
  if (sniffed.kind === 'pdf') return renderPdfContent(input);
  if (sniffed.kind === 'image') return renderImageContent(input, sniffed.mimeType);
  if (sniffed.kind === 'binary') {
    throw new PeriscopeError(
      'UNSUPPORTED_CONTENT',
      `the response is ${sniffed.label}, which has no text to read`,
      {
        details: { mimeType: sniffed.mimeType },
      },
    );
  }
  const markup = sniffed.kind === 'html' ? 'html' : /[/+]xml$/.test(sniffed.mimeType) ? 'xml' : undefined;
  const decoded = decodeBody(input.body, { headerCharset: contentType.charset, markup });
  const base = { contentType: sniffed.mimeType, charset: decoded.charset };

  switch (sniffed.kind) {
    case 'html': {
      const { text, extractor, ...metadata } = extractHtml(decoded.text, {
        url: input.url,
        mode: input.mode,
      });
      // A JavaScript shell, an error page or a bot challenge served with 200 is not content.
      const verdict = judgePage({ html: decoded.text, text, title: metadata.title, url: input.url });
      if (verdict) throw verdict;
      return { kind: 'html', ...base, extractor, ...metadata, text };
    }
    case 'json':
      return { kind: 'json', ...base, ...prettyJson(decoded.text) };
    case 'feed':
    case 'xml': {
      const rendered = await renderXml(decoded.text, { url: input.url, mode: input.mode });
      const outline =
        rendered.kind === 'feed' && input.mode === 'markdown' ? markdownOutline(rendered.text) : undefined;
      return { ...base, ...rendered, outline };
    }
    case 'markdown': {
      const text = cleanMarkdown(stripBom(decoded.text));
      return { kind: 'markdown', ...base, extractor: 'markdown', outline: markdownOutline(text), text };
    }
    default:
      return { kind: 'text', ...base, extractor: 'text', text: stripInvisible(stripBom(decoded.text)) };
  }
}

async function renderPdfContent(input: ContentInput): Promise<RenderedContent> {
  const pdf = await renderPdf(input.body, {
    maxPages: input.limits?.pdfMaxPages ?? DEFAULT_PDF_MAX_PAGES,
    maxBytes: input.limits?.pdfMaxBytes ?? DEFAULT_PDF_MAX_BYTES,
    signal: input.signal,
  });
  const base = { contentType: 'application/pdf', charset: 'binary', extractor: 'pdf' };
  const { title, pageCount, outline, text } = pdf;
  return { kind: 'pdf', ...base, title, pageCount, ...(outline ? { outline } : {}), text };
}

function renderImageContent(input: ContentInput, mimeType: string): RenderedContent {
  const maxBytes = input.limits?.imageMaxBytes ?? DEFAULT_IMAGE_MAX_BYTES;
  const { text, image } = renderImage(input.body, mimeType, { maxBytes });
  const contentType = image?.mimeType ?? mimeType;
  return { kind: 'image', contentType, charset: 'binary', extractor: 'image', image, text };
}

/**
 * Pretty-printed JSON (two spaces); a body that does not parse is shown as the text it is. Invisible characters
 * go after printing, so that those written as `\u200b` escapes (which parsing turns into the characters) go too.
 */
function prettyJson(text: string): { extractor: string; text: string } {
  const source = stripBom(text);
  try {
    return { extractor: 'json', text: stripInvisible(JSON.stringify(JSON.parse(source), null, 2)) };
  } catch {
    return { extractor: 'text', text: stripInvisible(source) };
  }
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
