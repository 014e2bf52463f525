import type { SearchConfig } from '../config/search-schema.ts';
import type { ProviderState } from './provider-state.ts';

/**
 * `search.chain: auto`: providers whose credentials are present, in this order — search APIs with their own
 * index first, then Google-result APIs, then reader/crawl services, then a self-hosted SearXNG — followed by the
 * keyless tail: `duckduckgo`, `marginalia` (a web index of its own, on a shared key), `wikipedia` (facts, the last
 * resort). Custom providers come first. See docs/decisions/0005-search-chain.md.
 */
export const AUTO_ORDER: readonly string[] = [
  'brave',
  'tavily',
  'kagi',
  'exa',
  'serper',
  'serpapi',
  'google-cse',
  'jina',
  'firecrawl',
  'infoquest',
  'searxng',
];
export const KEYLESS_TAIL: readonly string[] = ['duckduckgo', 'marginalia', 'wikipedia'];

/** The chain's ids in order: `search.chain` as written (switched-off ones left out), or what `auto` resolves to. */
export function chainOrder(
  chain: SearchConfig['chain'],
  all: ReadonlyMap<string, ProviderState>,
  customIds: readonly string[],
): string[] {
  if (chain !== 'auto') return chain.filter((id) => all.get(id)?.enabled !== false);
  const usable = (id: string) => {
    const state = all.get(id);
    return state?.enabled === true && state.configured;
  };
  const builtInKeyed = [...all.keys()].filter(
    (id) => !customIds.includes(id) && !KEYLESS_TAIL.includes(id) && !AUTO_ORDER.includes(id),
  );
  const ordered = [...customIds, ...AUTO_ORDER, ...builtInKeyed, ...KEYLESS_TAIL];
  return [...new Set(ordered)].filter(usable);
}
