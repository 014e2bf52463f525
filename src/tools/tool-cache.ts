/**
 * What a tool asks of the cache (src/policy/store-cache.ts implements it on the store): the value for a key, or
 * the loaded one. Tools build the key from their normalised request; the cache adds everything else that
 * changes the answer (config, provider chain, scope).
 */
export interface ToolCache {
  read<VALUE>(
    key: string,
    load: () => Promise<VALUE>,
    options?: ToolCacheReadOptions<VALUE>,
  ): Promise<CacheRead<VALUE>>;
  /** Whether a loaded value is small enough to be kept (a cacheable one is, unless this says no). */
  keeps?(value: unknown): boolean;
}

export interface ToolCacheReadOptions<VALUE> {
  /** The caller's agent (for `cache.scope: agent`). */
  agentId?: string | undefined;
  /** The caller's cancellation: a shared load cancelled by another caller is run again for this one. */
  signal?: AbortSignal | undefined;
  /** Whether a loaded value may be kept (default: always); a value that will be reported as an error may not. */
  isCacheable?: (value: VALUE) => boolean;
  /**
   * The oldest kept answer this read accepts, in ms (a tool's `maxAgeSeconds`): an older one is loaded again and
   * the new answer replaces it; 0 reads no kept answer at all. A load in flight for the same key is still joined
   * (its answer is fetched now). Default: any answer still kept (the TTL).
   */
  maxAgeMs?: number | undefined;
}

/** A read's answer: whether it came from the cache (a kept answer, or another caller's load), and its age. */
export interface CacheRead<VALUE> {
  value: VALUE;
  cached: boolean;
  /** With `cached`: how long ago the answer was loaded, in ms (0 for one shared from a load in flight). */
  ageMs?: number | undefined;
}

/** `cache.read`, or a plain load when the tool has no cache. */
export async function readThrough<VALUE>(
  cache: ToolCache | undefined,
  key: string,
  load: () => Promise<VALUE>,
  options?: ToolCacheReadOptions<VALUE>,
): Promise<CacheRead<VALUE>> {
  return cache ? cache.read(key, load, options) : { value: await load(), cached: false };
}
