import { z } from 'zod';

/** `search`: which providers answer, in what order, and how (docs/decisions/0005-search-chain.md). */
export const searchSchema = z
  .strictObject({
    chain: z
      .union([z.literal('auto'), z.array(z.string().min(1)).min(1)])
      .default('auto')
      .describe(
        'Provider ids in the order they are tried, or `auto`: every provider whose credentials are present (config or the well-known environment variables) in the documented order, then duckduckgo, marginalia and wikipedia.',
      ),
    mode: z
      .enum(['failover', 'fanout'])
      .default('failover')
      .describe(
        '`failover`: one provider at a time, the next on failure. `fanout`: the first `fanout` healthy ones at once, results merged.',
      ),
    fanout: z
      .number()
      .int()
      .min(2)
      .max(10)
      .default(2)
      .describe('Providers asked at once in fanout mode (2–10).'),
    maxResults: z
      .number()
      .int()
      .min(1)
      .max(20)
      .default(5)
      .describe('Results per call when the caller gives no `count` (1–20).'),
    timeoutMs: z
      .number()
      .int()
      .positive()
      .default(10_000)
      .describe('Each provider attempt, queueing excluded, in ms.'),
    safeSearch: z
      .enum(['off', 'moderate', 'strict'])
      .default('moderate')
      .describe(
        'The adult-content filter when a call gives no `safeSearch`: sent to each provider as its own setting (docs/providers.md); a provider without one keeps its default, with a warning unless `moderate`.',
      ),
  })
  .prefault({})
  .describe('`web_search` and `image_search`: which providers answer, in what order, and how.');

/** `providers.<id>`: settings for one provider. */
export const providerEntrySchema = z
  .strictObject({
    apiKey: z
      .string()
      .optional()
      .describe(
        "The provider's API key. Unset: its well-known variable (BRAVE_API_KEY, …; see docs/providers.md).",
      ),
    baseUrl: z
      .string()
      .regex(/^https?:\/\/\S+$/i, 'an http(s) URL')
      .optional()
      .describe(
        "The provider's endpoint (a SearXNG instance, or a local stand-in in tests). Trusted: not checked by the URL policy.",
      ),
    minIntervalMs: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        "Minimum spacing between two requests to this provider, in ms; 0 = none. Default: the provider's free-tier pacing (docs/providers.md).",
      ),
    maxConcurrent: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        "Requests in flight at once. Default: the provider's own (one at a time for duckduckgo, marginalia and wikipedia, else unlimited).",
      ),
    enabled: z.boolean().default(true).describe('`false` removes the provider from every chain.'),
    extras: z
      .record(z.string(), z.unknown())
      .default({})
      .describe(
        'Provider-specific settings (Google CSE `cx`, Kagi `apiVersion`, DuckDuckGo `liteBaseUrl`, …).',
      ),
  })
  .describe('Settings for one search provider, keyed by its id (`brave`, `searxng`, …).');

/** A provider from a module: `{ id: "acme", module: "./acme-provider.js#default" }`, loaded once at start. */
export const customProviderSchema = z
  .strictObject({
    id: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]*$/, 'a kebab-case id such as "acme-search"')
      .describe('The provider id, kebab-case; what `search.chain` and `providers.<id>` use.'),
    module: z
      .string()
      .min(1)
      .describe(
        'Path (relative to the config file) or package name, `#export` optional (default `default`).',
      ),
  })
  .describe('A provider from a module, loaded once at start (docs/adding-a-provider.md).');

/** `providers`: one entry per provider id, plus `custom` modules. Unknown ids are reported by createPeriscope. */
const providersObject = z
  .strictObject({
    custom: z
      .array(customProviderSchema)
      .default([])
      .describe('Your own providers: `[{ id: acme, module: ./acme-provider.js }]`.'),
  })
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
)
  .prefault({})
  .describe(
    'Search providers: `providers.<id>` for any built-in provider (docs/providers.md) or custom one, plus `custom` modules. Unknown ids are reported at start.',
  );
export type SearchConfig = z.infer<typeof searchSchema>;
