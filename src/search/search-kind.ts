import type { NetworkPolicy } from '../net/network-policy.ts';
import { imageResultKey, webResultKey } from './merge-results.ts';
import { normaliseImageResults, normaliseWebResults } from './normalise-results.ts';
import type { ProviderState } from './provider-state.ts';
import type {
  ImageResult,
  ImageSearchRequest,
  ProviderContext,
  ProviderResponse,
  SearchProvider,
  SearchRequest,
  SearchResult,
} from './types.ts';

/** What the chain does differently for web and for image search. */
export interface SearchKind<REQUEST, RESULT> {
  name: 'web' | 'images';
  call(
    provider: SearchProvider,
  ): ((request: REQUEST, context: ProviderContext) => Promise<ProviderResponse<RESULT>>) | undefined;
  /** The tool's form of the results, and warnings about what was dropped (private image URLs). */
  normalise(
    results: RESULT[],
    count: number,
    state: ProviderState,
  ): { results: RESULT[]; warnings: string[] };
  key(result: RESULT): string | undefined;
  /** The URL the egress domain rules judge a result by: a web result's, the page an image is on (else the image). */
  resultUrl(result: RESULT): unknown;
  /** The normalised date `after`/`before` judge a result by (web results; images carry none). */
  publishedAt(result: RESULT): string | undefined;
}

export const webSearchKind: SearchKind<SearchRequest, SearchResult> = {
  name: 'web',
  call: (provider) => provider.search,
  normalise: (results, count) => ({ results: normaliseWebResults(results, count), warnings: [] }),
  key: webResultKey,
  resultUrl: (result) => result?.url,
  publishedAt: (result) => result.publishedAt,
};

/** Image results on private addresses are dropped unless the network policy (network.allowPrivateNetwork) opens them. */
export function imageSearchKind(
  networkPolicy: NetworkPolicy | undefined,
): SearchKind<ImageSearchRequest, ImageResult> {
  return {
    name: 'images',
    call: (provider) => provider.searchImages,
    normalise: (results, count, state) =>
      normaliseImageResults(results, count, {
        networkPolicy,
        trustedBaseUrl: state.settings.baseUrl,
        provider: state.provider.id,
      }),
    key: imageResultKey,
    resultUrl: (result) => result?.sourceUrl ?? result?.imageUrl,
    publishedAt: () => undefined,
  };
}
