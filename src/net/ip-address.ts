import { isIPv6 } from 'node:net';
import type { BlockedAddressReason } from '../error-reasons.ts';

/** A parsed IP address: IPv4 as an unsigned 32-bit number, IPv6 as a 128-bit bigint (plus the zone id, if any). */
export type IpAddress = { family: 4; value: number } | { family: 6; value: bigint; zone?: string };

/** Why an address is not public: the range it falls in and a short kebab-case reason. */
export interface AddressClassification {
  reason: BlockedAddressReason;
  range: string;
  /** For IPv6 addresses that embed an IPv4 address (mapped, NAT64, 6to4): the embedded address. */
  embeddedIpv4?: string;
}

const IPV4_PART = /^(?:0[xX][0-9a-fA-F]*|0[0-7]*|[1-9][0-9]*)$/;

/**
 * Parses an IPv4 literal the way the WHATWG URL host parser does, so every obfuscated form is understood:
 * decimal (`2130706433`), octal (`0177.0.0.1`), hex (`0x7f.1`), short (`127.1`), mixed, one trailing dot.
 * Returns the address as an unsigned 32-bit number, or undefined when the input is not an IPv4 literal.
 */
export function parseIpv4(input: string): number | undefined {
  const parts = input.split('.');
  if (parts.at(-1) === '' && parts.length > 1) parts.pop();
  if (parts.length === 0 || parts.length > 4) return undefined;
  const numbers: number[] = [];
  for (const part of parts) {
    if (!IPV4_PART.test(part)) return undefined;
    let value: number;
    if (/^0[xX]/.test(part)) value = part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16);
    else if (part.length > 1 && part.startsWith('0')) value = Number.parseInt(part.slice(1), 8);
    else value = Number.parseInt(part, 10);
    if (!Number.isSafeInteger(value)) return undefined;
    numbers.push(value);
  }
  const last = numbers.pop() ?? 0;
  if (numbers.some((value) => value > 255)) return undefined;
  if (last >= 256 ** (4 - numbers.length)) return undefined;
  let result = last;
  numbers.forEach((value, index) => {
    result += value * 256 ** (3 - index);
  });
  return result;
}

