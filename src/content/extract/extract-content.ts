import { genericExtractor } from './generic.ts';
import type { ContentSelection, ExtractionInput, ExtractionOptions, Extractor } from './types.ts';

/** Site-specific extractors, tried in order before the generic one. */
export const SITE_EXTRACTORS: readonly Extractor[] = [];

/** The first extractor that claims the page chooses its content; the generic one takes the rest. */
export function extractContent(input: ExtractionInput, options: ExtractionOptions = {}): ContentSelection {
  for (const extractor of SITE_EXTRACTORS) {
    const selection = extractor.extract(input, options);
    if (selection) return selection;
  }
  return genericExtractor.extract(input, options)!;
}
