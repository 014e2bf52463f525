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
  ): Promise<{ value: VALUE; cached: boolean }>;
}

export interface ToolCacheReadOptions<VALUE> {
  /** The caller's agent (for `cache.scope: agent`). */
  agentId?: string | undefined;
  /** The caller's cancellation: a shared load cancelled by another caller is run again for this one. */
  signal?: AbortSignal | undefined;
  /** Whether a loaded value may be kept (default: always); a value that will be reported as an error may not. */
  isCacheable?: (value: VALUE) => boolean;
}

/** `cache.read`, or a plain load when the tool has no cache. */
export async function readThrough<VALUE>(
  cache: ToolCache | undefined,
  key: string,
  load: () => Promise<VALUE>,
  options?: ToolCacheReadOptions<VALUE>,
): Promise<{ value: VALUE; cached: boolean }> {
  return cache ? cache.read(key, load, options) : { value: await load(), cached: false };
}
