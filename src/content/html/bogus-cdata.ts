/**
 * `<![CDATA[` in HTML content is no CDATA section: a browser reads it as a bogus comment that ends at the
 * next `>` (only inside `<svg>` and `<math>` does it run to `]]>`). htmlparser2 runs it to `]]>` everywhere,
 * so one stray `<![CDATA[` near the top of a page (a theme's leftover) swallows the whole page into a
 * comment. Rewritten as `<!CDATA[`, a declaration that ends at the next `>`, it is read as a browser reads
 * it, by the parser and by `limitNesting`'s scan alike. In `<script>` and `<style>`, raw text, it changes
 * nothing that is kept; in SVG, whose text is not kept either, it may let a few characters of the section
 * out as text.
 */
export function cdataAsBrowsers(html: string): string {
  return html.includes('<![CDATA[') ? html.replaceAll('<![CDATA[', '<!CDATA[') : html;
}
