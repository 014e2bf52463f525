import { type AllowList, createAllowList } from './allow-list.ts';
import { DEFAULT_RESOLVER_LIMITS, resolveResolverLimits } from './network-limits.ts';
import {
  type CheckedAddress,
  createDnsServerLookup,
  createSystemLookup,
  resolveTarget,
} from './pinned-lookup.ts';
import type { LookupFunction, ResolverLimits } from './types.ts';
import { checkUrl, type UrlTarget } from './url-policy.ts';

/** What the policy is built from: the `network` config keys that decide which addresses are reachable, and how. */
export interface NetworkPolicySettings extends Partial<ResolverLimits> {
  /** CIDRs and host names opened explicitly for caller-supplied URLs (`network.allowPrivateNetwork`). */
  allowPrivateNetwork?: readonly string[] | undefined;
  /** `IP[:port]` of a DNS server to ask instead of the system resolver (`network.dnsServer`). */
  dnsServer?: string | null | undefined;
}

/**
 * The SSRF opening of one deployment, decided once: which private ranges and names are opened, which resolver
 * answers, and the URL policy's checks with both. The guarded client, the fetch preflight and the image filter all
 * hold this one instance (the browser router and the reader skip rule act on the client's and the preflight's
 * verdicts). docs/decisions/0012-network-policy.md.
 */
export interface NetworkPolicy {
  /** `network.allowPrivateNetwork`, parsed. */
  readonly allowList: AllowList;
  /** The resolver every check and every connection uses. */
  readonly lookup: LookupFunction;
  /**
   * The URL policy for one URL before any resolution (scheme, local names, IP literals in every encoding): its
   * target, or URL_BLOCKED. `trusted` (a configured endpoint): only the scheme is checked.
   */
  checkUrl(url: string | URL, options?: { trusted?: boolean }): UrlTarget;
  /** Resolves the target once and checks every answer: the addresses to connect to, or URL_BLOCKED / NETWORK. */
  resolve(target: UrlTarget, options?: { trusted?: boolean }): Promise<CheckedAddress[]>;
}

let policiesBuilt = 0;

/**
 * The deployment's network policy from `config.network` (CONFIG_INVALID for a bad allow-list entry, DNS server or
 * resolver limit). `options.lookup` replaces the resolver (tests, unusual deployments); else `dnsServer` is asked,
 * else the system resolver.
 */
export function createNetworkPolicy(
  settings: NetworkPolicySettings = {},
  options: { lookup?: LookupFunction | undefined } = {},
): NetworkPolicy {
  const limits = resolveResolverLimits(DEFAULT_RESOLVER_LIMITS, settings, 'CONFIG_INVALID');
  const allowList = createAllowList(settings.allowPrivateNetwork);
  const timings = { timeoutMs: limits.dnsTimeoutMs, tries: limits.dnsTries };
  const lookup =
    options.lookup ??
    (settings.dnsServer
      ? createDnsServerLookup(settings.dnsServer, timings)
      : createSystemLookup({ timeoutMs: limits.dnsTimeoutMs }));
  policiesBuilt += 1;
  return {
    allowList,
    lookup,
    checkUrl: (url, checkOptions = {}) =>
      checkUrl(url, { allowList, trusted: checkOptions.trusted === true }),
    resolve: (target, resolveOptions = {}) =>
      resolveTarget(target, { lookup, allowList, trusted: resolveOptions.trusted === true }),
  };
}

/**
 * How many policies this process has built. Internal: the one-instance test counts what one createPeriscope builds
 * (test/network-policy.test.ts); no code decides on it.
 */
export function networkPoliciesBuilt(): number {
  return policiesBuilt;
}
