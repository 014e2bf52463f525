import chardet from 'chardet';
import { prescanMetaCharset } from './meta-prescan.ts';

export type CharsetSource = 'bom' | 'header' | 'meta' | 'detected' | 'default';

export interface DecodedText {
  text: string;
  /** WHATWG name of the encoding used, e.g. `utf-8`, `shift_jis`, `windows-1251`. */
  charset: string;
  /** Which step decided it. */
  source: CharsetSource;
}

export interface DecodeOptions {
  /** The `charset` parameter of the Content-Type header, if any. */
  headerCharset?: string | undefined;
  /** Which in-document declaration to read: `<meta>` for HTML, the XML declaration for XML. */
  markup?: 'html' | 'xml' | undefined;
}

/**
 * Decode a response body the way a browser does: BOM → Content-Type charset → `<meta>` prescan (HTML)
 * or XML declaration → detection → UTF-8. Never throws: undecodable bytes become U+FFFD.
 *
 * One deliberate deviation: a charset named only inside the document loses to UTF-8 when the bytes
 * are valid UTF-8 with non-ASCII text (pages re-encoded without updating their `<meta>`), and a
 * document-declared UTF-8 that is far from valid goes to detection.
 */
export function decodeBody(bytes: Uint8Array, options: DecodeOptions = {}): DecodedText {
  const bom = encodingFromBom(bytes);
  if (bom) return decodeAs(bytes, bom, 'bom');

  const fromHeader = resolveEncoding(options.headerCharset);
  if (fromHeader) return decodeAs(bytes, fromHeader, 'header');

  const fromDocument = resolveEncoding(declaredInDocument(bytes, options.markup), { inDocument: true });
  const utf8 = readUtf8(bytes);
  if (fromDocument) {
    if (fromDocument !== 'utf-8' && utf8.fit === 'valid')
      return { text: utf8.text, charset: 'utf-8', source: 'detected' };
    if (fromDocument === 'utf-8' && utf8.fit === 'invalid') return detectOr(bytes, utf8.text, 'meta');
    return fromDocument === 'utf-8'
      ? { text: utf8.text, charset: 'utf-8', source: 'meta' }
      : decodeAs(bytes, fromDocument, 'meta');
  }
  // 7-bit text with ESC may be ISO-2022-JP: let detection look at it.
  if (utf8.fit === 'ascii' && !bytes.includes(0x1b))
    return { text: utf8.text, charset: 'utf-8', source: 'default' };
  if (utf8.fit === 'valid' || utf8.fit === 'mostly')
    return { text: utf8.text, charset: 'utf-8', source: 'detected' };
  return detectOr(bytes, utf8.text, 'default');
}

function encodingFromBom(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return undefined;
}

function decodeAs(bytes: Uint8Array, encoding: string, source: CharsetSource): DecodedText {
  return { text: new TextDecoder(encoding).decode(bytes), charset: encoding, source };
}

const resolved = new Map<string, string | undefined>();

/**
 * Map a label to the WHATWG encoding name TextDecoder uses (`latin1` → `windows-1252`, `gb2312` → `gbk`).
 * Unknown labels and the `replacement` family give `undefined`; `x-user-defined` (a binary hack) is read
 * as windows-1252; inside a document, UTF-16 labels mean UTF-8 (the bytes were readable as ASCII).
 */
function resolveEncoding(label: string | undefined, { inDocument = false } = {}): string | undefined {
  if (!label) return undefined;
  const key = label.trim().toLowerCase();
  if (!resolved.has(key)) resolved.set(key, encodingForLabel(key));
  const encoding = resolved.get(key);
  if (encoding === 'x-user-defined') return 'windows-1252';
  if (inDocument && (encoding === 'utf-16le' || encoding === 'utf-16be')) return 'utf-8';
  return encoding;
}

function encodingForLabel(label: string): string | undefined {
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return undefined;
  }
}

const XML_DECLARATION = /^\s*<\?xml\s[^>]*?\bencoding\s*=\s*["']([^"']+)["']/;

function declaredInDocument(bytes: Uint8Array, markup: DecodeOptions['markup']): string | undefined {
  if (markup === 'html') return prescanMetaCharset(bytes);
  if (markup === 'xml')
    return XML_DECLARATION.exec(new TextDecoder('windows-1252').decode(bytes.subarray(0, 1024)))?.[1];
  return undefined;
}

interface Utf8Reading {
  text: string;
  /** `mostly`: under 2% of the non-ASCII characters are invalid sequences. */
  fit: 'ascii' | 'valid' | 'mostly' | 'invalid';
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const lenientUtf8 = new TextDecoder('utf-8');

function readUtf8(bytes: Uint8Array): Utf8Reading {
  try {
    const text = strictUtf8.decode(bytes);
    return { text, fit: text.length === bytes.length ? 'ascii' : 'valid' };
  } catch {
    const text = lenientUtf8.decode(bytes);
    let nonAscii = 0;
    let replaced = 0;
    for (let index = 0; index < text.length; index += 1) {
      const code = text.charCodeAt(index);
      if (code === 0xfffd) replaced += 1;
      else if (code > 0x7f) nonAscii += 1;
    }
    return { text, fit: replaced * 50 < nonAscii ? 'mostly' : 'invalid' };
  }
}

const DETECTION_SAMPLE_BYTES = 64 * 1024;

/** chardet's best non-Unicode guess that TextDecoder can decode (the bytes are known not to be UTF-8), else the UTF-8 reading with U+FFFD (`fallback`). */
function detectOr(bytes: Uint8Array, utf8Text: string, fallback: CharsetSource): DecodedText {
  const encoding = detectEncoding(detectionSample(bytes));
  if (encoding) return decodeAs(bytes, encoding, 'detected');
  return { text: utf8Text, charset: 'utf-8', source: fallback };
}

function detectEncoding(sample: Uint8Array): string | undefined {
  for (const match of chardet.analyse(sample)) {
    const encoding = resolveEncoding(match.name);
    if (encoding && !encoding.startsWith('utf-')) return encoding;
  }
  return undefined;
}

const LINE_FEED = 0x0a;
const LESS_THAN = 0x3c;
const GREATER_THAN = 0x3e;

/**
 * What detection reads: the pieces of text (between `<`, `>` and line breaks) that hold non-ASCII bytes,
 * up to 64 KiB. Markup, scripts and styles are ASCII; left in, they drown the text (a page whose first
 * 64 KiB are inline code reads as windows-1252 to chardet). No multi-byte encoding chardet knows uses
 * these three bytes inside a character. Bodies without any byte above 0x7f (ISO-2022-JP) go as they are.
 */
function detectionSample(bytes: Uint8Array): Uint8Array {
  const sample = new Uint8Array(Math.min(bytes.length, DETECTION_SAMPLE_BYTES));
  let length = 0;
  let start = 0;
  let nonAscii = false;
  for (let index = 0; index <= bytes.length && length < sample.length; index += 1) {
    const byte = index < bytes.length ? bytes[index]! : LINE_FEED;
    if (byte >= 0x80) nonAscii = true;
    else if (byte === LESS_THAN || byte === GREATER_THAN || byte === LINE_FEED) {
      if (nonAscii) {
        const piece = bytes.subarray(start, Math.min(index, start + sample.length - length - 1));
        sample.set(piece, length);
        length += piece.length;
        sample[length] = LINE_FEED;
        length += 1;
      }
      start = index + 1;
      nonAscii = false;
    }
  }
  return length === 0 ? bytes.subarray(0, DETECTION_SAMPLE_BYTES) : sample.subarray(0, length);
}
