import type { SearchProvider } from '../types.ts';
import { braveSearchProvider } from './brave.ts';
import { duckduckgoSearchProvider } from './duckduckgo.ts';
import { exaSearchProvider } from './exa.ts';
import { firecrawlSearchProvider } from './firecrawl.ts';
import { googleCseSearchProvider } from './google-cse.ts';
import { infoquestSearchProvider } from './infoquest.ts';
import { jinaSearchProvider } from './jina.ts';
import { kagiSearchProvider } from './kagi.ts';
import { marginaliaSearchProvider } from './marginalia.ts';
import { searxngSearchProvider } from './searxng.ts';
import { serpapiSearchProvider } from './serpapi.ts';
import { serperSearchProvider } from './serper.ts';
import { tavilySearchProvider } from './tavily.ts';
import { wikipediaSearchProvider } from './wikipedia.ts';

/**
 * Every built-in provider, keyed by id. One line per provider; the order here is not the chain order
 * (that is `search.chain`, or the documented `auto` order).
 */
export const BUILT_IN_PROVIDERS: ReadonlyMap<string, SearchProvider> = new Map<string, SearchProvider>(
  [
    // Each provider file adds itself here.
    duckduckgoSearchProvider,
    marginaliaSearchProvider,
    wikipediaSearchProvider,
    braveSearchProvider,
    tavilySearchProvider,
    searxngSearchProvider,
    jinaSearchProvider,
    kagiSearchProvider,
    exaSearchProvider,
    serperSearchProvider,
    firecrawlSearchProvider,
    infoquestSearchProvider,
    serpapiSearchProvider,
    googleCseSearchProvider,
  ].map((provider: SearchProvider) => [provider.id, provider]),
);
