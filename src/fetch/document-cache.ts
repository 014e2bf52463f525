import type { FetchedPage } from './fetch-backend.ts';

export interface DocumentCacheOptions {
  /** How long a document stays readable by continuation calls. */
  ttlMs: number;
  /** Total characters held; the least recently used documents go first. */
  maxChars: number;
  now?: () => number;
}

interface Entry {
  page: FetchedPage;
  size: number;
  expiresAt: number;
}

/**
 * In-process cache of rendered documents (every one web_fetch reads, src/tools/document-reader.ts), so reading
 * page 2 of a long document (`startIndex > 0`), asking another question of it (web_fetch's `query`) or checking a
 * quote from it (verifyCitation) does not download and extract it again. Bounded by characters and time; least
 * recently used first out.
 */
export class DocumentCache {
  readonly #entries = new Map<string, Entry>();
  readonly #ttlMs: number;
  readonly #maxChars: number;
  readonly #now: () => number;
  #size = 0;

  constructor(options: DocumentCacheOptions) {
    this.#ttlMs = options.ttlMs;
    this.#maxChars = options.maxChars;
    this.#now = options.now ?? Date.now;
  }

  get(key: string): FetchedPage | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    if (entry.expiresAt <= this.#now()) {
      this.#size -= entry.size;
      return undefined;
    }
    this.#entries.set(key, entry); // most recently used goes last
    return entry.page;
  }

  set(key: string, page: FetchedPage): void {
    this.delete(key);
    const size = page.content.text.length + (page.content.image?.base64.length ?? 0);
    if (size > this.#maxChars) return;
    this.#entries.set(key, { page, size, expiresAt: this.#now() + this.#ttlMs });
    this.#size += size;
    for (const [oldest, entry] of this.#entries) {
      if (this.#size <= this.#maxChars) break;
      this.#entries.delete(oldest);
      this.#size -= entry.size;
    }
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#size -= entry.size;
  }

  get size(): number {
    return this.#entries.size;
  }
}
