import type { AllowList } from '../net/allow-list.ts';
import { classifyIpAddress, parseIpAddress } from '../net/ip-address.ts';
import type { NetworkPolicy } from '../net/network-policy.ts';
import type { CheckedAddress } from '../net/pinned-lookup.ts';
import { describeClassification, isLocalHostName, type UrlTarget } from '../net/url-policy.ts';

/** What the preflight found out about a URL the policy let through. */
export interface UrlVerdict {
  /**
   * Why the URL names an internal host — a non-public address opened by `network.allowPrivateNetwork` (literal,
   * or among the host's DNS answers), a host name on that list, a local name, a single-label name — or undefined
   * when it is public. An internal URL is fetched by `local` and `browser` only, never handed to a reader.
   */
  internal: string | undefined;
}

export type UrlPreflight = (url: URL) => Promise<UrlVerdict>;

/**
 * The deployment's network policy (the guarded client's own instance: same allow-list, same resolver) run once
 * before any back-end is chosen: scheme, local names, IP literals in every encoding, and
 * every DNS answer for the host. A URL that fails it is URL_BLOCKED and goes nowhere — not to the local fetch,
 * not to the browser, and not to a reader service, which would otherwise learn an internal address.
 * A URL that passes only because the allow-list opens it is internal (see UrlVerdict), decided on the same
 * answers: the host is resolved once. (The guarded client checks every hop again at connect time; this is the
 * gate in front of the chain.)
 */
export function createUrlPreflight(policy: NetworkPolicy): UrlPreflight {
  return async (url) => {
    const target = policy.checkUrl(url);
    const addresses = await policy.resolve(target);
    return { internal: internalReason(target, addresses, policy.allowList) };
  };
}

/**
 * Why a target that passed the policy is internal, or undefined. The same rules as the policy's: what it would
 * have refused without the allow-list (non-public literals and answers, local names) is internal, and so is a host
 * name the allow-list opens by name or a single-label name (`intranet`, `printer`: resolved on the local network,
 * whatever it answers).
 */
export function internalReason(
  target: UrlTarget,
  addresses: readonly CheckedAddress[],
  allowList: AllowList,
): string | undefined {
  if (target.address) {
    const classification = classifyIpAddress(target.address);
    return classification && describeClassification(target.address, classification);
  }
  const { hostname } = target;
  if (isLocalHostName(hostname)) return `"${hostname}" is a local host name`;
  if (allowList.allowsHost(hostname)) return `"${hostname}" is opened by network.allowPrivateNetwork`;
  if (!hostname.includes('.')) return `"${hostname}" is a single-label name, resolved on the local network`;
  for (const answer of addresses) {
    const address = parseIpAddress(answer.address);
    const classification = address && classifyIpAddress(address);
    if (address && classification) {
      return `host "${hostname}" resolves to ${describeClassification(address, classification, 'apposition')}`;
    }
  }
  return undefined;
}
