import type { ParsedContentType } from './content-type.ts';
import { looksBinary, matchSignature } from './magic-bytes.ts';
import type { ContentKind } from './types.ts';

/** Every kind the handler table knows; `pdf`, `image` and `binary` have no handler yet. */
export type SniffedKind = ContentKind | 'pdf' | 'image' | 'binary';

export interface SniffResult {
  kind: SniffedKind;
  /** Media type as sniffed, e.g. `text/html` (may differ from the declared one). */
  mimeType: string;
  /** What it is, in words, for error messages: `a PNG image`, `binary data (declared as text/html)`. */
  label: string;
}

/** Types that are sniffed from the bytes because they say nothing about the content. */
const UNINFORMATIVE_TYPES = new Set([
  '',
  '*/*',
  'application/octet-stream',
  'binary/octet-stream',
  'application/unknown',
  'unknown/unknown',
  'application/x-unknown-content-type',
  'application/force-download',
  'application/download',
]);

const TEXT_APPLICATION_TYPES = new Set([
  'application/javascript',
  'application/x-javascript',
  'application/ecmascript',
  'application/xml',
  'application/x-yaml',
  'application/yaml',
  'application/toml',
  'application/x-sh',
  'application/sql',
  'application/graphql',
  'application/x-ndjson',
]);

/**
 * Decide what a response body is from its declared type and its first bytes. The bytes win over a
 * header that claims text: a PDF, image, archive or executable is never handed on as text.
 */
export function sniffContent(body: Uint8Array, contentType: ParsedContentType): SniffResult {
  const signature = matchSignature(body);
  if (signature) return signature;

  const declaredType = contentType.essence;
  const declaredKind = UNINFORMATIVE_TYPES.has(declaredType) ? undefined : kindFromType(declaredType);
  if (declaredKind === 'pdf' || declaredKind === 'image' || declaredKind === 'binary') {
    return { kind: declaredKind, mimeType: declaredType, label: describeType(declaredKind, declaredType) };
  }
  if (!isUtf16(body, contentType.charset) && looksBinary(body)) {
    const label = declaredType ? `binary data (declared as ${declaredType})` : 'binary data';
    return { kind: 'binary', mimeType: 'application/octet-stream', label };
  }
  if (declaredKind) {
    return (
      sniffMarkup(body, declaredType, declaredKind) ?? {
        kind: declaredKind,
        mimeType: declaredType,
        label: declaredType,
      }
    );
  }
  return sniffText(body);
}

/** The kind a declared media type stands for; `undefined` for an unknown type (sniff the bytes). */
function kindFromType(type: string): SniffedKind | undefined {
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type === 'text/markdown' || type === 'text/x-markdown') return 'markdown';
  if (type === 'application/json' || type === 'text/json' || type.endsWith('+json')) return 'json';
  if (type === 'application/pdf' || type === 'application/x-pdf') return 'pdf';
  if (type === 'image/svg+xml') return 'text';
  if (FEED_TYPES.has(type)) return 'feed';
  if (type === 'text/xml' || type === 'application/xml' || type.endsWith('+xml')) return 'xml';
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('text/') || type.endsWith('+xml') || TEXT_APPLICATION_TYPES.has(type)) return 'text';
  if (/^(?:audio|video|font|model)\//.test(type)) return 'binary';
  return undefined;
}

function describeType(kind: 'pdf' | 'image' | 'binary', type: string): string {
  if (kind === 'pdf') return 'a PDF document';
  if (kind === 'image') return `an image (${type})`;
  return `binary data (${type})`;
}

/** HTML detection after WHATWG MIME sniffing: a known tag (or a comment) at the start, after a BOM and whitespace. */
const HTML_START =
  /^<(?:!doctype\s+html|html|head|body|script|iframe|h1|div|font|table|a|style|title|b|br|p|meta|link)(?:[\s/>]|$)|^<!--/;

