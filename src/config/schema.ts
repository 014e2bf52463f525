import { z } from 'zod';
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
    chain: z
      .array(z.enum(['local']))
      .min(1)
      .default(['local']),
    extractMode: z.enum(['markdown', 'text']).default('markdown'),
    /** Characters returned per call; `startIndex` continues. */
    maxChars: z.number().int().positive().default(50_000),
    /** Estimated tokens returned per call, kept well under the 25 000-token limit of common MCP clients. */
    maxTokens: z.number().int().positive().default(20_000),
    /** PDF pages read per document; the rest are named as not read. */
    pdfMaxPages: z.number().int().positive().default(200),
    /** Images up to this size are sent as a multimodal block; larger ones are described. */
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
  /** `memory:`, `sqlite://PATH` (`sqlite://default`: the user's state dir) or `redis://HOST:PORT`. */
  store: z.strictObject({ url: z.string().min(1).default('sqlite://default') }).prefault({}),
  tools: z
    .strictObject({ web_fetch: toolSwitch, web_search: toolSwitch, image_search: toolSwitch })
    .prefault({}),
});

export type PeriscopeConfig = z.infer<typeof configSchema>;
export type PeriscopeConfigInput = z.input<typeof configSchema>;
export type NetworkConfig = PeriscopeConfig['network'];
export type FetchConfig = PeriscopeConfig['fetch'];
export type { ProviderEntryConfig, ProvidersConfig, SearchConfig } from './search-schema.ts';
