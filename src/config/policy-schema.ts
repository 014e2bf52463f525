import { z } from 'zod';

const positiveMs = z.number().int().positive();

/** `{ count, windowMs }`: at most `count` calls in any span of `windowMs`. */
const rateWindowSchema = z.strictObject({
  count: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  windowMs: positiveMs.max(Number.MAX_SAFE_INTEGER),
});

const cost = (value: number) => z.number().int().min(0).max(1_000_000).default(value);

/**
 * `limits`: the controls in front of every tool call (docs/decisions/0008-call-policy.md), in this order: repeat
 * throttle, rate limits, credits. All are per agent (`agentId`); the repeat throttle is per session.
 */
export const limitsSchema = z
  .strictObject({
    /** A session may make the same lookup this many times; the next is REPEATED_LOOKUP. `false` turns it off. */
    repeatLookups: z.union([z.literal(false), z.number().int().min(1).max(1000)]).default(2),
    /** How long a session's lookups are remembered, from the first one. */
    repeatWindowMs: positiveMs.default(3_600_000),
    /** Sliding-window call limits; none by default. */
    rate: z
      .strictObject({
        /** Every tool call of one agent. */
        perAgent: rateWindowSchema.optional(),
        /** One tool's calls by one agent. */
        perTool: z
          .strictObject({
            web_fetch: rateWindowSchema.optional(),
            web_search: rateWindowSchema.optional(),
            image_search: rateWindowSchema.optional(),
          })
          .prefault({}),
      })
      .prefault({}),
    /** When the store is unreachable, let calls through the rate limits instead of refusing them. */
    failOpen: z.boolean().default(false),
    credits: z
      .strictObject({
        enabled: z.boolean().default(false),
        /** Credits one call costs, per tool. */
        cost: z.strictObject({ web_search: cost(2), web_fetch: cost(1), image_search: cost(2) }).prefault({}),
        /** Balance an agent starts with the first time it calls (a ledger entry `initial`); default none. */
        initial: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
      })
      .prefault({}),
  })
  .prefault({});

const toolCacheSchema = z
  .strictObject({ enabled: z.boolean().optional(), ttlMs: positiveMs.optional() })
  .prefault({});

/** `cache`: search results and fetched documents, in the store, shared by every process that uses it. */
export const cacheSchema = z
  .strictObject({
    enabled: z.boolean().default(true),
    ttlMs: positiveMs.default(900_000),
    /** Largest entry kept, in characters of its JSON (a longer document is fetched again, or read on in memory). */
    maxEntryChars: z.number().int().positive().default(2_000_000),
    /** `shared`: one cache for every agent; `agent`: each agent its own (no agent learns what another read). */
    scope: z.enum(['shared', 'agent']).default('shared'),
    perTool: z
      .strictObject({
        web_fetch: toolCacheSchema,
        web_search: toolCacheSchema,
        image_search: toolCacheSchema,
      })
      .prefault({}),
  })
  .prefault({});

/** `usage`: counters per agent, tool, provider and day, in the store. */
export const usageSchema = z
  .strictObject({
    enabled: z.boolean().default(true),
    /** Days a day's counters are kept. */
    retentionDays: z.number().int().positive().max(3650).default(90),
  })
  .prefault({});

export type LimitsConfig = z.infer<typeof limitsSchema>;
export type CacheConfig = z.infer<typeof cacheSchema>;
export type UsageConfig = z.infer<typeof usageSchema>;
export type RateWindow = z.infer<typeof rateWindowSchema>;
