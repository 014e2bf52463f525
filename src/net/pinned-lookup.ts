import type { LookupAddress } from 'node:dns';
import { promises as dns } from 'node:dns';
import { isPeriscopeError, PeriscopeError, type ReasonsByCode } from '../errors.ts';
import type { AllowList } from './allow-list.ts';
import { formatIpAddress, type IpAddress, parseIpAddress } from './ip-address.ts';
import { DEFAULT_RESOLVER_LIMITS } from './network-limits.ts';
import type { LookupFunction } from './types.ts';
import { blockedError, checkAddress, describeClassification, type UrlTarget } from './url-policy.ts';

/** An address the policy accepted, and that the connection must go to. */
export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

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
      `network.dnsServer "${server}" must be an IP address with an optional port (9.9.9.9:53, [2620:fe::fe]:53), not a host name`,
      {
        details: { reason: 'invalid-dns-server' },
      },
    );
  }
  const text = formatIpAddress(address);
  return address.family === 6 ? `[${text}]:${port}` : `${text}:${port}`;
}

/** The resolver's limits as c-ares names them; the network policy fills them from `network.dnsTimeoutMs`/`dnsTries`. */
export interface ResolverTimings {
  /** How long one query waits for an answer before asking again (c-ares `timeout`). Default `dnsTimeoutMs`, 2 000 ms. */
  timeoutMs?: number;
  /** How many times a query is sent before giving up (c-ares `tries`). Default `dnsTries`, 2. */
  tries?: number;
}

/** The system resolver's ENOTFOUND is confirmed with one query: a check, not the lookup itself. */
const CONFIRM_TRIES = 1;

/**
 * Asks the given DNS servers (or the system's, from resolv.conf) for A and AAAA, through c-ares: unlike
 * getaddrinfo, its errors tell NXDOMAIN (`ENOTFOUND`) from a name without addresses (`ENODATA`) from a resolver
 * failure (`ESERVFAIL`, `EREFUSED`, `ETIMEOUT`, `ECONNREFUSED`, …). A new `Resolver` per call, so a timed-out
 * lookup can be cancelled without touching other calls.
 */
function createResolverLookup(
  servers: readonly string[] | undefined,
  timings: ResolverTimings,
): LookupFunction {
  return async (hostname) => {
    const resolver = new dns.Resolver({
      timeout: timings.timeoutMs ?? DEFAULT_RESOLVER_LIMITS.dnsTimeoutMs,
      tries: timings.tries ?? DEFAULT_RESOLVER_LIMITS.dnsTries,
    });
    if (servers) resolver.setServers([...servers]);
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
    if (answers.length > 0) return answers;
    // NXDOMAIN is about the name, whichever question got it; "no records" only when both questions say so;
    // otherwise the resolver failed on at least one of them and we do not know.
    const errors = [v4.error, v6.error].filter((error) => error !== undefined);
    const failed = errors.find((error) => error.code !== 'ENODATA' && error.code !== 'ENOTFOUND');
    throw (
      errors.find((error) => error.code === 'ENOTFOUND') ??
      failed ??
      errors[0] ??
      Object.assign(new Error(`no address for ${hostname}`), { code: 'ENODATA' })
    );
  };
}

/** A resolver that asks one DNS server (A and AAAA) instead of the system resolver. */
export function createDnsServerLookup(server: string, timings: ResolverTimings = {}): LookupFunction {
  return createResolverLookup([parseDnsServer(server)], timings);
}

export interface SystemLookupOptions extends ResolverTimings {
  /** getaddrinfo. Default `dns.lookup(host, { all: true, order: 'verbatim' })` (honours /etc/hosts, nsswitch). */
  getaddrinfo?: LookupFunction;
  /** The DNS servers asked to tell an ENOTFOUND apart (`host:port`). Default: the system's (resolv.conf). */
  dnsServers?: readonly string[];
}

/**
 * The system resolver: getaddrinfo. Its ENOTFOUND is ambiguous — Node reports both "no such name" (EAI_NONAME)
 * and "no address" (EAI_NODATA) as ENOTFOUND, and glibc gives EAI_NONAME offline too, when no DNS server can be
 * reached. So an ENOTFOUND is checked once with DNS itself (c-ares, the system's servers, one short try): NXDOMAIN
 * stays ENOTFOUND ("does not exist"), no records is ENODATA, and anything else — no server reachable, SERVFAIL,
 * or DNS knowing a name getaddrinfo did not — is a resolver failure ("could not be resolved").
 */
export function createSystemLookup(options: SystemLookupOptions = {}): LookupFunction {
  const getaddrinfo: LookupFunction =
    options.getaddrinfo ?? ((hostname) => dns.lookup(hostname, { all: true, order: 'verbatim' }));
  const servers = options.dnsServers?.map((server) => parseDnsServer(server));
  const confirm = createResolverLookup(servers, {
    timeoutMs: options.timeoutMs ?? DEFAULT_RESOLVER_LIMITS.dnsTimeoutMs,
    tries: options.tries ?? CONFIRM_TRIES,
  });
  return async (hostname) => {
    try {
      return await getaddrinfo(hostname);
    } catch (error) {
      if ((error as NodeJS.ErrnoException | undefined)?.code !== 'ENOTFOUND') throw error;
      let answers: LookupAddress[];
      try {
        answers = await confirm(hostname);
      } catch (dnsError) {
        const code = (dnsError as NodeJS.ErrnoException | undefined)?.code;
        if (code === 'ENOTFOUND') throw error;
        throw dnsError;
      }
      throw Object.assign(
        new Error(`getaddrinfo found no address for ${hostname}, though DNS has ${answers.length}`),
        { code: 'EAI_FAIL', cause: error },
      );
    }
  };
}

/** What a resolver's error code says, for the message: NXDOMAIN, no records, or how the resolver failed. */
const RESOLVER_FAILURES: Record<string, string> = {
  ESERVFAIL: 'the DNS server failed to answer',
  EREFUSED: 'the DNS server refused the query',
  ETIMEOUT: 'no DNS answer in time',
  ECONNREFUSED: 'no DNS server could be reached',
  EAI_AGAIN: 'temporary failure in name resolution',
  EAI_FAIL: 'the system resolver failed',
};

/**
 * A resolver's error as the hop's failure. Only a resolver's own verdict counts (an error with a `code`, as
 * dns.lookup / dns.resolve give): ENOTFOUND is NXDOMAIN, ENODATA a name without addresses, any other code a
 * resolver failure (retryable). Anything else a custom resolver throws is not a DNS answer: it is passed on
 * (an internal failure, not the site's).
 */
function lookupError(target: UrlTarget, error: unknown): unknown {
  if (isPeriscopeError(error)) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== 'string' || code === '') return error;
  const host = `Fetching ${target.url.origin}: host "${target.hostname}"`;
  const fail = (text: string, retryable: boolean, reason: ReasonsByCode['NETWORK']) =>
    new PeriscopeError('NETWORK', `${host} ${text}`, {
      cause: error,
      retryable,
      details: { url: target.url.origin, reason, errorCode: code },
    });
  if (code === 'ENOTFOUND' || code === 'NXDOMAIN')
    return fail('does not exist (NXDOMAIN)', false, 'dns-not-found');
  if (code === 'ENODATA') return fail('has no address (no A or AAAA records)', false, 'dns-no-address');
  const why = RESOLVER_FAILURES[code];
  return fail(`could not be resolved (${code}${why ? `: ${why}` : ''})`, true, 'dns-failure');
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
