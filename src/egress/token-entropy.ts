import { decodeRun } from './encoded-runs.ts';
import { looksRandom } from './secret-formats.ts';

/**
 * What makes a token "long and high-entropy" (`egress.secretScan.entropy`). Tuned on the tuning half of
 * `__fixtures__/ordinary-outbound.txt` and on generated keys, checked on the held-out half and on keys from another
 * seed (secret-scan-corpus.test.ts).
 */
export const ENTROPY_RULE = {
  /** Characters a token needs at least: below this, ids and short hashes are too common to judge. */
  minLength: 20,
  /** Shannon entropy in bits per character, at least. Random base62 of 20 characters averages about 4.0. */
  minBitsPerChar: 3.9,
} as const;

/** Runs of the characters keys are written in (base64, base64url, hex), with base64's trailing padding. */
const TOKEN = /[A-Za-z0-9+_-]+=*/g;
/** A word of a slug (`Survey`, `on`, `API`). */
const WORD = /^(?:[A-Z]?[a-z]+|[A-Z]+)$/;
/** Subresource integrity and npm's `integrity`: the digest of a public file, named by its algorithm. */
const INTEGRITY = /\bsha(?:1|256|384|512)-[A-Za-z0-9+/]+=*/gi;

/**
 * Whether the text holds a long high-entropy token: upper-case letters, lower-case letters and digits mixed (so
 * hex digests, UUIDs and lower-case slugs are not judged at all), long enough, with characters spread evenly, and
 * not a slug of words (`334567890_A_Survey_on_Deep_Learning`) or an integrity digest (`sha512-…`, a public file's).
 * A token that is base64 or hex of printable text (a tracking parameter's JSON, a redirect URL) is judged by the
 * text it decodes to: encoded words are not a random key, an encoded random key still is.
 */
export function hasHighEntropyToken(text: string, decodeTokens = true): boolean {
  for (const match of text.replace(INTEGRITY, ' ').matchAll(TOKEN)) {
    const token = match[0].replace(/^[-_+]+|[-_+=]+$/g, '');
    if (token.length < ENTROPY_RULE.minLength || !looksRandom(token)) continue;
    if (isSlug(token)) continue;
    const decoded = decodeTokens ? decodeRun(match[0]) : undefined;
    if (decoded) {
      if (hasHighEntropyToken(decoded.text, false)) return true;
    } else if (bitsPerChar(token) >= ENTROPY_RULE.minBitsPerChar) return true;
  }
  return false;
}

/** Three parts or more joined by `-` or `_`, at least half of them words: `Product-Roadmap-2025-8f3c2d1e…`. */
function isSlug(token: string): boolean {
  const parts = token.split(/[-_]/);
  return parts.length >= 3 && parts.filter((part) => WORD.test(part)).length * 2 >= parts.length;
}

/** Shannon entropy of the characters of `text`, in bits per character. */
export function bitsPerChar(text: string): number {
  const counts = new Map<string, number>();
  for (const character of text) counts.set(character, (counts.get(character) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const share = count / text.length;
    bits -= share * Math.log2(share);
  }
  return bits;
}
