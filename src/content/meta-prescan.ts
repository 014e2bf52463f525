/**
 * The WHATWG "prescan a byte stream to determine its encoding" algorithm
 * (https://html.spec.whatwg.org/multipage/parsing.html#prescan-a-byte-stream-to-determine-its-encoding):
 * finds `<meta charset>` or `<meta http-equiv="content-type" content="…charset=…">` in the first
 * 1024 bytes, skipping comments and the attributes of other tags. Returns the label as written; a
 * `<meta>` naming no encoding TextDecoder knows (`charset="{charset}"`) is passed over, as the spec's
 * "charset is failure" step does, so a later valid one still counts.
 */
export function prescanMetaCharset(bytes: Uint8Array, limit = 1024): string | undefined {
  const scanner = new ByteScanner(bytes.subarray(0, limit));
  while (scanner.position < scanner.end) {
    if (scanner.startsWith('<!--')) {
      scanner.skipPast('-->', scanner.position + 2);
    } else if (scanner.startsWith('<meta') && isSpaceOrSlash(scanner.at(scanner.position + 5))) {
      scanner.position += 5;
      const label = readMetaCharset(scanner);
      if (label !== undefined && isEncodingLabel(label)) return label;
    } else if (scanner.at(scanner.position) === LT && isTagStart(scanner, scanner.position + 1)) {
      while (scanner.position < scanner.end && !isSpaceOrGt(scanner.at(scanner.position)))
        scanner.position += 1;
      while (scanner.readAttribute() !== undefined) {}
    } else if (scanner.startsWith('<!') || scanner.startsWith('</') || scanner.startsWith('<?')) {
      scanner.skipPast('>', scanner.position + 1);
    }
    scanner.position += 1;
  }
  return undefined;
}

function isEncodingLabel(label: string): boolean {
  try {
    new TextDecoder(label);
    return true;
  } catch {
    return false;
  }
}

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const EQUALS = 0x3d;

function isSpace(byte: number): boolean {
  return byte === 0x09 || byte === 0x0a || byte === 0x0c || byte === 0x0d || byte === 0x20;
}
function isSpaceOrSlash(byte: number): boolean {
  return isSpace(byte) || byte === SLASH;
}
function isSpaceOrGt(byte: number): boolean {
  return isSpace(byte) || byte === GT;
}
function isAsciiLetter(byte: number): boolean {
  return (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a);
}
function lower(byte: number): number {
  return byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte;
}
/** `<` followed by a letter, or `</` followed by a letter. */
function isTagStart(scanner: ByteScanner, index: number): boolean {
  const next = scanner.at(index);
  return isAsciiLetter(next) || (next === SLASH && isAsciiLetter(scanner.at(index + 1)));
}

function readMetaCharset(scanner: ByteScanner): string | undefined {
  const seen = new Set<string>();
  let gotPragma = false;
  let needPragma: boolean | undefined;
  let charset: string | undefined;
  for (let attribute = scanner.readAttribute(); attribute; attribute = scanner.readAttribute()) {
    if (seen.has(attribute.name)) continue;
    seen.add(attribute.name);
    if (attribute.name === 'http-equiv') {
      if (attribute.value.toLowerCase() === 'content-type') gotPragma = true;
    } else if (attribute.name === 'content') {
      const fromContent = charset === undefined ? charsetFromMetaContent(attribute.value) : undefined;
      if (fromContent !== undefined) {
        charset = fromContent;
        needPragma = true;
      }
    } else if (attribute.name === 'charset') {
      charset = attribute.value.trim();
      needPragma = false;
    }
  }
  if (needPragma === undefined || (needPragma && !gotPragma)) return undefined;
  return charset;
}

/** "Extract a character encoding from a meta element" (the `content` attribute form). */
export function charsetFromMetaContent(content: string): string | undefined {
  const match = /charset\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s;"']+))/i.exec(content);
  if (!match) return undefined;
  if (match[1] === undefined && match[2] === undefined && /charset\s*=\s*["']/i.test(content))
    return undefined;
  return match[1] ?? match[2] ?? match[3];
}

interface Attribute {
  name: string;
  value: string;
}

class ByteScanner {
  readonly bytes: Uint8Array;
  readonly end: number;
  position = 0;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
    this.end = bytes.length;
  }

  at(index: number): number {
    return this.bytes[index] ?? -1;
  }

  /** Case-insensitive ASCII comparison at the current position. */
  startsWith(text: string): boolean {
    for (let index = 0; index < text.length; index += 1) {
      if (lower(this.at(this.position + index)) !== text.charCodeAt(index)) return false;
    }
    return true;
  }

  /** Move to the last byte of the next `marker` found at or after `from` (or to the end). */
  skipPast(marker: string, from: number): void {
    this.position = from;
    while (this.position < this.end && !this.startsWith(marker)) this.position += 1;
    this.position += marker.length - 1;
  }

  /** The spec's "get an attribute" algorithm; `undefined` when the tag ends. */
  readAttribute(): Attribute | undefined {
    while (isSpaceOrSlash(this.at(this.position))) this.position += 1;
    if (this.position >= this.end || this.at(this.position) === GT) return undefined;
    let name = '';
    const value = '';
    for (;;) {
      const byte = this.at(this.position);
      if (byte === -1) return undefined;
      if (byte === EQUALS && name !== '') {
        this.position += 1;
        return { name, value: this.readValue() };
      }
      if (isSpace(byte)) break;
      if (byte === SLASH || byte === GT) return { name, value };
      name += String.fromCharCode(lower(byte));
      this.position += 1;
    }
    while (isSpace(this.at(this.position))) this.position += 1;
    if (this.at(this.position) !== EQUALS) return { name, value };
    this.position += 1;
    return { name, value: this.readValue() };
  }

  private readValue(): string {
    while (isSpace(this.at(this.position))) this.position += 1;
    const quote = this.at(this.position);
    let value = '';
    if (quote === 0x22 || quote === 0x27) {
      for (this.position += 1; this.position < this.end; this.position += 1) {
        const byte = this.at(this.position);
        if (byte === quote) {
          this.position += 1;
          return value;
        }
        value += String.fromCharCode(lower(byte));
      }
      return value;
    }
    for (; this.position < this.end; this.position += 1) {
      const byte = this.at(this.position);
      if (isSpace(byte) || byte === GT) return value;
      value += String.fromCharCode(lower(byte));
    }
    return value;
  }
}
