import type { FetchConfig } from '../config/schema.ts';
import type { ExtractMode } from '../content/types.ts';
import type { EgressRequestCheck } from '../egress/egress-gate.ts';
import { PeriscopeError } from '../errors.ts';
import type { DocumentCache } from '../fetch/document-cache.ts';
import type { FetchedPage } from '../fetch/fetch-backend.ts';
import { checkFinalUrl, type FetchChain } from '../fetch/fetch-chain.ts';
import type { HttpFetch } from '../net/types.ts';
import { stageEnd, stageStart } from '../stage-timing.ts';
import { readThrough, type ToolCache } from './tool-cache.ts';

/**
 * Where a read may come from, in this order:
 * - `cache`: the in-process document cache, then the store's page cache; a miss is NOT_CONFIGURED `not-cached`.
 * - `cache-first`: the same, then the fetch chain (web_fetch reading on, or asking a question; verifyCitation).
 * - `store-first`: the page cache, then the chain; not the in-process cache, so a first read is fresh unless the
 *   store keeps pages (web_fetch reading a page from its start). When it does, the in-process copy of a page
 *   younger than the page cache's TTL answers first (`pageCacheTtlMs`): the store would give the same document.
 * - `origin`: the chain, whatever is cached (verifyCitation's `refetch`).
 */
export type DocumentSource = 'cache' | 'cache-first' | 'store-first' | 'origin';

export interface ReadDocumentOptions {
  source: DocumentSource;
  signal?: AbortSignal | undefined;
  /** The caller's agent (for `cache.scope: agent`). */
  agentId?: string | undefined;
  toolCallId?: string | undefined;
  /**
   * The call's egress check (src/egress/): handed to the chain (every request it sends), and run on the final URL
   * of a document that comes from a cache or another caller's fetch (single flight) before it is used.
   */
  egress?: EgressRequestCheck | undefined;
  /**
   * The oldest document this read accepts from either cache, in ms since it was fetched from its origin (web_fetch's
   * `maxAgeSeconds`): an older one is fetched again, and the new copy replaces it in both caches; 0 takes none from
   * a cache (a fetch already in flight for the same document is still joined). Default: any still cached.
   */
  maxAgeMs?: number | undefined;
}

export interface ReadDocument {
  /** The whole document as extracted in the mode asked for (`page.content.text`), with when it was fetched. */
  page: FetchedPage & { retrievedAt: string };
  /** Read from a cache (or another caller's fetch in flight), not fetched by this call. */
  cached: boolean;
  /** With `cached`: how long ago the document was fetched from its origin, in ms. */
  ageMs?: number | undefined;
}

export interface DocumentReaderSettings {
  config: FetchConfig;
  httpFetch: HttpFetch;
  chain: FetchChain;
  /** web_fetch's page cache (the store), when caching is on for web_fetch; single flight is its own. */
  pageCache?: ToolCache | undefined;
  /** The in-process document cache (`fetch.continuationTtlMs`, `fetch.continuationMaxChars`). */
  documents: DocumentCache;
  /**
   * With `pageCache`: how long its entries live (web_fetch's `cache` TTL). A `store-first` read then takes the
   * in-process copy first while it is younger than this: the store's entry, written or read with it, would answer
   * the same document (without the store read and its JSON). Unset: `store-first` always asks the store.
   */
  pageCacheTtlMs?: number | undefined;
  /** `cache.scope`: with `agent`, the in-process cache too is per agent, as the store is. Default `shared`. */
  scope?: 'shared' | 'agent' | undefined;
}

export interface DocumentReader {
  /** The fetch chain's back-end ids, in order (the first is the back-end a document names when it names none). */
  readonly chainIds: readonly string[];
  /**
   * The full extracted document, from the caches or the chain. Every readable document read from the store or
   * the chain is filed in the in-process cache (within its bounds). Rejects with the chain's errors.
   */
  read(url: URL, mode: ExtractMode, options: ReadDocumentOptions): Promise<ReadDocument>;
}

/** A document with something to show: text, or an image. Only those are kept, in either cache. */
export function isReadable(page: FetchedPage): boolean {
  return page.content.text.trim() !== '' || page.content.image !== undefined;
}

