import { ELEMENT_NODE } from '../../html/dom.ts';
import type { LightElement } from '../../html/light-dom.ts';
import { furnitureReason } from '../furniture.ts';
import type { Step, StepContext } from '../types.ts';
import { finalScore, scoreCandidates } from './pick-content.ts';

/**
 * Page furniture out before anything is scored: navigation, site headers and footers, sidebars, share
 * bars, ads, cookie notices, comment sections (see `furnitureReason`). A wrapper that holds much of the
 * page's prose and the best-scoring block of text is kept whatever its name says
 * (`<div class="page has-sidebar">`); a "related stories" block as long as the article is not.
 */
export const dropFurniture: Step = {
  name: 'drop-furniture',
  run(context) {
    const body = context.stats.get(context.body);
    const bodyProse = (body?.chars ?? 0) - (body?.linkChars ?? 0);
    const found: Array<[LightElement, string]> = [];
    const article = provisionalArticle(context);
    const main = context.body
      .getElementsByTagName('main')
      .find((element) => (context.stats.get(element)?.chars ?? 0) > 0);
    collect(context, context.body, bodyProse, article, main, found);
    for (const [element, reason] of found) context.remove(element, 'drop-furniture', reason);
    if (found.length > 0) context.measure();
  },
};

function collect(
  context: StepContext,
  root: LightElement,
  bodyProse: number,
  article: LightElement | undefined,
  main: LightElement | undefined,
  found: Array<[LightElement, string]>,
): void {
  const pending: LightElement[] = [root];
  while (pending.length > 0) {
    const element = pending.pop()!;
    for (let child = element.firstChild; child; child = child.nextSibling) {
      if (child.nodeType !== ELEMENT_NODE) continue;
      const candidate = child as LightElement;
      const reason = furnitureReason(candidate, context.stats, bodyProse, article, main);
      if (reason) found.push([candidate, reason]);
      else if (candidate.firstChild) pending.push(candidate);
    }
  }
}

/** The best-scoring container before anything is removed: what a wrapper must hold to be one. */
function provisionalArticle(context: StepContext): LightElement | undefined {
  let best: LightElement | undefined;
  let bestScore = 0;
  for (const [element, score] of scoreCandidates(context)) {
    const final = finalScore(element, score, context.stats);
    if (final > bestScore) {
      best = element;
      bestScore = final;
    }
  }
  return best;
}
