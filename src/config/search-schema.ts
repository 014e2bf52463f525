import { z } from 'zod';

/** `search`: which providers answer, in what order, and how. */
export const searchSchema = z
  .strictObject({
    /**
     * Provider ids in the order they are tried, or `auto`: every provider whose credentials are present (config or
     * the well-known environment variables) in the documented order, then duckduckgo, then wikipedia.
     */
    chain: z.union([z.literal('auto'), z.array(z.string().min(1)).min(1)]).default('auto'),
    /** `failover`: one provider at a time, the next on failure. `fanout`: the first `fanout` healthy ones at once, merged. */
    mode: z.enum(['failover', 'fanout']).default('failover'),
    /** Providers asked at once in fanout mode. */
    fanout: z.number().int().min(2).max(10).default(2),
    /** Results per call when the caller gives no `count` (1–20). */
    maxResults: z.number().int().min(1).max(20).default(5),
    /** Each provider attempt, queueing excluded. */
    timeoutMs: z.number().int().positive().default(10_000),
  })
  .prefault({});

/** `providers.<id>`: settings for one provider. */
export const providerEntrySchema = z.strictObject({
  /** Falls back to the provider's well-known variable (BRAVE_API_KEY, …). */
  apiKey: z.string().optional(),
  /** The provider's endpoint (a SearXNG instance, or a local stand-in in tests). Trusted: not checked by the URL policy. */
  baseUrl: z
    .string()
    .regex(/^https?:\/\/\S+$/i, 'an http(s) URL')
    .optional(),
  /** Minimum spacing between two requests to this provider; default: the provider's free-tier pacing. 0 = none. */
  minIntervalMs: z.number().int().min(0).optional(),
  /** Requests in flight at once; default unlimited, 1 for duckduckgo. */
  maxConcurrent: z.number().int().positive().optional(),
  /** `false` removes the provider from every chain. */
  enabled: z.boolean().default(true),
  /** Provider-specific settings (Google CSE `cx`, Kagi `apiVersion`, DuckDuckGo `liteBaseUrl`, …). */
  extras: z.record(z.string(), z.unknown()).default({}),
});

/** A provider from a module: `{ id: "acme", module: "./acme-provider.js#default" }`, loaded once at start. */
export const customProviderSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'a kebab-case id such as "acme-search"'),
  /** Path (relative to the config file) or package name, `#export` optional (default `default`). */
  module: z.string().min(1),
});

/** `providers`: one entry per provider id, plus `custom` modules. Unknown ids are reported by createPeriscope. */
const providersObject = z
  .strictObject({ custom: z.array(customProviderSchema).default([]) })
  .catchall(providerEntrySchema);

export type ProviderEntryConfig = z.infer<typeof providerEntrySchema>;
export type CustomProviderConfig = z.infer<typeof customProviderSchema>;
/** `providers` as validated: `custom` plus one entry per provider id. */
export type ProvidersConfig = {
  custom: CustomProviderConfig[];
  [id: string]: ProviderEntryConfig | CustomProviderConfig[];
};
/** `providers` as written (every key optional). Spelt out because zod's inferred type cannot mix `custom` with ids. */
export type ProvidersConfigInput = {
  custom?: Array<z.input<typeof customProviderSchema>> | undefined;
  [id: string]: z.input<typeof providerEntrySchema> | Array<z.input<typeof customProviderSchema>> | undefined;
};

export const providersSchema = (
  providersObject as unknown as z.ZodType<ProvidersConfig, ProvidersConfigInput>
).prefault({});
export type SearchConfig = z.infer<typeof searchSchema>;
