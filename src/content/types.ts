import type { OutlineEntry } from './outline.ts';

export type ExtractMode = 'markdown' | 'text';

/** What the content pipeline reads: one HTTP response, already decompressed and size-bounded. */
export interface ContentInput {
  /** Final URL (after redirects): base for relative links. */
  url: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  body: Uint8Array;
  mode: ExtractMode;
  /** The call's cancellation: long handlers (PDF) stop between pages. */
  signal?: AbortSignal | undefined;
  /** Caps for the heavier handlers; defaults apply to any left out. */
  limits?: Partial<ContentLimits> | undefined;
}

export interface ContentLimits {
  /** PDF pages read; the rest are left out (said so in the text). Default 200. */
  pdfMaxPages: number;
  /** PDF bytes downloaded; a larger PDF is not read (BODY_TOO_LARGE naming the option). Default 10 000 000. */
  pdfMaxBytes: number;
  /** Image bytes sent as a multimodal block; a larger image is described instead. Default 3 000 000. */
  imageMaxBytes: number;
}

export type ContentKind = 'html' | 'json' | 'text' | 'markdown' | 'pdf' | 'image' | 'feed' | 'xml';

/** An image for a multimodal block: the surfaces turn it into their image content. */
export interface ImageBlock {
  mimeType: string;
  base64: string;
  width: number;
  height: number;
}

export interface RenderedContent {
  kind: ContentKind;
  /** Media type as sniffed (not necessarily as declared), e.g. `text/html`. */
  contentType: string;
  /** Charset the body was decoded with, e.g. `shift_jis`. */
  charset: string;
  /** `readability`, `json`, `text`, `markdown`, … */
  extractor: string;
  title?: string | undefined;
  byline?: string | undefined;
  publishedAt?: string | undefined;
  language?: string | undefined;
  siteName?: string | undefined;
  /** PDF: pages in the document. */
  pageCount?: number | undefined;
  /** The document's headings with their character offsets in `text`, for jumping with `startIndex`. */
  outline?: OutlineEntry[] | undefined;
  /** Image: the block to send (then `text` is a short description). */
  image?: ImageBlock | undefined;
  /** The readable text, in the requested mode; not truncated. */
  text: string;
}

export interface ExtractResult {
  title?: string | undefined;
  byline?: string | undefined;
  publishedAt?: string | undefined;
  language?: string | undefined;
  siteName?: string | undefined;
  /** Markdown or plain text, depending on the mode asked for. */
  text: string;
  extractor: string;
  /** The headings with their offsets in `text`. */
  outline?: OutlineEntry[] | undefined;
}
