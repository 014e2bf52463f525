/** `<script>`, `<style>` and the other raw-text elements, whose content is never tokenised. */
const RAW_TEXT = /<(script|style|textarea|title|xmp|iframe|noembed|noframes|plaintext)\b[\s\S]*?<\/\1\s*>/gi;

/**
 * `<![CDATA[` in HTML content is no CDATA section: a browser reads it as a bogus comment that ends at the
 * next `>` (only inside `<svg>` and `<math>` does it run to `]]>`). htmlparser2 runs it to `]]>` everywhere,
 * so one stray `<![CDATA[` near the top of a page (a theme's leftover) swallows the whole page into a
 * comment. Outside raw-text elements it is rewritten as `<!CDATA[`, a declaration that ends at the next
 * `>`, and so read as a browser reads it, by the parser and by `limitNesting`'s scan alike. Inside
 * `<script>` and `<style>` it stays as written (`//<![CDATA[` around JSON-LD is read as metadata). In SVG,
 * whose text is not kept, the rewrite may let a few characters of a section out as text.
 */
export function cdataAsBrowsers(html: string): string {
  if (!html.includes('<![CDATA[')) return html;
  let result = '';
  let last = 0;
  for (const match of html.matchAll(RAW_TEXT)) {
    result += html.slice(last, match.index).replaceAll('<![CDATA[', '<!CDATA[') + match[0];
    last = match.index + match[0].length;
  }
  return result + html.slice(last).replaceAll('<![CDATA[', '<!CDATA[');
}
