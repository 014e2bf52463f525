import { proxyFromEnvironment } from '../net/proxy.ts';
import type { HttpClientOptions, LookupFunction, ProxySettings } from '../net/types.ts';
import type { NetworkConfig } from './schema.ts';

/** One effective proxy setting; `variable` names the environment variable it came from (absent: the config). */
export interface ProxySource {
  value: string;
  variable?: string;
}

/** The proxy settings requests use, each with its source: `network.proxy`/`noProxy` first, then the environment. */
export interface EffectiveProxy {
  httpProxy?: ProxySource;
  httpsProxy?: ProxySource;
  noProxy?: ProxySource;
}

const VARIABLES: Record<keyof ProxySettings, string[]> = {
  httpProxy: ['http_proxy', 'HTTP_PROXY', 'all_proxy', 'ALL_PROXY'],
  httpsProxy: ['https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY'],
  noProxy: ['no_proxy', 'NO_PROXY'],
};

/** The config's proxy keys, else the conventional variables (`proxyFromEnvironment`'s rules), named. */
export function effectiveProxy(network: NetworkConfig, env: NodeJS.ProcessEnv = process.env): EffectiveProxy {
  const fromEnvironment = proxyFromEnvironment(env);
  const source = (key: keyof ProxySettings): ProxySource | undefined => {
    const value = fromEnvironment[key];
    if (value === undefined) return undefined;
    const variable = VARIABLES[key].find((name) => env[name]?.trim() === value) ?? 'the environment';
    return { value, variable };
  };
  const effective: EffectiveProxy = {};
  const configured = network.proxy ? { value: network.proxy } : undefined;
  const httpProxy = configured ?? source('httpProxy');
  const httpsProxy = configured ?? source('httpsProxy');
  const noProxy = network.noProxy === null ? source('noProxy') : { value: network.noProxy };
  if (httpProxy) effective.httpProxy = httpProxy;
  if (httpsProxy) effective.httpsProxy = httpsProxy;
  if (noProxy) effective.noProxy = noProxy;
  return effective;
}

/** Config keys → the guarded client's named limits. Proxy variables from the environment are the fallback. */
export function toHttpClientOptions(
  network: NetworkConfig,
  options: { env?: NodeJS.ProcessEnv; lookup?: LookupFunction | undefined } = {},
): HttpClientOptions {
  const proxy = effectiveProxy(network, options.env ?? process.env);
  return {
    connectTimeoutMs: network.connectTimeoutMs,
    headersTimeoutMs: network.headersTimeoutMs,
    bodyTimeoutMs: network.bodyTimeoutMs,
    totalTimeoutMs: network.timeoutMs,
    maxBytes: network.maxBytes,
    maxHeaderBytes: network.maxHeaderBytes,
    maxRedirects: network.maxRedirects,
    allowPrivateNetwork: network.allowPrivateNetwork,
    dnsServer: network.dnsServer ?? undefined,
    proxy: {
      httpProxy: proxy.httpProxy?.value,
      httpsProxy: proxy.httpsProxy?.value,
      noProxy: proxy.noProxy?.value,
    },
    userAgent: network.userAgent,
    ...(options.lookup ? { lookup: options.lookup } : {}),
  };
}
