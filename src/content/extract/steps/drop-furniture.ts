import { ELEMENT_NODE } from '../../html/dom.ts';
import type { LightElement } from '../../html/light-dom.ts';
import { furnitureReason } from '../furniture.ts';
import type { Step, StepContext } from '../types.ts';

/**
 * Page furniture out before anything is scored: navigation, site headers and footers, sidebars, share
 * bars, ads, cookie notices, comment sections (see `furnitureReason`). A wrapper that holds much of the
 * page's text is kept whatever its name says (`<div class="page has-sidebar">`).
 */
export const dropFurniture: Step = {
  name: 'drop-furniture',
  run(context) {
    const bodyChars = context.stats.get(context.body)?.chars ?? 0;
    const found: Array<[LightElement, string]> = [];
    collect(context, context.body, bodyChars, found);
    for (const [element, reason] of found) context.remove(element, 'drop-furniture', reason);
    if (found.length > 0) context.measure();
  },
};

function collect(
  context: StepContext,
  root: LightElement,
  bodyChars: number,
  found: Array<[LightElement, string]>,
): void {
  const pending: LightElement[] = [root];
  while (pending.length > 0) {
    const element = pending.pop()!;
    for (let child = element.firstChild; child; child = child.nextSibling) {
      if (child.nodeType !== ELEMENT_NODE) continue;
      const candidate = child as LightElement;
      const reason = furnitureReason(candidate, context.stats, bodyChars);
      if (reason) found.push([candidate, reason]);
      else if (candidate.firstChild) pending.push(candidate);
    }
  }
}
