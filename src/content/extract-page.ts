import { PeriscopeError } from '../errors.ts';
import type { InputConstraint } from '../input-issue.ts';
import { parseContentType } from './content-type.ts';
import { renderContent } from './render-content.ts';
import { sniffContent } from './sniff.ts';
import type { ContentLimits, ExtractMode, RenderedContent } from './types.ts';

/** A page already in hand (a file, a string) → its main content. Give `html` or `bytes`. */
export interface ExtractPageInput {
  /** The page as text. */
  html?: string;
  /** Or as bytes, as read from a file: the charset is found the way a browser finds it; a PDF or an image is read too. */
  bytes?: Uint8Array;
  /** The page's address, for resolving relative links. Default `http://localhost/`. */
  url?: string;
  /** Default `markdown`. */
  mode?: ExtractMode;
  /** What error messages call the input, e.g. a file name. Default `the page`. */
  name?: string;
  /** Caps for PDFs and images; defaults apply to any left out (periscope.extract passes `fetch.*`). */
  limits?: Partial<ContentLimits>;
}

/** The main content, its metadata and how it was read (`kind`, `contentType`, `charset`, `extractor`). */
export type ExtractedPage = RenderedContent;

const MODES: readonly ExtractMode[] = ['markdown', 'text'];

/**
 * Offline extraction: no network, no config, no store (it loads the content pipeline only). Bad input is
 * INVALID_INPUT naming the field (`details.field`, `details.constraint`); binary data that is not a PDF or an image
 * is UNSUPPORTED_CONTENT; a page with no readable text is EMPTY_CONTENT.
 */
export async function extractPage(input: ExtractPageInput): Promise<ExtractedPage> {
  const name = input.name ?? 'the page';
  const mode = input.mode ?? 'markdown';
  if (!MODES.includes(mode)) {
    throw invalid('mode', `mode must be markdown or text, not ${JSON.stringify(mode)}`, {
      kind: 'one-of',
      values: [...MODES],
    });
  }
  const url = input.url ?? 'http://localhost/';
  if (!URL.canParse(url)) {
    throw invalid('url', `url ${JSON.stringify(url)} is not a valid URL; give an absolute URL`, {
      kind: 'format',
      description: 'an absolute URL',
    });
  }
  const hasHtml = typeof input.html === 'string';
  if (hasHtml === input.bytes instanceof Uint8Array) {
    throw invalid('html', 'give the page as html (a string) or as bytes (a Uint8Array), one of the two', {
      kind: 'other',
    });
  }
  const body = hasHtml ? new TextEncoder().encode(input.html) : (input.bytes as Uint8Array);
  const headers = { 'content-type': hasHtml ? 'text/html; charset=utf-8' : 'text/html' };
  // Named here as the input, not as "the response" renderContent would call it.
  if (sniffContent(body, parseContentType(headers['content-type'])).kind === 'binary') {
    throw new PeriscopeError(
      'UNSUPPORTED_CONTENT',
      `${name} is binary data, not HTML; give an HTML page (or a PDF or an image)`,
    );
  }
  const content = await renderContent({ url, headers, body, mode, limits: input.limits });
  if (content.text.trim() === '') {
    throw new PeriscopeError(
      'EMPTY_CONTENT',
      `${name} has no readable text (an empty page, or one that builds its text with JavaScript)`,
    );
  }
  return content;
}

function invalid(field: string, message: string, constraint: InputConstraint): PeriscopeError {
  return new PeriscopeError('INVALID_INPUT', message, { details: { field, constraint } });
}
