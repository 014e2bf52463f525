import { PeriscopeError } from '../errors.ts';
import { decodeBody } from './charset.ts';
import { parseContentType } from './content-type.ts';
import { extractHtml } from './html-extract.ts';
import { markdownOutline } from './outline.ts';
import { sniffContent } from './sniff.ts';
import type { ContentInput, RenderedContent } from './types.ts';

/**
 * One HTTP response → readable text. The kind is decided from the bytes and the declared type
 * (`sniffContent`), the charset the way a browser does (`decodeBody`), then one handler per kind:
 * HTML → main content (Markdown or text), JSON → pretty-printed, text and Markdown → as is.
 * PDFs, images and other binary bodies are `UNSUPPORTED_CONTENT`: never handed on as garbled text.
 */
export async function renderContent(input: ContentInput): Promise<RenderedContent> {
  const contentType = parseContentType(input.headers['content-type']);
  const sniffed = sniffContent(input.body, contentType);
  if (sniffed.kind === 'pdf' || sniffed.kind === 'image' || sniffed.kind === 'binary') {
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
      return { kind: 'html', ...base, extractor, ...metadata, text };
    }
    case 'json':
      return { kind: 'json', ...base, ...prettyJson(decoded.text) };
    case 'markdown': {
      const text = stripBom(decoded.text);
      return { kind: 'markdown', ...base, extractor: 'markdown', outline: markdownOutline(text), text };
    }
    default:
      return { kind: 'text', ...base, extractor: 'text', text: stripBom(decoded.text) };
  }
}

/** Pretty-printed JSON (two spaces); a body that does not parse is shown as the text it is. */
function prettyJson(text: string): { extractor: string; text: string } {
  const source = stripBom(text);
  try {
    return { extractor: 'json', text: JSON.stringify(JSON.parse(source), null, 2) };
  } catch {
    return { extractor: 'text', text: source };
  }
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