function sniffText(body: Uint8Array): SniffResult {
  const start = textPrefix(body).replace(/^\ufeff?\s*/, '');
  const lower = start.toLowerCase();
  if (HTML_START.test(lower)) return { kind: 'html', mimeType: 'text/html', label: 'text/html' };
  const feed = sniffFeed(body);
  if (feed) return feed;
  if (lower.startsWith('<?xml')) {
    return lower.includes('<html')
      ? { kind: 'html', mimeType: 'application/xhtml+xml', label: 'application/xhtml+xml' }
      : { kind: 'xml', mimeType: 'application/xml', label: 'application/xml' };
  }
  if (lower.startsWith('{') || lower.startsWith('[')) {
    return { kind: 'json', mimeType: 'application/json', label: 'application/json' };
  }
  return { kind: 'text', mimeType: 'text/plain', label: 'text/plain' };
}

const PREFIX_BYTES = 1024;

const FEED_TYPES = new Set(['application/rss+xml', 'application/x-rss+xml', 'application/atom+xml']);

/**
 * Feeds are found by their root element, however they are labelled: a declared XML type is refined to
 * `feed` or `xml`; an HTML or plain-text label yields to a feed only when the body starts like one
 * (`<?xml` or `<rss`), so an HTML page is never read as XML.
 */
function sniffMarkup(
  body: Uint8Array,
  declaredType: string,
  declaredKind: SniffedKind,
): SniffResult | undefined {
  if (declaredKind === 'xml') {
    const feed = sniffFeed(body);
    return feed ? { ...feed, mimeType: declaredType, label: declaredType } : undefined;
  }
  if (declaredKind === 'html' || declaredKind === 'text') return sniffFeed(body);
  return undefined;
}

/** Root elements of RSS 2.0, Atom and RSS 1.0, and the type each stands for. */
function sniffFeed(body: Uint8Array): SniffResult | undefined {
  const start = textPrefix(body, XML_PROLOG_BYTES).replace(/^\ufeff?\s*/, '');
  if (!/^<(?:\?xml|rss[\s>]|feed[\s>]|rdf:rdf[\s>])/i.test(start)) return undefined;
  const root =
    /^(?:\s|<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!doctype(?:[^>[]|\[[\s\S]*?\])*>)*<([a-z_][\w:.-]*)([^>]*)/i.exec(
      start,
    );
  const name = root?.[1]?.toLowerCase();
  const attributes = root?.[2] ?? '';
  if (name === 'rss') return feedResult('application/rss+xml', 'an RSS feed');
  if (name === 'feed' && /atom/i.test(attributes)) return feedResult('application/atom+xml', 'an Atom feed');
  if (name === 'rdf:rdf' && start.includes('http://purl.org/rss/1.0/')) {
    return feedResult('application/rdf+xml', 'an RSS 1.0 feed');
  }
  return undefined;
}

function feedResult(mimeType: string, label: string): SniffResult {
  return { kind: 'feed', mimeType, label };
}

/** Bytes searched for a feed's root element: an XML prolog with comments and stylesheets can be long. */
const XML_PROLOG_BYTES = 4096;

/**
 * The first bytes as text, good enough to look for ASCII markers (UTF-16 is decoded by its BOM; a UTF-8
 * BOM is dropped, or it would read as `ï»¿` in front of the first tag).
 */
function textPrefix(body: Uint8Array, bytes = PREFIX_BYTES): string {
  const prefix = body.subarray(0, bytes);
  const utf16 = utf16FromBom(prefix);
  if (utf16) return new TextDecoder(utf16).decode(prefix);
  const utf8Bom = prefix[0] === 0xef && prefix[1] === 0xbb && prefix[2] === 0xbf;
  return new TextDecoder('windows-1252').decode(utf8Bom ? prefix.subarray(3) : prefix);
}

function utf16FromBom(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return undefined;
}

function isUtf16(body: Uint8Array, charset: string | undefined): boolean {
  return utf16FromBom(body) !== undefined || /^utf-?16/i.test(charset ?? '');
}