/** Parses an IPv6 literal (optionally in brackets, optionally with a `%zone`). */
export function parseIpv6(input: string): { value: bigint; zone?: string } | undefined {
  let text = input.startsWith('[') && input.endsWith(']') ? input.slice(1, -1) : input;
  let zone: string | undefined;
  const percent = text.indexOf('%');
  if (percent !== -1) {
    zone = text.slice(percent + 1);
    text = text.slice(0, percent);
    if (zone.startsWith('25')) zone = decodeZone(zone);
    if (zone === '') return undefined;
  }
  if (!isIPv6(text)) return undefined;
  let groups: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const v4 = parseStrictIpv4(dotted[1]);
    if (v4 === undefined) return undefined;
    text = `${text.slice(0, -dotted[1].length)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parseGroups = (part: string) =>
    part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16));
  if (tail === undefined) groups = parseGroups(head);
  else {
    const left = parseGroups(head);
    const right = parseGroups(tail);
    groups = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  }
  if (groups.length !== 8) return undefined;
  const value = groups.reduce((sum, group) => (sum << 16n) | BigInt(group), 0n);
  return zone === undefined ? { value } : { value, zone };
}

function decodeZone(zone: string): string {
  // `%25` is how a zone id's `%` is written inside a URL (RFC 6874): `fe80::1%25eth0`.
  return zone.slice(2);
}

function parseStrictIpv4(input: string): number | undefined {
  const parts = input.split('.');
  if (parts.length !== 4 || parts.some((part) => !/^\d{1,3}$/.test(part) || Number(part) > 255))
    return undefined;
  return parts.reduce((sum, part) => sum * 256 + Number(part), 0);
}

/** Parses any IP literal: IPv4 in every obfuscated form, IPv6 with or without brackets and zone. */
export function parseIpAddress(input: string): IpAddress | undefined {
  const v4 = parseIpv4(input);
  if (v4 !== undefined) return { family: 4, value: v4 };
  const v6 = parseIpv6(input);
  if (v6 !== undefined) return { family: 6, ...v6 };
  return undefined;
}

export function formatIpv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

/** Canonical text (RFC 5952 style, via the URL serializer) without brackets. */
export function formatIpAddress(address: IpAddress): string {
  if (address.family === 4) return formatIpv4(address.value);
  const groups: string[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n)
    groups.push(((address.value >> shift) & 0xffffn).toString(16));
  const text = new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1);
  return address.zone === undefined ? text : `${text}%${address.zone}`;
}

interface Range<VALUE, REASON extends string = BlockedAddressReason> {
  base: VALUE;
  prefix: number;
  reason: REASON;
  range: string;
}

function v4Range(cidr: string, reason: BlockedAddressReason): Range<number> {
  const [base = '', prefix = '32'] = cidr.split('/');
  return { base: parseStrictIpv4(base) ?? 0, prefix: Number(prefix), reason, range: cidr };
}

function v6Range<REASON extends string>(cidr: string, reason: REASON): Range<bigint, REASON> {
  const [base = '', prefix = '128'] = cidr.split('/');
  return { base: parseIpv6(base)?.value ?? 0n, prefix: Number(prefix), reason, range: cidr };
}

/** IPv4 ranges that are not public (IANA special-purpose registry, "globally reachable: false" and friends). */
const NON_PUBLIC_V4: readonly Range<number>[] = [
  v4Range('0.0.0.0/8', 'this-network'),
  v4Range('10.0.0.0/8', 'private'),
  v4Range('100.64.0.0/10', 'shared-address-space'),
  v4Range('127.0.0.0/8', 'loopback'),
  v4Range('169.254.169.254/32', 'cloud-metadata'),
  v4Range('169.254.0.0/16', 'link-local'),
  v4Range('172.16.0.0/12', 'private'),
  v4Range('192.0.0.0/24', 'ietf-protocol-assignments'),
  v4Range('192.0.2.0/24', 'documentation'),
  v4Range('192.88.99.0/24', '6to4-relay-anycast'),
  v4Range('192.168.0.0/16', 'private'),
  v4Range('198.18.0.0/15', 'benchmarking'),
  v4Range('198.51.100.0/24', 'documentation'),
  v4Range('203.0.113.0/24', 'documentation'),
  v4Range('224.0.0.0/4', 'multicast'),
  v4Range('255.255.255.255/32', 'broadcast'),
  v4Range('240.0.0.0/4', 'reserved'),
];

/** IPv6 ranges checked before the "global unicast only" rule, most specific first. */
const NON_PUBLIC_V6: readonly Range<bigint>[] = [
  v6Range('::/128', 'unspecified'),
  v6Range('::1/128', 'loopback'),
  v6Range('::/96', 'ipv4-compatible'),
  v6Range('64:ff9b:1::/48', 'nat64-local-use'),
  v6Range('100::/64', 'discard-only'),
  v6Range('2001::/32', 'teredo'),
  v6Range('2001:2::/48', 'benchmarking'),
  v6Range('2001:10::/28', 'orchid'),
  v6Range('2001:20::/28', 'orchid'),
  v6Range('2001:db8::/32', 'documentation'),
  v6Range('3fff::/20', 'documentation'),
  v6Range('5f00::/16', 'srv6-sid'),
  v6Range('fc00::/7', 'unique-local'),
  v6Range('fe80::/10', 'link-local'),
  v6Range('fec0::/10', 'site-local'),
  v6Range('ff00::/8', 'multicast'),
];

const MAPPED = v6Range('::ffff:0:0/96', 'ipv4-mapped');
const NAT64 = v6Range('64:ff9b::/96', 'nat64');
const SIX_TO_FOUR = v6Range('2002::/16', '6to4');
const GLOBAL_UNICAST = v6Range('2000::/3', 'global-unicast');

export function inIpv4Range(value: number, base: number, prefix: number): boolean {
  if (prefix === 0) return true;
  const mask = (0xffffffff << (32 - prefix)) >>> 0;
  return (value & mask) >>> 0 === (base & mask) >>> 0;
}

export function inIpv6Range(value: bigint, base: bigint, prefix: number): boolean {
  const shift = BigInt(128 - prefix);
  return value >> shift === base >> shift;
}

function classifyIpv4(value: number): AddressClassification | undefined {
  const match = NON_PUBLIC_V4.find((range) => inIpv4Range(value, range.base, range.prefix));
  return match && { reason: match.reason, range: match.range };
}

/**
 * Where an IPv6 address carries an IPv4 address that a translator or the dual-stack socket will actually reach:
 * IPv4-mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`, 6to4 `2002:aabb:ccdd::`.
 */
export function embeddedIpv4(value: bigint): number | undefined {
  if (inIpv6Range(value, MAPPED.base, MAPPED.prefix)) return Number(value & 0xffffffffn);
  if (inIpv6Range(value, NAT64.base, NAT64.prefix)) return Number(value & 0xffffffffn);
  if (inIpv6Range(value, SIX_TO_FOUR.base, SIX_TO_FOUR.prefix)) return Number((value >> 80n) & 0xffffffffn);
  return undefined;
}

/** Unwraps `::ffff:a.b.c.d` (the only embedding a local socket connects to as IPv4) into an IPv4 address. */
export function unmapIpv4(address: IpAddress): IpAddress {
  if (address.family === 6 && inIpv6Range(address.value, MAPPED.base, MAPPED.prefix)) {
    return { family: 4, value: Number(address.value & 0xffffffffn) };
  }
  return address;
}

/**
 * Returns why an address is not public, or undefined when it is a public (globally reachable) address.
 * IPv6: only global unicast (2000::/3) minus special ranges is public; Teredo (2001::/32) is refused as a whole;
 * addresses that embed an IPv4 address are judged by that address; any address with a zone id is non-public.
 */
export function classifyIpAddress(address: IpAddress): AddressClassification | undefined {
  if (address.family === 4) return classifyIpv4(address.value);
  if (address.zone !== undefined) return { reason: 'scoped', range: `%${address.zone}` };
  const embedded = embeddedIpv4(address.value);
  if (embedded !== undefined) {
    const inner = classifyIpv4(embedded);
    const range = [MAPPED, NAT64, SIX_TO_FOUR].find((item) =>
      inIpv6Range(address.value, item.base, item.prefix),
    );
    return (
      inner && {
        reason: inner.reason,
        range: `${range?.range} embedding ${inner.range}`,
        embeddedIpv4: formatIpv4(embedded),
      }
    );
  }
  const match = NON_PUBLIC_V6.find((range) => inIpv6Range(address.value, range.base, range.prefix));
  if (match) return { reason: match.reason, range: match.range };
  if (!inIpv6Range(address.value, GLOBAL_UNICAST.base, GLOBAL_UNICAST.prefix)) {
    return { reason: 'reserved', range: 'outside 2000::/3' };
  }
  return undefined;
}

/** True when the text is an IP literal of a public address. Non-literals are not public. */
export function isPublicIpAddress(input: string | IpAddress): boolean {
  const address = typeof input === 'string' ? parseIpAddress(input) : input;
  return address !== undefined && classifyIpAddress(address) === undefined;
}
