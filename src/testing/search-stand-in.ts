import { throwForStatus } from '../net/http-status.ts';
import type { ImageResult, SearchProvider, SearchResult } from '../search/types.ts';
import { jsonReply, type StandInReply, startProviderStandIn } from './provider-stand-in.ts';
import type { TestServer } from './test-server.ts';

/**
 * A search API on 127.0.0.1 for the policy tests: `GET /search?q=…` and `GET /images?q=…` answer two results
 * naming the query. A query containing `fail-503` gets a 503, `fail-429` a 429, `slow` waits 150 ms first.
 */
export function startSearchStandIn(): Promise<TestServer> {
  return startProviderStandIn((call): StandInReply => {
    const query = call.url.searchParams.get('q') ?? '';
    if (query.includes('fail-503')) return jsonReply({ error: 'down' }, 503);
    if (query.includes('fail-429')) return jsonReply({ error: 'slow down' }, 429, { 'retry-after': '30' });
    const slug = encodeURIComponent(query);
    const body =
      call.url.pathname === '/images'
        ? { results: [{ title: `Image of ${query}`, imageUrl: `https://img.example/${slug}.png` }] }
        : {
            results: [
              { title: `About ${query}`, url: `https://one.example/${slug}`, snippet: `First on ${query}` },
              { title: `More on ${query}`, url: `https://two.example/${slug}`, snippet: 'Second' },
            ],
          };
    return { ...jsonReply(body), ...(query.includes('slow') ? { delayMs: 150 } : {}) };
  });
}

/** A SearchProvider that asks the stand-in at `baseUrl` over the real guarded client. */
export function createStandInSearchProvider(baseUrl: string, id = 'stand-in'): SearchProvider {
  async function ask<RESULT>(
    path: string,
    query: string,
    context: Parameters<NonNullable<SearchProvider['search']>>[1],
  ) {
    const url = `${baseUrl}${path}?q=${encodeURIComponent(query)}`;
    const response = await context.fetch(url, { signal: context.signal, trusted: true });
    throwForStatus(response, { provider: id });
    return JSON.parse(Buffer.from(response.body).toString('utf8')) as { results: RESULT[] };
  }
  return {
    id,
    keyEnv: [],
    minIntervalMs: 0,
    isConfigured: () => true,
    search: (request, context) => ask<SearchResult>('/search', request.query, context),
    searchImages: (request, context) => ask<ImageResult>('/images', request.query, context),
  };
}
