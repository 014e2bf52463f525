import { type AllowList, createAllowList } from '../net/allow-list.ts';
import { createDnsServerLookup, resolveTarget, systemLookup } from '../net/pinned-lookup.ts';
import type { LookupFunction } from '../net/types.ts';
import { checkUrl } from '../net/url-policy.ts';

export interface UrlPreflightSettings {
  /** `network.allowPrivateNetwork`: the same opening the guarded client has. */
  allowPrivateNetwork?: readonly string[] | undefined;
  /** The same resolver the guarded client uses. */
  lookup?: LookupFunction | undefined;
  dnsServer?: string | undefined;
}

/**
 * The URL policy run once before any back-end is chosen: scheme, local names, IP literals in every encoding, and
 * every DNS answer for the host. A URL that fails it is URL_BLOCKED and goes nowhere — not to the local fetch,
 * not to the browser, and not to a reader service, which would otherwise learn an internal address.
 * (The guarded client checks every hop again at connect time; this is the gate in front of the chain.)
 */
export function createUrlPreflight(settings: UrlPreflightSettings = {}): (url: URL) => Promise<void> {
  const allowList: AllowList = createAllowList(settings.allowPrivateNetwork);
  const lookup =
    settings.lookup ?? (settings.dnsServer ? createDnsServerLookup(settings.dnsServer) : systemLookup);
  return async (url) => {
    const target = checkUrl(url, { allowList });
    await resolveTarget(target, { lookup, allowList, trusted: false });
  };
}
