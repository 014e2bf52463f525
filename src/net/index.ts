// Public surface of the guarded HTTP client. Anything not listed here is internal.
export { type AllowList, createAllowList, parseCidr } from './allow-list.ts';
export {
  createHttpClient,
  DEFAULT_ACCEPT_ENCODING,
  DEFAULT_USER_AGENT,
  type HttpClientOptions,
} from './http-client.ts';
export {
  isRetryableStatus,
  parseRetryAfterMs,
  type ThrowForStatusOptions,
  throwForStatus,
} from './http-status.ts';
export {
  type AddressClassification,
  classifyIpAddress,
  formatIpAddress,
  type IpAddress,
  isPublicIpAddress,
  parseIpAddress,
} from './ip-address.ts';
export {
  DEFAULT_NETWORK_LIMITS,
  DEFAULT_RESOLVER_LIMITS,
  resolveNetworkLimits,
  resolveResolverLimits,
} from './network-limits.ts';
export { createNetworkPolicy, type NetworkPolicy, type NetworkPolicySettings } from './network-policy.ts';
export {
  type CheckedAddress,
  createDnsServerLookup,
  createSystemLookup,
  type ResolverTimings,
  resolveTarget,
  type SystemLookupOptions,
} from './pinned-lookup.ts';
export { createNoProxyMatcher, type ProxyEndpoint, parseProxyUrl, proxyFromEnvironment } from './proxy.ts';
export type {
  ConnectAttempt,
  HttpFetch,
  HttpRequest,
  HttpResponse,
  LookupFunction,
  NetworkLimits,
  ProxySettings,
  ResolverLimits,
} from './types.ts';
export {
  checkAddress,
  checkUrl,
  isLocalHostName,
  parseHttpUrl,
  redactUrl,
  type UrlPolicyOptions,
  type UrlTarget,
} from './url-policy.ts';
