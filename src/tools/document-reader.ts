import type { FetchConfig } from '../config/schema.ts';
import type { ExtractMode } from '../content/types.ts';
import { PeriscopeError } from '../errors.ts';
import type { DocumentCache } from '../fetch/document-cache.ts';
import type { FetchedPage } from '../fetch/fetch-backend.ts';
import type { FetchChain } from '../fetch/fetch-chain.ts';
import type { HttpFetch } from '../net/types.ts';
import type { ToolCache } from './tool-cache.ts';

/**
 * Where a read may come from: `cache` only (the in-process document cache, then the store's page cache; a miss is
 * NOT_CONFIGURED `not-cached`), `cache-first` (then the fetch chain, kept in the page cache as web_fetch keeps it),
 * or `origin` (the fetch chain, whatever is cached; the fresh document replaces the in-process one).
 */
export type DocumentSource = 'cache' | 'cache-first' | 'origin';

export interface ReadDocumentOptions {
  source: DocumentSource;
  signal?: AbortSignal | undefined;
  /** The caller's agent (for `cache.scope: agent`). */
  agentId?: string | undefined;
  toolCallId?: string | undefined;
}

export interface ReadDocument {
  /** The whole document as extracted in the mode asked for (`page.content.text`). */
  page: FetchedPage;
  /** Read from a cache, not fetched. */
  cached: boolean;
}

export interface DocumentReaderSettings {
  config: FetchConfig;
  httpFetch: HttpFetch;
  chain: FetchChain;
  /** web_fetch's page cache (the store), when caching is on for web_fetch. */
  pageCache?: ToolCache | undefined;
  /** web_fetch's in-process document cache (continuation reads). */
  documents: DocumentCache;
}

export interface DocumentReader {
  /** The full extracted document, from the caches web_fetch fills or from the chain. Rejects with the chain's errors. */
  read(url: URL, mode: ExtractMode, options: ReadDocumentOptions): Promise<ReadDocument>;
}

/** The key web_fetch files a document under, in its document cache and its page cache. */
export function documentCacheKey(chainIds: readonly string[], mode: ExtractMode, url: URL): string {
  return `${chainIds.join('+')} ${mode} ${url.href}`;
}

/**
 * The read path of web_fetch's documents for callers that need the whole text, not a window (verifyCitation):
 * the same keys, the same caches, the same chain. It is not a tool call: limits, credits and usage are the
 * caller's business (index.ts puts the chain read behind the call policy as a web_fetch call).
 */
export function createDocumentReader(settings: DocumentReaderSettings): DocumentReader {
  const { config, httpFetch, chain, documents } = settings;
  const limits = {
    pdfMaxPages: config.pdfMaxPages,
    pdfMaxBytes: config.pdfMaxBytes,
    imageMaxBytes: config.imageMaxBytes,
  };
  return {
    async read(url, mode, options) {
      const key = documentCacheKey(chain.ids, mode, url);
      const signal = options.signal ?? new AbortController().signal;
      // `retrievedAt` as web_fetch sets it: a document this read files is cited with the time it was fetched.
      const fromChain = async (): Promise<FetchedPage> => ({
        ...(await chain.fetch(
          { url, mode, limits, toolCallId: options.toolCallId },
          { signal, fetch: httpFetch },
        )),
        retrievedAt: new Date().toISOString(),
      });
      if (options.source === 'origin') {
        const page = await fromChain();
        documents.set(key, page);
        return { page, cached: false };
      }
      const held = documents.get(key);
      if (held) return { page: held, cached: true };
      const load =
        options.source === 'cache'
          ? () => Promise.reject(notCached(url))
          : async () => {
              const page = await fromChain();
              return page as FetchedPage;
            };
      if (!settings.pageCache) return { page: await load(), cached: false };
      const read = await settings.pageCache.read(key, load, {
        agentId: options.agentId,
        signal,
        isCacheable: (page) => page.content.text.trim() !== '' || page.content.image !== undefined,
      });
      return { page: read.value, cached: read.cached };
    },
  };
}

function notCached(url: URL): PeriscopeError {
  return new PeriscopeError(
    'NOT_CONFIGURED',
    `${url.href} is not in the document cache, and this read was asked not to fetch it`,
    { retryable: false, details: { url: url.href, reason: 'not-cached' } },
  );
}
