export type ExtractMode = 'markdown' | 'text';

/** What the content pipeline reads: one HTTP response, already decompressed and size-bounded. */
export interface ContentInput {
  /** Final URL (after redirects): base for relative links. */
  url: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  body: Uint8Array;
  mode: ExtractMode;
}

export type ContentKind = 'html' | 'json' | 'text' | 'markdown';

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
}
