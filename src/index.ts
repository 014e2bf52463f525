import { validateConfig } from './config/load-config.ts';
import { toHttpClientOptions } from './config/network-options.ts';
import type { PeriscopeConfig, PeriscopeConfigInput } from './config/schema.ts';
import { PeriscopeError } from './errors.ts';
import { createLocalFetchBackend } from './fetch/backends/local.ts';
import { createHttpClient } from './net/http-client.ts';
import type { LookupFunction } from './net/types.ts';
import type { Tool, ToolExecuteOptions } from './tools/tool.ts';
import { type ToolResult, toErrorResult } from './tools/tool-result.ts';
import { createWebFetchTool, type WebFetchData, type WebFetchInput } from './tools/web-fetch.ts';

export interface CreatePeriscopeOptions {
  /** Resolver for host names (tests, unusual deployments). Default: the system resolver, or `network.dnsServer`. */
  lookup?: LookupFunction;
  /** Environment for proxy fallbacks. Default: process.env. */
  env?: NodeJS.ProcessEnv;
}

export interface Periscope {
  readonly config: PeriscopeConfig;
  /** The enabled tools, with their JSON Schemas. */
  readonly tools: Tool[];
  /** web_fetch: never rejects. */
  fetch(input: WebFetchInput, options?: ToolExecuteOptions): Promise<ToolResult<WebFetchData>>;
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
  const tools: Tool[] = validated.tools.web_fetch.enabled ? [webFetch as Tool] : [];
  return {
    config: validated,
    tools,
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

export { loadConfig, validateConfig } from './config/load-config.ts';
export type { PeriscopeConfig, PeriscopeConfigInput } from './config/schema.ts';
export {
  ERROR_CODES,
  type ErrorCode,
  isPeriscopeError,
  PeriscopeError,
  type ToolErrorData,
} from './errors.ts';
export type { HttpFetch, HttpResponse, LookupFunction } from './net/types.ts';
export type { Tool, ToolExecuteOptions } from './tools/tool.ts';
export type { ToolResult } from './tools/tool-result.ts';
export type { WebFetchData, WebFetchInput } from './tools/web-fetch.ts';
