import { proxyFromEnvironment } from '../net/proxy.ts';
import type { HttpClientOptions, LookupFunction } from '../net/types.ts';
import type { NetworkConfig } from './schema.ts';

/** Config keys → the guarded client's named limits. Proxy variables from the environment are the fallback. */
export function toHttpClientOptions(
  network: NetworkConfig,
  options: { env?: NodeJS.ProcessEnv; lookup?: LookupFunction | undefined } = {},
): HttpClientOptions {
  const env = options.env ?? process.env;
  const fromEnvironment = proxyFromEnvironment(env);
  const noProxy = network.noProxy ?? fromEnvironment.noProxy;
  const proxy = network.proxy
    ? { httpProxy: network.proxy, httpsProxy: network.proxy, noProxy }
    : { ...fromEnvironment, noProxy };
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
    proxy,
    userAgent: network.userAgent,
    ...(options.lookup ? { lookup: options.lookup } : {}),
  };
}
