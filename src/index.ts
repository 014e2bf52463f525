import { validateConfig } from './config/load-config.ts';
import { toHttpClientOptions } from './config/network-options.ts';
import type { PeriscopeConfig, PeriscopeConfigInput } from './config/schema.ts';
import { PeriscopeError } from './errors.ts';
import { createLocalFetchBackend } from './fetch/backends/local.ts';
import { createAllowList } from './net/allow-list.ts';
import { createHttpClient } from './net/http-client.ts';
import type { LookupFunction } from './net/types.ts';
import { createSearchChain, type ProviderStatus } from './search/chain.ts';
import type { SearchProvider } from './search/types.ts';
import { createImageSearchTool, type ImageSearchData, type ImageSearchInput } from './tools/image-search.ts';
import type { Tool, ToolExecuteOptions } from './tools/tool.ts';
import { type ToolResult, toErrorResult } from './tools/tool-result.ts';
import { createWebFetchTool, type WebFetchData, type WebFetchInput } from './tools/web-fetch.ts';
import { createWebSearchTool, type WebSearchData, type WebSearchInput } from './tools/web-search.ts';

export interface CreatePeriscopeOptions {
  /** Resolver for host names (tests, unusual deployments). Default: the system resolver, or `network.dnsServer`. */
  lookup?: LookupFunction;
  /** Environment for proxy fallbacks and provider keys (BRAVE_API_KEY, …). Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Your own search providers; run through the same chain as the built-in ones (same id replaces a built-in). */
  providers?: readonly SearchProvider[];
  /** Folder that relative `providers.custom[].module` paths start from (the config file's). Default: cwd. */
  baseDir?: string;
}

export interface Periscope {
  readonly config: PeriscopeConfig;
  /** The enabled tools, with their JSON Schemas. */
  readonly tools: Tool[];
  /** web_fetch: never rejects. */
  fetch(input: WebFetchInput, options?: ToolExecuteOptions): Promise<ToolResult<WebFetchData>>;
  /** web_search: never rejects. `options.provider` asks only that provider. */
  search(input: WebSearchInput, options?: ToolExecuteOptions): Promise<ToolResult<WebSearchData>>;
  /** image_search: never rejects. */
  imageSearch(input: ImageSearchInput, options?: ToolExecuteOptions): Promise<ToolResult<ImageSearchData>>;
  /** Every search provider: in the chain or not, credentials, health, and (`quota: true`) live quota. */
  status(options?: { quota?: boolean; signal?: AbortSignal }): Promise<{ providers: ProviderStatus[] }>;
  close(): Promise<void>;
}

/** The library entry point: a validated config (every key optional) → the tools. Throws CONFIG_INVALID. */
export function createPeriscope(
  config: PeriscopeConfigInput = {},
  options: CreatePeriscopeOptions = {},
): Periscope {
  const validated = validateConfig(config);
  const httpFetch = createHttpClient(toHttpClientOptions(validated.network, options));
  const webFetch = createWebFetchTool({
    config: validated.fetch,
    httpFetch,
    backend: createLocalFetchBackend(),
  });
  const chain = createSearchChain({
    search: validated.search,
    providers: validated.providers,
    env: options.env ?? process.env,
    httpFetch,
    allowList: createAllowList(validated.network.allowPrivateNetwork),
    ...(options.providers ? { extraProviders: options.providers } : {}),
    ...(options.baseDir ? { baseDir: options.baseDir } : {}),
  });
  const webSearch = createWebSearchTool({ config: validated.search, chain });
  const imageSearch = createImageSearchTool({ config: validated.search, chain });
  const switches = validated.tools;
  const tools: Tool[] = [
    ...(switches.web_fetch.enabled ? [webFetch as Tool] : []),
    ...(switches.web_search.enabled ? [webSearch as Tool] : []),
    ...(switches.image_search.enabled ? [imageSearch as Tool] : []),
  ];
  return {
    config: validated,
    tools,
    search: (input, executeOptions) =>
      switches.web_search.enabled ? webSearch.execute(input, executeOptions) : switchedOff('web_search'),
    imageSearch: (input, executeOptions) =>
      switches.image_search.enabled
        ? imageSearch.execute(input, executeOptions)
        : switchedOff('image_search'),
    status: async (statusOptions) => ({ providers: await chain.status(statusOptions) }),
    fetch: (input, executeOptions) =>
      validated.tools.web_fetch.enabled
        ? webFetch.execute(input, executeOptions)
        : Promise.resolve(
            toErrorResult(
              new PeriscopeError(
                'NOT_CONFIGURED',
                'web_fetch is switched off in this deployment (tools.web_fetch.enabled)',
              ),
            ),
          ),
    close: async () => {},
  };
}

function switchedOff(name: string): Promise<ToolResult<never>> {
  return Promise.resolve(
    toErrorResult(
      new PeriscopeError(
        'NOT_CONFIGURED',
        `${name} is switched off in this deployment (tools.${name}.enabled)`,
      ),
    ),
  );
}

export { loadConfig, validateConfig } from './config/load-config.ts';
export type { PeriscopeConfig, PeriscopeConfigInput } from './config/schema.ts';
export {
  ERROR_CODES,
  type ErrorCode,
  isPeriscopeError,
  PeriscopeError,
  type ProviderAttempt,
  type ToolErrorData,
} from './errors.ts';
export { type ThrowForStatusOptions, throwForStatus } from './net/http-status.ts';
export type { HttpFetch, HttpResponse, LookupFunction } from './net/types.ts';
export type { ChainResult, ProviderStatus } from './search/chain.ts';
export type {
  ImageResult,
  ImageSearchRequest,
  ProviderContext,
  ProviderResponse,
  ProviderSettings,
  QuotaInfo,
  SearchProvider,
  SearchRequest,
  SearchResult,
} from './search/types.ts';
export type { ImageSearchData, ImageSearchInput } from './tools/image-search.ts';
export type { Tool, ToolExecuteOptions } from './tools/tool.ts';
export type { ToolResult } from './tools/tool-result.ts';
export type { WebFetchData, WebFetchInput } from './tools/web-fetch.ts';
export type { WebSearchData, WebSearchInput } from './tools/web-search.ts';