/**
 * The one read path of documents, for web_fetch (which windows or focuses what it reads) and verifyCitation (which
 * needs the whole text): the keys, the cache order, what is kept, and `retrievedAt`. It is not a tool call:
 * limits, credits and usage are the caller's business (index.ts puts verifyCitation's network reads behind the
 * call policy as web_fetch calls).
 */
export function createDocumentReader(settings: DocumentReaderSettings): DocumentReader {
  const { config, httpFetch, chain, documents, pageCache } = settings;
  const limits = {
    pdfMaxPages: config.pdfMaxPages,
    pdfMaxBytes: config.pdfMaxBytes,
    imageMaxBytes: config.imageMaxBytes,
  };
  /** In-process copies the store keeps too (read from it, or small enough to be written to it). */
  const inStore = new WeakSet<FetchedPage>();
  return {
    chainIds: chain.ids,
    async read(url, mode, options) {
      // The store adds the scope to its own keys; the in-process cache is told it here.
      const key = `${chain.ids.join('+')} ${mode} ${url.href}`;
      const heldKey = settings.scope === 'agent' ? `${key}\n${options.agentId ?? ''}` : key;
      const signal = options.signal ?? new AbortController().signal;
      const { maxAgeMs } = options;
      const storeKeeps = pageCache !== undefined && settings.pageCacheTtlMs !== undefined;
      const heldFirst =
        options.source === 'cache' ||
        options.source === 'cache-first' ||
        (options.source === 'store-first' && storeKeeps);
      if (heldFirst && maxAgeMs !== 0) {
        const looking = stageStart();
        const held = documents.get(heldKey);
        const ageMs = held && ageOf(held);
        const fresh =
          ageMs !== undefined &&
          (maxAgeMs === undefined || ageMs <= maxAgeMs) &&
          (options.source !== 'store-first' ||
            (held !== undefined && inStore.has(held) && ageMs < (settings.pageCacheTtlMs ?? 0)));
        stageEnd('cache', looking);
        if (held && fresh) {
          if (options.egress) await checkFinalUrl(held, url, options.egress);
          return { page: stamped(held), cached: true, ageMs };
        }
      }
      // `retrievedAt` is the time the origin was read; it stays with the document in both caches.
      const fromChain = async (): Promise<FetchedPage> => ({
        ...(await chain.fetch(
          { url, mode, limits, toolCallId: options.toolCallId, egress: options.egress },
          { signal, fetch: httpFetch },
        )),
        retrievedAt: new Date().toISOString(),
      });
      const read =
        options.source === 'origin'
          ? { value: await fromChain(), cached: false }
          : await readThrough(
              pageCache,
              key,
              options.source === 'cache' ? () => Promise.reject(notCached(url)) : fromChain,
              { agentId: options.agentId, signal, isCacheable: isReadable, maxAgeMs },
            );
      // A cached document, or one another call fetched (single flight), went where this call may not have.
      if (options.egress) await checkFinalUrl(read.value, url, options.egress);
      // A store entry kept before `retrievedAt` was: its time is unknown, say now (and keep saying it).
      const page = stamped(read.value);
      const started = stageStart();
      if (isReadable(page)) {
        const written = pageCache !== undefined && options.source !== 'origin'; // an origin read is not kept
        if (written && pageCache.keeps?.(read.value) !== false) inStore.add(page);
        documents.set(heldKey, page);
      }
      stageEnd('cache', started);
      return read.cached ? { page, cached: true, ageMs: read.ageMs ?? ageOf(page) } : { page, cached: false };
    },
  };
}

/** How long ago a document was fetched from its origin (its `retrievedAt`), in ms; undefined when unknown. */
function ageOf(page: FetchedPage): number | undefined {
  const fetchedAt = page.retrievedAt === undefined ? Number.NaN : Date.parse(page.retrievedAt);
  return Number.isNaN(fetchedAt) ? undefined : Math.max(0, Date.now() - fetchedAt);
}

function stamped(page: FetchedPage): FetchedPage & { retrievedAt: string } {
  return { ...page, retrievedAt: page.retrievedAt ?? new Date().toISOString() };
}

function notCached(url: URL): PeriscopeError {
  return new PeriscopeError(
    'NOT_CONFIGURED',
    `${url.href} is not in the document cache, and this read was asked not to fetch it`,
    { retryable: false, details: { url: url.href, reason: 'not-cached' } },
  );
}
