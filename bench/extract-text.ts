import { flatText } from '../src/content/html/flat-text.ts';
import { parseDocument } from '../src/content/html/parse-document.ts';

/** The text of an HTML fragment, a paragraph break between blocks (to score a peer's HTML output). */
export function htmlText(html: string): string {
  return flatText(parseDocument(html).body);
}
