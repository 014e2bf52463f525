import { domainToASCII } from 'node:url';

/**
 * One domain pattern of the egress policy, normalised:
 * - `tree`: `example.com` — the domain and every subdomain (`docs.example.com`);
 * - `subdomains`: `*.example.com` — every subdomain, not the domain itself;
 * - `exact`: `=www.example.com` — that host only. An IP address (`192.0.2.1`, `[2001:db8::1]`) is always exact.
 * `domain` is lower-case ASCII (IDN in punycode, `bücher.de` → `xn--bcher-kva.de`), without a trailing dot.
 */
export interface DomainPattern {
  mode: 'tree' | 'subdomains' | 'exact';
  domain: string;
}

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/** The pattern, or a one-line reason it is not one (for CONFIG_INVALID and INVALID_INPUT messages). */
export function parseDomainPattern(text: string): DomainPattern | { error: string } {
  const raw = text.trim();
  if (raw === '') return { error: 'an empty domain pattern' };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) || /[/?#@\s]/.test(raw))
    return { error: `"${text}" is not a domain pattern: give a host name such as example.com, not a URL` };
  let mode: DomainPattern['mode'] = 'tree';
  let body = raw;
  if (body.startsWith('=')) {
    mode = 'exact';
    body = body.slice(1);
  } else if (body.startsWith('*.')) {
    mode = 'subdomains';
    body = body.slice(2);
  }
  if (/^\[[0-9a-f:.]+\]$/i.test(body)) {
    if (mode === 'subdomains') return { error: `"${text}": an IP address has no subdomains` };
    const host = URL.parse(`http://${body}/`)?.hostname;
    return host ? { mode: 'exact', domain: host } : { error: `"${text}" is not a valid IPv6 address` };
  }
  if (/:\d*$/.test(body)) return { error: `"${text}" is not a domain pattern: leave the port out` };
  const ascii = domainToASCII(body.toLowerCase()).replace(/\.$/, '');
  if (IPV4.test(ascii)) {
    if (mode === 'subdomains') return { error: `"${text}": an IP address has no subdomains` };
    const host = URL.parse(`http://${ascii}/`)?.hostname;
    return host === ascii
      ? { mode: 'exact', domain: host }
      : { error: `"${text}" is not a valid IPv4 address` };
  }
  const labels = ascii.split('.');
  if (ascii === '' || ascii.length > 253 || !labels.every((label) => LABEL.test(label)))
    return {
      error: `"${text}" is not a domain pattern: use example.com (with its subdomains), *.example.com (subdomains only) or =www.example.com (that host only)`,
    };
  return { mode, domain: ascii };
}

/** The pattern as written in the normalised form (`*.xn--bcher-kva.de`). */
export function formatDomainPattern(pattern: DomainPattern): string {
  if (pattern.mode === 'subdomains') return `*.${pattern.domain}`;
  if (pattern.mode === 'exact' && !isIpHost(pattern.domain)) return `=${pattern.domain}`;
  return pattern.domain;
}

/** A URL's host as the patterns compare it: lower-case ASCII (the URL parser's), no trailing dot. */
export function normaliseHost(hostname: string): string {
  return domainToASCII(hostname.toLowerCase()).replace(/\.$/, '') || hostname.toLowerCase();
}

export function matchesDomain(pattern: DomainPattern, host: string): boolean {
  if (host === pattern.domain) return pattern.mode !== 'subdomains';
  return pattern.mode !== 'exact' && !isIpHost(host) && host.endsWith(`.${pattern.domain}`);
}

/** The hosts both patterns match, as one pattern, or undefined when none (patterns are nested or disjoint). */
export function intersectPatterns(a: DomainPattern, b: DomainPattern): DomainPattern | undefined {
  if (a.domain === b.domain) {
    if (a.mode === b.mode) return a;
    if (a.mode === 'tree') return b;
    if (b.mode === 'tree') return a;
    return undefined; // exact and subdomains
  }
  if (isBelow(a.domain, b.domain)) return b.mode === 'exact' ? undefined : a;
  if (isBelow(b.domain, a.domain)) return a.mode === 'exact' ? undefined : b;
  return undefined;
}

/** Whether every host `inner` matches, `outer` matches too. */
export function coversPattern(outer: DomainPattern, inner: DomainPattern): boolean {
  const both = intersectPatterns(outer, inner);
  return both !== undefined && both.mode === inner.mode && both.domain === inner.domain;
}

/** `docs.example.com` is below `example.com`. */
function isBelow(host: string, domain: string): boolean {
  return host.endsWith(`.${domain}`);
}

function isIpHost(host: string): boolean {
  return IPV4.test(host) || host.startsWith('[');
}
