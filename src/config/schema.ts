import { z } from 'zod';
import { DEFAULT_NETWORK_LIMITS, DEFAULT_RESOLVER_LIMITS } from '../net/network-limits.ts';
import { agentSchema } from './agent-schema.ts';
import { egressSchema } from './egress-schema.ts';
import { browserSchema, FETCH_BACKEND_IDS, fetchBackendsSchema } from './fetch-schema.ts';
import { gatewaySchema } from './gateway-schema.ts';
import { mcpSchema } from './mcp-schema.ts';
import { cacheSchema, limitsSchema, usageSchema } from './policy-schema.ts';
import { providersSchema, searchSchema } from './search-schema.ts';

const positiveMs = z.number().int().positive();
const bytes = z.number().int().positive();

/** Tools that can be switched off; a disabled tool is offered on no surface. */
const toolSwitch = (tool: string, enabledByDefault = true) =>
  z
    .strictObject({
      enabled: z
        .boolean()
        .default(enabledByDefault)
        .describe(
          enabledByDefault
            ? `\`false\` switches ${tool} off: no surface (CLI, MCP, gateway, adapters) offers it.`
            : `\`true\` offers ${tool} in the tool lists (MCP, gateway, adapters, \`ask\`); off by default.`,
        ),
    })
    .prefault({})
    .describe(`The \`${tool}\` tool.`);

export const networkSchema = z
  .strictObject({
    proxy: z
      .string()
      .nullable()
      .default(null)
      .describe(
        'One proxy for every request: `http://host:port` or `socks5://host:port`. null: HTTPS_PROXY / HTTP_PROXY / ALL_PROXY from the environment.',
      ),
    noProxy: z
      .string()
      .nullable()
      .default(null)
      .describe('Hosts that bypass the proxy, in NO_PROXY syntax. null: NO_PROXY from the environment.'),
    totalTimeoutMs: positiveMs
      .optional()
      // The default is applied below, after the former name `timeoutMs` had its say; meta puts it in the reference.
      .meta({ default: DEFAULT_NETWORK_LIMITS.totalTimeoutMs })
      .describe(
        'Whole call, redirects included, in ms; its TIMEOUT names it in `details.limit`. Formerly `timeoutMs`.',
      ),
    timeoutMs: positiveMs
      .optional()
      .describe(
        'Former name of `totalTimeoutMs`, in ms: still accepted, used only when `totalTimeoutMs` is not set.',
      ),
    connectTimeoutMs: positiveMs.default(10_000).describe('Connecting, per hop, in ms.'),
    headersTimeoutMs: positiveMs
      .default(15_000)
      .describe('Waiting for the response headers, per hop, in ms.'),
    bodyTimeoutMs: positiveMs.default(15_000).describe('Longest silence while reading a body, in ms.'),
    maxBytes: bytes
      .default(10_000_000)
      .describe('Largest response body, in bytes, counted while streaming and after decompression.'),
    maxHeaderBytes: bytes
      .default(65_536)
      .describe('Largest response head (status line and headers), in bytes.'),
    maxRedirects: z
      .number()
      .int()
      .min(0)
      .max(20)
      .default(5)
      .describe('Redirects followed (0–20); each hop is checked again.'),
    allowPrivateNetwork: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'CIDRs and host names opened explicitly to fetches (intranets, Tailscale 100.64.0.0/10, fake-IP proxies 198.18.0.0/15); every other private address is refused.',
      ),
    dnsServer: z
      .string()
      .nullable()
      .default(null)
      .describe(
        'The IP address of a DNS server to ask instead of the system resolver, with an optional port (`9.9.9.9`, `9.9.9.9:5353`, `[2620:fe::fe]:53`; default 53); a host name cannot be used.',
      ),
    dnsTimeoutMs: positiveMs
      .default(DEFAULT_RESOLVER_LIMITS.dnsTimeoutMs)
      .describe(
        'How long one DNS query waits for an answer before it is sent again, in ms (also the system resolver check).',
      ),
    dnsTries: z
      .number()
      .int()
      .min(1)
      .max(10)
      .default(DEFAULT_RESOLVER_LIMITS.dnsTries)
      .describe(
        'How many times a query to `dnsServer` is sent before the lookup fails (1–10); a `NETWORK` error then says it could not be resolved.',
      ),
    userAgent: z
      .string()
      .min(1)
      .default('Periscope/0.1 (+https://github.com/periscope-dev/periscope)')
      .describe(
        'The User-Agent header of every request; its first word is the product token robots.txt rules are read for.',
      ),
  })
  .prefault({})
  .transform(({ timeoutMs, totalTimeoutMs, ...network }) => ({
    ...network,
    totalTimeoutMs: totalTimeoutMs ?? timeoutMs ?? DEFAULT_NETWORK_LIMITS.totalTimeoutMs,
  }))
  .describe(
    'The guarded HTTP client every back-end and provider uses: timeouts, size limits, proxy, private-network allow-list.',
  );

