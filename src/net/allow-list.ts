import { PeriscopeError } from '../errors.ts';
import { type IpAddress, inIpv4Range, inIpv6Range, parseIpAddress, unmapIpv4 } from './ip-address.ts';

/**
 * The explicit opening of private ranges (`allowPrivateNetwork`): CIDRs (`10.0.0.0/8`, `fd00::/8`), single
 * addresses (`127.0.0.2`), exact host names (`intranet.example`) and subdomain suffixes (`.corp.example` or
 * `*.corp.example`, which match names below `corp.example` but not `corp.example` itself).
 */
export interface AllowList {
  readonly entries: readonly string[];
  allowsAddress(address: IpAddress): boolean;
  /** `hostname` without brackets; a trailing dot is ignored. */
  allowsHost(hostname: string): boolean;
}

type Cidr = { family: 4; base: number; prefix: number } | { family: 6; base: bigint; prefix: number };

const HOST_NAME =
  /^(?:\*\.|\.)?(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/;

/** Parses `a.b.c.d/n`, `v6/n` or a single address into a CIDR; undefined when the text is not one. */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.lastIndexOf('/');
  const addressText = slash === -1 ? text : text.slice(0, slash);
  const prefixText = slash === -1 ? undefined : text.slice(slash + 1);
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const address = parseIpAddress(addressText);
  if (!address) return undefined;
  // In configuration, IPv4 must be a plain dotted quad: `10/8` or `2130706433` are more likely typos than intent.
  if (address.family === 4 && !/^\d{1,3}(?:\.\d{1,3}){3}$/.test(addressText)) return undefined;
  if (address.family === 4) {
    const prefix = prefixText === undefined ? 32 : Number(prefixText);
    return prefix <= 32 ? { family: 4, base: address.value, prefix } : undefined;
  }
  const prefix = prefixText === undefined ? 128 : Number(prefixText);
  return prefix <= 128 && address.zone === undefined ? { family: 6, base: address.value, prefix } : undefined;
}

export function cidrContains(cidr: Cidr, address: IpAddress): boolean {
  const plain = unmapIpv4(address);
  if (cidr.family === 4) return plain.family === 4 && inIpv4Range(plain.value, cidr.base, cidr.prefix);
  return address.family === 6 && inIpv6Range(address.value, cidr.base, cidr.prefix);
}

/** Builds an allow-list; an entry that is neither a CIDR/address nor a host pattern is CONFIG_INVALID. */
/** One allow-list entry, read: an address range, one host name, or every name under a suffix. */
export type AllowListEntry = { cidr: Cidr } | { host: string } | { suffix: string };

/** Reads one entry of `allowPrivateNetwork`, or throws CONFIG_INVALID naming what it takes. */
export function parseAllowListEntry(raw: string): AllowListEntry {
  const entry = raw.trim().toLowerCase();
  const cidr = parseCidr(entry);
  if (cidr) return { cidr };
  if (HOST_NAME.test(entry) && parseIpAddress(entry) === undefined) {
    const name = entry.replace(/\.$/, '');
    return name.startsWith('*.') || name.startsWith('.')
      ? { suffix: name.slice(name.indexOf('.')) }
      : { host: name };
  }
  throw new PeriscopeError(
    'CONFIG_INVALID',
    `allowPrivateNetwork entry "${raw}" is neither a CIDR (10.0.0.0/8, fd00::/8), an address, nor a host name (intranet.example, .corp.example)`,
    { details: { reason: 'invalid-allow-list-entry' } },
  );
}

export function createAllowList(entries: readonly string[] = []): AllowList {
  const cidrs: Cidr[] = [];
  const exactHosts = new Set<string>();
  const suffixes: string[] = [];
  for (const raw of entries) {
    const entry = parseAllowListEntry(raw);
    if ('cidr' in entry) cidrs.push(entry.cidr);
    else if ('host' in entry) exactHosts.add(entry.host);
    else suffixes.push(entry.suffix);
  }
  return {
    entries: [...entries],
    allowsAddress: (address) => cidrs.some((cidr) => cidrContains(cidr, address)),
    allowsHost: (hostname) => {
      const name = hostname.toLowerCase().replace(/\.$/, '');
      return (
        exactHosts.has(name) ||
        suffixes.some((suffix) => name.endsWith(suffix) && name.length > suffix.length)
      );
    },
  };
}
