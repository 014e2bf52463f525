/** An http(s) URL in text, up to the first character no URL holds literally (or markdown closes a link with). */
const URL_IN_TEXT = /https?:\/\/[^\s<>"'`\\\]]+/gi;
const TRAILING_PUNCTUATION = /[.,;:!?*_]+$/;

/**
 * The http(s) URLs a text shows, in order, without duplicates, at most `max`: markdown links (`[text](url)`, the
 * form web_fetch gives links in), autolinks and bare URLs (feed entries, PDFs, JSON, plain text). A `)` that closes
 * a markdown link or a sentence's parenthesis is not part of the URL; one that closes a `(` inside the URL is.
 */
export function urlsInText(text: string, max: number): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(URL_IN_TEXT)) {
    const url = trimUrl(match[0]);
    if (url.length > 'https://'.length) found.add(url);
    if (found.size >= max) break;
  }
  return [...found];
}

function trimUrl(candidate: string): string {
  let url = candidate;
  for (;;) {
    const trimmed = url.replace(TRAILING_PUNCTUATION, '');
    const unbalanced = trimmed.endsWith(')') && count(trimmed, '(') < count(trimmed, ')');
    const next = unbalanced ? trimmed.slice(0, -1) : trimmed;
    if (next === url) return url;
    url = next;
  }
}

function count(text: string, character: string): number {
  let total = 0;
  for (const each of text) if (each === character) total++;
  return total;
}
