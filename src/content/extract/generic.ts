import type { LightElement } from '../html/light-dom.ts';
import { dropFurniture } from './steps/drop-furniture.ts';
import { pickContent } from './steps/pick-content.ts';
import { pruneContent } from './steps/prune-content.ts';
import { restoreTitle } from './steps/restore-title.ts';
import { trimPromotions } from './steps/trim-promotions.ts';
import { measureText } from './text-stats.ts';
import type { Extractor, Removal, Step, StepContext } from './types.ts';

/** The generic extractor's steps, in the order they run. Each can be skipped by name. */
export const GENERIC_STEPS: readonly Step[] = [
  dropFurniture,
  pickContent,
  pruneContent,
  trimPromotions,
  restoreTitle,
];

/**
 * Any page: furniture out, the best-scoring container (and its fellow siblings) chosen, cleaned inside,
 * calls to action after the article dropped, and the headline put back in front when it stood outside.
 * Never `undefined`: it is the last resort.
 */
export const genericExtractor: Extractor = {
  id: 'generic',
  extract(input, options) {
    const body = input.document.body;
    const removals: Removal[] = [];
    const context: StepContext = {
      input,
      body,
      stats: measureText(body),
      roots: [body],
      headlines: body.getElementsByTagName('h1'),
      removals,
      measure() {
        context.stats = measureText(body);
      },
      remove(element, step, reason) {
        removals.push({ step, selector: element.describe(), reason, text: preview(element) });
        element.remove();
      },
    };
    let pageChars: number | undefined;
    for (const step of GENERIC_STEPS) {
      if (options.skipSteps?.has(step.name)) continue;
      step.run(context);
      if (step === dropFurniture) pageChars = context.stats.get(body)?.chars;
    }
    return { extractor: 'generic', roots: context.roots, title: context.title, removals, pageChars };
  },
};

function preview(element: LightElement): string {
  const text = element.textContent.replace(/\s+/g, ' ').trim();
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
