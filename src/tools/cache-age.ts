import { z } from 'zod';

/** The largest `maxAgeSeconds` taken: a year (no cache keeps answers that long). */
export const MAX_AGE_SECONDS_LIMIT = 31_536_000;

/**
 * `maxAgeSeconds` of web_search, image_search and web_fetch: the oldest cached answer the call accepts. The rules
 * (docs/decisions/0008-call-policy.md, "Cache age"): an answer's age is the time since it was fetched from the provider or the
 * origin; an older one is fetched again and replaces it; 0 takes nothing from a cache; unset, any answer still
 * kept (the configured TTL) will do.
 */
export const cacheInputFields = {
  maxAgeSeconds: z
    .number()
    .int()
    .min(0)
    .max(MAX_AGE_SECONDS_LIMIT)
    .optional()
    .describe('Oldest cached answer to accept, in seconds (0: live).'),
};

/** A call's `maxAgeSeconds` as the caches take it (ms); undefined when not given. */
export function maxAgeMs(input: { maxAgeSeconds?: number | undefined }): number | undefined {
  return input.maxAgeSeconds === undefined ? undefined : input.maxAgeSeconds * 1000;
}

/** Whole seconds of a cached answer's age (`data.cacheAgeSeconds`). */
export function ageSeconds(ageMs: number | undefined): number {
  return Math.max(0, Math.floor((ageMs ?? 0) / 1000));
}

/** `0 s`, `42 s`, `5 min`, `3 h`, `2 d` (rounded down). */
export function formatAge(seconds: number): string {
  if (seconds < 60) return `${Math.max(0, Math.floor(seconds))} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}

/** The model's one line about a cached answer, before the answer. */
export function cachedNote(seconds: number): string {
  return `[From cache, ${formatAge(seconds)} old; set maxAgeSeconds to 0 for a live answer.]`;
}
