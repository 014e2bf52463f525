import { genericExtractor } from './generic.ts';
import { docsExtractor } from './sites/docs.ts';
import { forumExtractor } from './sites/forums.ts';
import { gitHubExtractor } from './sites/github.ts';
import { mediaWikiExtractor } from './sites/mediawiki.ts';
import { stackExchangeExtractor } from './sites/stack-exchange.ts';
import type { ContentSelection, ExtractionInput, ExtractionOptions, Extractor } from './types.ts';

/**
 * Site-specific extractors, tried in order before the generic one. Each detects its family by a few
 * attributes (generator `<meta>`, `<html>`/`<body>` classes, host) before walking the tree, and gives way
 * (`undefined`) when its container is missing or nearly empty. See `sites/`.
 */
export const SITE_EXTRACTORS: readonly Extractor[] = [
  mediaWikiExtractor,
  stackExchangeExtractor,
  forumExtractor,
  gitHubExtractor,
  docsExtractor,
];

/** The first extractor that claims the page chooses its content; the generic one takes the rest. */
export function extractContent(input: ExtractionInput, options: ExtractionOptions = {}): ContentSelection {
  for (const extractor of SITE_EXTRACTORS) {
    if (options.skipSteps?.has(extractor.id)) continue;
    const selection = extractor.extract(input, options);
    if (selection) return selection;
  }
  return genericExtractor.extract(input, options)!;
}
