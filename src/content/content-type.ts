export interface ParsedContentType {
  /** Lower-cased `type/subtype`, or `''` when the header is missing or malformed. */
  essence: string;
  /** The `charset` parameter as written (trimmed, unquoted), if any. */
  charset?: string | undefined;
}

const ESSENCE = /^\s*([a-z0-9!#$%&'*+.^_`|~-]+\/[a-z0-9!#$%&'*+.^_`|~-]+)\s*(?:;|$)/i;
const CHARSET_PARAMETER = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i;

/** Parse a `Content-Type` header value into its media type and charset parameter. */
export function parseContentType(value: string | undefined): ParsedContentType {
  if (value === undefined) return { essence: '' };
  const essence = ESSENCE.exec(value)?.[1]?.toLowerCase() ?? '';
  const match = CHARSET_PARAMETER.exec(value);
  const charset = (match?.[1] ?? match?.[2])?.trim();
  return charset ? { essence, charset } : { essence };
}