export const fetchSchema = z
  .strictObject({
    /** The fetch chain: docs/decisions/0009-fetch-chain.md. */
    chain: z
      .array(z.enum(FETCH_BACKEND_IDS))
      .min(1)
      .default(['local'])
      .describe(
        'Back-ends in the order they are tried: `local`, `browser`, and the reader services `jina-reader`, `firecrawl`, `tavily`, `exa`, `infoquest`, `service`. `periscope fetch --browser` adds `browser` after `local` for one command.',
      ),
    thirdParty: z
      .boolean()
      .default(true)
      .describe(
        '`false` turns every third-party reader off at once (they are skipped, and the attempt says so).',
      ),
    robots: z
      .enum(['respect', 'ignore'])
      .default('respect')
      .describe(
        '`respect`: robots.txt is read once per origin and a disallowed URL is ROBOTS_DISALLOWED; a site that cannot give it (connection refused, timeout, 5xx, 429) is not fetched and the call fails as NETWORK, TIMEOUT, HTTP_STATUS or RATE_LIMITED (refunded, not cached). `ignore`: never read.',
      ),
    robotsTimeoutMs: z
      .number()
      .int()
      .positive()
      .default(5_000)
      .describe(
        'Reading one robots.txt, in ms; past it the call fails as TIMEOUT (the page is not fetched: never allow-all).',
      ),
    browser: browserSchema,
    backends: fetchBackendsSchema,
    extractMode: z
      .enum(['markdown', 'text'])
      .default('markdown')
      .describe('What `web_fetch` returns when the call does not say: `markdown` or plain `text`.'),
    maxChars: z
      .number()
      .int()
      .positive()
      .default(50_000)
      .describe('Characters returned per call; `startIndex` continues.'),
    maxTokens: z
      .number()
      .int()
      .positive()
      .default(20_000)
      .describe(
        'Estimated tokens returned per call, kept well under the 25 000-token limit of common MCP clients.',
      ),
    pdfMaxPages: z
      .number()
      .int()
      .positive()
      .default(200)
      .describe('PDF pages read per document; the rest are named as not read.'),
    pdfMaxBytes: bytes
      .default(10_000_000)
      .describe(
        'PDF bytes downloaded and read; a larger PDF stops downloading at this size and is BODY_TOO_LARGE, named so. `network.maxBytes` still bounds every download: the smaller applies.',
      ),
    imageMaxBytes: bytes
      .default(3_000_000)
      .describe(
        'Images up to this many bytes are sent as a multimodal block; a larger one stops downloading once its header is read and is described (type, size, width × height). `network.maxBytes` still applies.',
      ),
    continuationTtlMs: positiveMs
      .default(1_800_000)
      .describe(
        'How long a document web_fetch read stays in memory, in ms, for reading on (`startIndex`), another `query` of it and checking quotes from it (`verifyCitation`, `periscope ask`) without fetching it again; a read from the start of a page does not use it. The default outlasts an `ask` run at the `agent` defaults.',
      ),
    continuationMaxChars: z
      .number()
      .int()
      .positive()
      .default(20_000_000)
      .describe(
        'Characters of documents held in memory for those reads, all documents together (least recently used first out; an image counts its base64); a larger document is not held.',
      ),
  })
  .prefault({})
  .describe('`web_fetch`: the back-end chain, robots.txt, extraction and the size of what is returned.');

export const configSchema = z
  .strictObject({
    network: networkSchema,
    fetch: fetchSchema,
    search: searchSchema,
    providers: providersSchema,
    /** docs/decisions/0008-call-policy.md */
    store: z
      .strictObject({
        url: z
          .string()
          .min(1)
          .optional()
          .describe(
            "`memory:`, `sqlite://PATH` (`sqlite://default`: the user's state dir) or `redis://HOST:PORT`. Unset: the CLI, `serve` and `mcp` use `sqlite://default`, a library `createPeriscope` uses `memory:`.",
          ),
      })
      .prefault({})
      .describe('Where cache, credits, rate-limit counters, usage and provider health are kept.'),
    egress: egressSchema,
    limits: limitsSchema,
    cache: cacheSchema,
    usage: usageSchema,
    tools: z
      .strictObject({
        web_fetch: toolSwitch('web_fetch'),
        web_search: toolSwitch('web_search'),
        image_search: toolSwitch('image_search'),
        verify_citation: toolSwitch('verify_citation', false),
      })
      .prefault({})
      .describe(
        'Each tool can be switched off; a disabled tool is offered on no surface. `verify_citation` is off until switched on (the library `verifyCitation` and CLI `periscope verify` work either way).',
      ),
    gateway: gatewaySchema,
    agent: agentSchema,
    mcp: mcpSchema,
  })
  .describe('Periscope configuration (periscope.config.json or .yaml). Every key is optional.');

export type PeriscopeConfig = z.infer<typeof configSchema>;
export type PeriscopeConfigInput = z.input<typeof configSchema>;
export type NetworkConfig = PeriscopeConfig['network'];
export type FetchConfig = PeriscopeConfig['fetch'];
export type { EgressConfig } from './egress-schema.ts';
export type { GatewayConfig } from './gateway-schema.ts';
export type { CacheConfig, LimitsConfig, UsageConfig } from './policy-schema.ts';
export type { ProviderEntryConfig, ProvidersConfig, SearchConfig } from './search-schema.ts';
