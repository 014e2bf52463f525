import { z } from 'zod';

const positiveMs = z.number().int().positive();

/** `{ count, windowMs }`: at most `count` calls in any span of `windowMs`. */
const rateWindowSchema = z.strictObject({
  count: z
    .number()
    .int()
    .positive()
    .max(Number.MAX_SAFE_INTEGER)
    .describe('Calls allowed in any one window.'),
  windowMs: positiveMs.max(Number.MAX_SAFE_INTEGER).describe('The sliding window, in ms.'),
});

const rateWindow = (description: string) =>
  rateWindowSchema
    .optional()
    .describe(
      `${description} \`{ count, windowMs }\`: at most \`count\` calls in any span of \`windowMs\`; unset: no limit.`,
    );

const cost = (tool: string, value: number) =>
  z
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(value)
    .describe(`Credits one ${tool} call costs (0–1 000 000).`);

const sessionCalls = (tool: string) =>
  z
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .describe(`${tool} calls one session may make; unset: no limit.`);

/**
 * `limits`: the controls in front of every tool call (docs/decisions/0008-call-policy.md), in this order: repeat
 * throttle, rate limits, credits. All are per agent (`agentId`); the repeat throttle is per session.
 */
export const limitsSchema = z
  .strictObject({
    repeatLookups: z
      .union([z.literal(false), z.number().int().min(1).max(1000)])
      .default(2)
      .describe(
        'A session may make the same lookup this many times (1–1000); the next is REPEATED_LOOKUP. `false` turns the throttle off.',
      ),
    repeatWindowMs: positiveMs
      .default(3_600_000)
      .describe("How long a session's lookups are remembered, from the first one, in ms."),
    rate: z
      .strictObject({
        perAgent: rateWindow('Every tool call of one agent.'),
        perTool: z
          .strictObject({
            web_fetch: rateWindow('web_fetch calls of one agent.'),
            web_search: rateWindow('web_search calls of one agent.'),
            image_search: rateWindow('image_search calls of one agent.'),
            verify_citation: rateWindow('verify_citation calls of one agent.'),
          })
          .prefault({})
          .describe("One tool's calls by one agent."),
      })
      .prefault({})
      .describe(
        'Sliding-window call limits, shared by every process on the store; over one: RATE_LIMITED. None by default.',
      ),
    failOpen: z
      .boolean()
      .default(false)
      .describe(
        'When the store is unreachable, let calls through the rate limits instead of refusing them (never past credits).',
      ),
    credits: z
      .strictObject({
        enabled: z
          .boolean()
          .default(false)
          .describe(
            "Charge each call its tool's cost from the agent's balance; short of credits: CREDITS_EXHAUSTED. Grant with `periscope credits grant`.",
          ),
        cost: z
          .strictObject({
            web_search: cost('web_search', 2),
            web_fetch: cost('web_fetch', 1),
            image_search: cost('image_search', 2),
            verify_citation: cost('verify_citation', 0).describe(
              'Credits one verify_citation call costs (0–1 000 000); the page it reads when not cached is a web_fetch call, charged as one.',
            ),
          })
          .prefault({})
          .describe('Credits one call costs, per tool.'),
        initial: z
          .number()
          .int()
          .positive()
          .max(Number.MAX_SAFE_INTEGER)
          .optional()
          .describe(
            'Balance an agent starts with the first time it calls (a ledger entry `initial`); unset: none.',
          ),
      })
      .prefault({})
      .describe('Per-agent credit balances, kept as a ledger in the store.'),
    session: z
      .strictObject({
        maxCalls: z
          .strictObject({
            web_fetch: sessionCalls('web_fetch'),
            web_search: sessionCalls('web_search'),
            image_search: sessionCalls('image_search'),
            verify_citation: sessionCalls('verify_citation'),
          })
          .prefault({})
          .describe('Calls one session may make, per tool; unset: no limit.'),
        maxCredits: z
          .number()
          .int()
          .min(0)
          .max(Number.MAX_SAFE_INTEGER)
          .optional()
          .describe(
            'Credits (`limits.credits.cost`) one session may spend, all tools together; unset: no limit.',
          ),
      })
      .prefault({})
      .describe(
        "Budgets of one session (`sessionId`: a conversation, an MCP session, a gateway `Periscope-Session`), like Anthropic's `max_uses`: reserved before the call runs (a web_search's `readTop` reads with it), given back when it is refused; over one: POLICY_DENIED `budget`. An API key and a caller may only narrow them. A call without a session is a session of its own. Counts are kept 24 h after a session's last call.",
      ),
  })
  .prefault({})
  .describe(
    'The controls in front of every tool call, in this order: repeat throttle, rate limits, credits. All are per agent; the repeat throttle is per session.',
  );

const toolCacheSchema = (tool: string) =>
  z
    .strictObject({
      enabled: z.boolean().optional().describe(`Cache ${tool} results; unset: \`cache.enabled\`.`),
      ttlMs: positiveMs
        .optional()
        .describe(`How long a cached ${tool} result is kept, in ms; unset: \`cache.ttlMs\`.`),
    })
    .prefault({})
    .describe(`\`${tool}\`'s own cache settings.`);

/** `cache`: search results and fetched documents, in the store, shared by every process that uses it. */
export const cacheSchema = z
  .strictObject({
    enabled: z.boolean().default(true).describe('Keep search results and fetched documents in the store.'),
    ttlMs: positiveMs.default(900_000).describe('How long an entry is kept, in ms.'),
    maxEntryChars: z
      .number()
      .int()
      .positive()
      .default(2_000_000)
      .describe(
        'Largest entry kept, in characters of its JSON (a longer document is fetched again, or read on in memory).',
      ),
    scope: z
      .enum(['shared', 'agent'])
      .default('shared')
      .describe(
        '`shared`: one cache for every agent; `agent`: each agent its own (no agent learns what another read).',
      ),
    perTool: z
      .strictObject({
        web_fetch: toolCacheSchema('web_fetch'),
        web_search: toolCacheSchema('web_search'),
        image_search: toolCacheSchema('image_search'),
      })
      .prefault({})
      .describe('Per-tool overrides of `enabled` and `ttlMs`.'),
  })
  .prefault({})
  .describe(
    'Search results and fetched documents, kept in the store and shared by every process that uses it. Failures are never kept.',
  );

/** `usage`: counters per agent, tool, provider and day, in the store. */
export const usageSchema = z
  .strictObject({
    enabled: z.boolean().default(true).describe('Count calls, cache hits, errors and credits.'),
    retentionDays: z
      .number()
      .int()
      .positive()
      .max(3650)
      .default(90)
      .describe("Days a day's counters are kept (1–3650)."),
    flushIntervalMs: z
      .number()
      .int()
      .min(0)
      .max(60_000)
      .default(1000)
      .describe(
        'Calls are counted in memory and written to the store this often, in ms (and when Periscope closes: a graceful stop loses nothing); a process killed outright (kill -9) loses at most this long of counts. 0 writes each call at once.',
      ),
  })
  .prefault({})
  .describe(
    'Calls, cache hits, errors and credits per agent, tool, provider and UTC day (`periscope status`).',
  );

export type LimitsConfig = z.infer<typeof limitsSchema>;
export type CacheConfig = z.infer<typeof cacheSchema>;
export type UsageConfig = z.infer<typeof usageSchema>;
export type RateWindow = z.infer<typeof rateWindowSchema>;
