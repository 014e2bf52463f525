import type { LookupAddress } from 'node:dns';
import { promises as dns } from 'node:dns';
import { PeriscopeError } from '../errors.ts';
import type { AllowList } from './allow-list.ts';
import { formatIpAddress, type IpAddress, parseIpAddress } from './ip-address.ts';
import type { LookupFunction } from './types.ts';
import { blockedError, checkAddress, describeClassification, type UrlTarget } from './url-policy.ts';

/** An address the policy accepted, and that the connection must go to. */
export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

/** The system resolver: `dns.lookup(host, { all: true })` (getaddrinfo, honours /etc/hosts). */
export const systemLookup: LookupFunction = (hostname) =>
  dns.lookup(hostname, { all: true, order: 'verbatim' });

/** Parses `a.b.c.d[:port]`, `[v6][:port]` or a bare IPv6 address (port 53) into the form `setServers` takes. */
export function parseDnsServer(server: string): string {
  const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(server) ?? /^([\d.]+)(?::(\d+))?$/.exec(server);
  const host = match ? match[1] : server;
  const port = Number(match?.[2] ?? 53);
  const address = host === undefined ? undefined : parseIpAddress(host);
  const strictV4 = address?.family !== 4 || /^\d{1,3}(?:\.\d{1,3}){3}$/.test(host ?? '');
  if (
    !address ||
    !strictV4 ||
    (address.family === 6 && address.zone !== undefined) ||
    !(port > 0 && port < 65536)
  ) {
    throw new PeriscopeError(
      'CONFIG_INVALID',
      `dnsServer "${server}" must be an IP address with an optional port`,
      {
        details: { reason: 'invalid-dns-server' },
      },
    );
  }
  const text = formatIpAddress(address);
  return address.family === 6 ? `[${text}]:${port}` : `${text}:${port}`;
}

/**
 * A resolver that asks one DNS server (A and AAAA) instead of the system resolver. A new `Resolver` per call, so a
 * timed-out lookup can be cancelled without touching other calls.
 */
export function createDnsServerLookup(server: string): LookupFunction {
  const normalized = parseDnsServer(server);
  return async (hostname) => {
    const resolver = new dns.Resolver({ timeout: 2_000, tries: 2 });
    resolver.setServers([normalized]);
    const settle = <VALUE>(promise: Promise<VALUE>) =>
      promise.then(
        (value) => ({ value, error: undefined }),
        (error: NodeJS.ErrnoException) => ({ value: undefined, error }),
      );
    const [v4, v6] = await Promise.all([
      settle(resolver.resolve4(hostname)),
      settle(resolver.resolve6(hostname)),
    ]);
    const answers: LookupAddress[] = [
      ...(v4.value ?? []).map((address) => ({ address, family: 4 })),
      ...(v6.value ?? []).map((address) => ({ address, family: 6 })),
    ];
    if (answers.length === 0)
      throw v4.error ?? v6.error ?? Object.assign(new Error('no answers'), { code: 'ENODATA' });
    return answers;
  };
}

function lookupError(target: UrlTarget, error: unknown): PeriscopeError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const notFound = code === 'ENOTFOUND' || code === 'ENODATA' || code === 'NXDOMAIN' || code === 'ENONAME';
  const reason = notFound
    ? 'does not exist (no DNS answers)'
    : `could not be resolved (${code ?? String(error)})`;
  return new PeriscopeError('NETWORK', `Fetching ${target.url.origin}: host "${target.hostname}" ${reason}`, {
    cause: error,
    retryable: !notFound,
    details: { url: target.url.origin, reason: notFound ? 'dns-not-found' : 'dns-failure' },
  });
}

/**
 * Resolves the host of one hop exactly once and checks every answer: if ANY answer is non-public (and not opened
 * by the allow-list) the hop is refused. The returned addresses are the only ones the connection may use.
 * IP literals are not resolved. Host names opened by the allow-list, and trusted hops, skip the address check.
 */
export async function resolveTarget(
  target: UrlTarget,
  options: { lookup: LookupFunction; allowList: AllowList; trusted: boolean },
): Promise<CheckedAddress[]> {
  if (target.address) {
    return [{ address: formatIpAddress(target.address), family: target.address.family }];
  }
  let answers: LookupAddress[];
  try {
    answers = await options.lookup(target.url.hostname);
  } catch (error) {
    throw lookupError(target, error);
  }
  if (answers.length === 0)
    throw lookupError(target, Object.assign(new Error('no answers'), { code: 'ENODATA' }));
  const skipCheck = options.trusted || options.allowList.allowsHost(target.hostname);
  const checked: CheckedAddress[] = [];
  for (const answer of answers) {
    const parsed: IpAddress | undefined = parseIpAddress(answer.address);
    if (!parsed) {
      throw blockedError(
        target.url,
        `host "${target.hostname}" resolved to "${answer.address}", not an IP address`,
        {
          reason: 'invalid-answer',
        },
      );
    }
    const classification = skipCheck ? undefined : checkAddress(parsed, options.allowList);
    if (classification) {
      throw blockedError(
        target.url,
        `host "${target.hostname}" resolves to ${describeClassification(parsed, classification, 'apposition')}`,
        { reason: classification.reason, address: formatIpAddress(parsed), hostname: target.hostname },
      );
    }
    checked.push({ address: formatIpAddress(parsed), family: parsed.family });
  }
  return checked;
}
