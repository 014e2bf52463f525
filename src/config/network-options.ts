import type { HttpClientOptions } from '../net/http-client.ts';
import type { NetworkPolicy } from '../net/network-policy.ts';
import { proxyVariables } from '../net/proxy.ts';
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

/** The config's proxy keys, else the conventional variables (`proxyVariables`' rules), named. */
export function effectiveProxy(network: NetworkConfig, env: NodeJS.ProcessEnv = process.env): EffectiveProxy {
  const fromEnvironment = proxyVariables(env);
  const effective: EffectiveProxy = {};
  const configured = network.proxy ? { value: network.proxy } : undefined;
  const httpProxy = configured ?? fromEnvironment.httpProxy;
  const httpsProxy = configured ?? fromEnvironment.httpsProxy;
  const noProxy = network.noProxy === null ? fromEnvironment.noProxy : { value: network.noProxy };
  if (httpProxy) effective.httpProxy = httpProxy;
  if (httpsProxy) effective.httpsProxy = httpsProxy;
  if (noProxy) effective.noProxy = noProxy;
  return effective;
}

/**
 * Config keys → the guarded client's named limits, same names. The network policy (allow-list, resolver) is
 * `networkPolicy`, the deployment's one (createPeriscope builds it from the same keys); without it, the client
 * builds its own from them (a client of its own, as `periscope ask`'s for the model endpoint). Proxy variables from
 * the environment are the fallback.
 */
export function toHttpClientOptions(
  network: NetworkConfig,
  options: { env?: NodeJS.ProcessEnv; networkPolicy?: NetworkPolicy | undefined } = {},
): HttpClientOptions {
  const proxy = effectiveProxy(network, options.env ?? process.env);
  return {
    connectTimeoutMs: network.connectTimeoutMs,
    headersTimeoutMs: network.headersTimeoutMs,
    bodyTimeoutMs: network.bodyTimeoutMs,
    totalTimeoutMs: network.totalTimeoutMs,
    maxBytes: network.maxBytes,
    maxHeaderBytes: network.maxHeaderBytes,
    maxRedirects: network.maxRedirects,
    ...(options.networkPolicy
      ? { policy: options.networkPolicy }
      : {
          allowPrivateNetwork: network.allowPrivateNetwork,
          dnsServer: network.dnsServer,
          dnsTimeoutMs: network.dnsTimeoutMs,
          dnsTries: network.dnsTries,
        }),
    proxy: {
      httpProxy: proxy.httpProxy?.value,
      httpsProxy: proxy.httpsProxy?.value,
      noProxy: proxy.noProxy?.value,
    },
    userAgent: network.userAgent,
  };
}
