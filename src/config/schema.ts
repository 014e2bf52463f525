import { z } from 'zod';
import { agentSchema } from './agent-schema.ts';
import { browserSchema, FETCH_BACKEND_IDS, fetchBackendsSchema } from './fetch-schema.ts';
import { gatewaySchema } from './gateway-schema.ts';
import { mcpSchema } from './mcp-schema.ts';
import { cacheSchema, limitsSchema, usageSchema } from './policy-schema.ts';
import { providersSchema, searchSchema } from './search-schema.ts';

const positiveMs = z.number().int().positive();
const bytes = z.number().int().positive();

/** Tools that can be switched off; a disabled tool is offered on no surface. */
const toolSwitch = z.strictObject({ enabled: z.boolean().default(true) }).prefault({});

export const networkSchema = z
  .strictObject({
    /** One proxy for every request: `http://host:port` or `socks5://host:port`. Falls back to HTTPS_PROXY/HTTP_PROXY/ALL_PROXY. */
    proxy: z.string().nullable().default(null),
    /** Hosts that bypass the proxy (NO_PROXY syntax). Falls back to NO_PROXY. */
    noProxy: z.string().nullable().default(null),
    /** Whole call, redirects included. */
    timeoutMs: positiveMs.default(30_000),
    connectTimeoutMs: positiveMs.default(10_000),
    headersTimeoutMs: positiveMs.default(15_000),
    /** Longest silence while reading a body. */
    bodyTimeoutMs: positiveMs.default(15_000),
    /** Body bytes, counted while streaming and after decompression. */
    maxBytes: bytes.default(10_000_000),
    maxHeaderBytes: bytes.default(65_536),
    maxRedirects: z.number().int().min(0).max(20).default(5),
    /** CIDRs and host names opened explicitly (intranets, Tailscale 100.64.0.0/10, fake-IP proxies 198.18.0.0/15). */
    allowPrivateNetwork: z.array(z.string().min(1)).default([]),
    /** `host:port` of a DNS server to ask instead of the system resolver. */
    dnsServer: z.string().nullable().default(null),
    userAgent: z.string().min(1).default('Periscope/0.1 (+https://github.com/periscope-dev/periscope)'),
  })
  .prefault({});

export const fetchSchema = z
  .strictObject({
    /**
     * Back-ends in the order they are tried (docs/decisions/0009-fetch-chain.md): `local`, `browser`, and the
     * reader services `jina-reader`, `firecrawl`, `tavily`, `exa`, `infoquest`, `service`.
     */
    chain: z.array(z.enum(FETCH_BACKEND_IDS)).min(1).default(['local']),
    /** `false` turns every third-party reader off at once (they are skipped, and the attempt says so). */
    thirdParty: z.boolean().default(true),
    /** `respect` (default): robots.txt is read once per origin and a disallowed URL is ROBOTS_DISALLOWED. */
    robots: z.enum(['respect', 'ignore']).default('respect'),
    /** Reading one robots.txt; a timeout counts as "unreachable", i.e. disallow, not as allow-all. */
    robotsTimeoutMs: z.number().int().positive().default(5_000),
    browser: browserSchema,
    /** Reader services' endpoints, keys and headers. */
    backends: fetchBackendsSchema,
    extractMode: z.enum(['markdown', 'text']).default('markdown'),
    /** Characters returned per call; `startIndex` continues. */
    maxChars: z.number().int().positive().default(50_000),
    /** Estimated tokens returned per call, kept well under the 25 000-token limit of common MCP clients. */
    maxTokens: z.number().int().positive().default(20_000),
    /** PDF pages read per document; the rest are named as not read. */
    pdfMaxPages: z.number().int().positive().default(200),
    /**
     * PDF bytes downloaded and read; a larger PDF stops downloading at this size and is BODY_TOO_LARGE, named so.
     * `network.maxBytes` still bounds every download: the smaller of the two applies to PDFs.
     */
    pdfMaxBytes: bytes.default(10_000_000),
    /**
     * Images up to this size are sent as a multimodal block; a larger one stops downloading once its header is
     * read and is described (type, size, width × height). `network.maxBytes` still bounds every download.
     */
    imageMaxBytes: bytes.default(3_000_000),
    /** How long a fetched document stays in memory for `startIndex` continuation reads. */
    continuationTtlMs: positiveMs.default(600_000),
    /** Characters of documents held in memory for continuation reads (least recently used first out). */
    continuationMaxChars: z.number().int().positive().default(20_000_000),
  })
  .prefault({});

export const configSchema = z.strictObject({
  network: networkSchema,
  fetch: fetchSchema,
  search: searchSchema,
  providers: providersSchema,
  /**
   * `memory:`, `sqlite://PATH` (`sqlite://default`: the user's state dir) or `redis://HOST:PORT`. Unset: the CLI
   * (and `serve`, `mcp`) use `sqlite://default`, a library `createPeriscope` uses `memory:` (docs/decisions/0008).
   */
  store: z.strictObject({ url: z.string().min(1).optional() }).prefault({}),
  /** Repeat throttle, rate limits and credits, per agent. */
  limits: limitsSchema,
  /** Search results and fetched documents, kept in the store. */
  cache: cacheSchema,
  /** Calls, cache hits, errors and credits per agent, tool, provider and day. */
  usage: usageSchema,
  tools: z
    .strictObject({ web_fetch: toolSwitch, web_search: toolSwitch, image_search: toolSwitch })
    .prefault({}),
  /** `periscope serve`: the HTTP gateway and MCP over HTTP. */
  gateway: gatewaySchema,
  /** `periscope ask`: the model endpoint of the built-in agent. */
  agent: agentSchema,
  /** MCP: the tools offered and the stdio agent. */
  mcp: mcpSchema,
});

export type PeriscopeConfig = z.infer<typeof configSchema>;
export type PeriscopeConfigInput = z.input<typeof configSchema>;
export type NetworkConfig = PeriscopeConfig['network'];
export type FetchConfig = PeriscopeConfig['fetch'];
export type { GatewayConfig } from './gateway-schema.ts';
export type { CacheConfig, LimitsConfig, UsageConfig } from './policy-schema.ts';
export type { ProviderEntryConfig, ProvidersConfig, SearchConfig } from './search-schema.ts';
