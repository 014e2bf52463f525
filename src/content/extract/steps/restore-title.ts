import type { LightElement } from '../../html/light-dom.ts';
import type { Step } from '../types.ts';

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * The article's headline, when the chosen content starts below it: the first `<h1>` (or the heading that
 * repeats the page title) outside the content is written first. Inside the content it stays where it is.
 */
export const restoreTitle: Step = {
  name: 'restore-title',
  run(context) {
    const headings = context.headlines;
    const inside = (element: LightElement) => context.roots.some((root) => contains(root, element));
    if (headings.some(inside)) return;
    const pageTitle = squash(context.input.metadata.title ?? context.input.document.title);
    const heading =
      headings.find((h1) => pageTitle.includes(squash(h1.textContent)) && squash(h1.textContent) !== '') ??
      headings.find((h1) => squash(h1.textContent) !== '');
    if (heading) context.title = squash(heading.textContent);
  },
};

function contains(ancestor: LightElement, element: LightElement): boolean {
  for (let node: LightElement | null = element; node; node = node.parentNode as LightElement | null) {
    if (node === ancestor) return true;
  }
  return false;
}
