import { parseCallerUrl } from '../net/caller-url.ts';

/** Characters whose percent-escape means the same as the character itself (RFC 3986 unreserved, and `!'()*`). */
const SAME_DECODED = /^[A-Za-z0-9\-._~!'()*]$/;

/**
 * A URL in the one form the seen-URL rule compares, or undefined when it is not an http(s) URL. Two spellings of
 * the same address compare equal: scheme and host case, IDN, the default port, `.`/`..` segments (all the URL
 * parser's), percent-escapes of characters that need none (`%7E` → `~`, `%28` → `(`) and the case of the rest
 * (`%2f` → `%2F`), an empty `?`, and the fragment (never sent). Anything else is a different URL: another path,
 * another query, a trailing slash more or less. A bare host (`example.com/page`) gets `https://`, as web_fetch does.
 */
export function exactUrl(text: string): string | undefined {
  let url: URL;
  try {
    url = parseCallerUrl(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  url.hash = '';
  url.pathname = sameEscapes(url.pathname);
  url.search = url.search === '?' ? '' : sameEscapes(url.search);
  return url.href;
}

function sameEscapes(part: string): string {
  return part.replace(/%([0-9a-f]{2})/gi, (sequence, hex: string) => {
    const character = String.fromCharCode(Number.parseInt(hex, 16));
    return SAME_DECODED.test(character) ? character : sequence.toUpperCase();
  });
}
