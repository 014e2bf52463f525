import { Readability } from '@mozilla/readability';
import type { DomDocument, DomElement } from './dom.ts';

export interface ReadabilityArticle {
  content: DomElement;
  title?: string | undefined;
  byline?: string | undefined;
  publishedAt?: string | undefined;
  language?: string | undefined;
  siteName?: string | undefined;
}

/**
 * Mozilla Readability on the parsed document (which it modifies). Returns the article element itself
 * (no HTML round trip), or `undefined` when it finds nothing or fails on the tree.
 */
export function runReadability(document: DomDocument): ReadabilityArticle | undefined {
  let result: ReturnType<Readability<DomElement>['parse']>;
  try {
    // keepClasses: `language-x` classes name the language of code blocks.
    const readability = new Readability<DomElement>(document as never, {
      keepClasses: true,
      serializer: (node) => node as unknown as DomElement,
    });
    result = readability.parse();
  } catch {
    // Readability or the DOM gave up on this tree (e.g. a RangeError): the caller falls back to the body.
    return undefined;
  }
  if (!result?.content) return undefined;
  return {
    content: result.content,
    title: orUndefined(result.title),
    byline: orUndefined(result.byline),
    publishedAt: orUndefined(result.publishedTime),
    language: orUndefined(result.lang),
    siteName: orUndefined(result.siteName),
  };
}

function orUndefined(value: string | null | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
