import { PeriscopeError } from '../errors.ts';
import { cidrContains, parseCidr } from './allow-list.ts';
import { parseIpAddress } from './ip-address.ts';
import type { ProxySettings } from './types.ts';
import type { UrlTarget } from './url-policy.ts';

/** A configured proxy. The proxy itself is trusted (it is configuration, not caller input). */
export interface ProxyEndpoint {
  protocol: 'http:' | 'https:' | 'socks5:' | 'socks5h:';
  /** Host without brackets. */
  host: string;
  port: number;
  username?: string;
  password?: string;
  /** The proxy URL without credentials, for messages. */
  display: string;
}

export interface ProxyRouter {
  /** The proxy a target goes through, or undefined for a direct connection (no proxy, or NO_PROXY matched). */
  select(target: UrlTarget): ProxyEndpoint | undefined;
}

const DEFAULT_PORTS: Record<ProxyEndpoint['protocol'], number> = {
  'http:': 80,
  'https:': 443,
  'socks5:': 1080,
  'socks5h:': 1080,
};

/** Parses a proxy URL: `http://[user:pass@]host:port`, `https://…`, `socks5://…`, `socks5h://…`; bare `host:port` is http. */
export function parseProxyUrl(text: string): ProxyEndpoint {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  const url = URL.parse(withScheme);
  const protocol = url?.protocol;
  if (!url || !protocol || !(protocol in DEFAULT_PORTS) || url.hostname === '') {
    const shown = url ? `${url.protocol}//${url.host}` : 'the given value';
    throw new PeriscopeError(
      'CONFIG_INVALID',
      `Proxy ${shown} is not supported; use http://host:port, https://host:port, socks5://host:port or socks5h://host:port`,
      { details: { reason: 'invalid-proxy' } },
    );
  }
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const endpoint: ProxyEndpoint = {
    protocol: protocol as ProxyEndpoint['protocol'],
    host,
    port: url.port === '' ? DEFAULT_PORTS[protocol as ProxyEndpoint['protocol']] : Number(url.port),
    display: `${protocol}//${url.host}`,
  };
  if (url.username !== '') endpoint.username = decodeURIComponent(url.username);
  if (url.password !== '') endpoint.password = decodeURIComponent(url.password);
  return endpoint;
}

/** A proxy setting read from the environment, with the variable it came from. */
export interface ProxyVariable {
  value: string;
  variable: string;
}

/**
 * Proxy settings from the conventional variables, each with the variable it came from. Lower-case names win over
 * upper-case ones (curl's rule); ALL_PROXY fills whichever of the two is missing. Empty values count as unset.
 */
export function proxyVariables(
  env: Record<string, string | undefined> = process.env,
): Partial<Record<keyof ProxySettings, ProxyVariable>> {
  const read = (name: string): ProxyVariable | undefined => {
    for (const variable of [name.toLowerCase(), name.toUpperCase()]) {
      const value = env[variable]?.trim();
      if (value) return { value, variable };
    }
    return undefined;
  };
  const all = read('all_proxy');
  const found: Partial<Record<keyof ProxySettings, ProxyVariable>> = {};
  const httpProxy = read('http_proxy') ?? all;
  const httpsProxy = read('https_proxy') ?? all;
  const noProxy = read('no_proxy');
  if (httpProxy) found.httpProxy = httpProxy;
  if (httpsProxy) found.httpsProxy = httpsProxy;
  if (noProxy) found.noProxy = noProxy;
  return found;
}

/** Proxy settings from the conventional variables (`proxyVariables`, without where each came from). */
export function proxyFromEnvironment(env: Record<string, string | undefined> = process.env): ProxySettings {
  const settings: ProxySettings = {};
  for (const [key, found] of Object.entries(proxyVariables(env))) {
    settings[key as keyof ProxySettings] = found.value;
  }
  return settings;
}

type NoProxyRule =
  | { kind: 'all' }
  | { kind: 'cidr'; cidr: NonNullable<ReturnType<typeof parseCidr>>; port?: number }
  | { kind: 'name'; name: string; port?: number };

function parseNoProxyRule(raw: string): NoProxyRule | undefined {
  const entry = raw.trim().toLowerCase();
  if (entry === '') return undefined;
  if (entry === '*') return { kind: 'all' };
  const cidr = parseCidr(entry.replace(/^\[(.*)\]$/, '$1'));
  if (cidr) return { kind: 'cidr', cidr };
  const withPort = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(entry);
  const hostPart = withPort?.[1] ?? entry;
  const port = withPort?.[2] === undefined ? undefined : Number(withPort[2]);
  const portRule = port === undefined ? {} : { port };
  const hostCidr = parseCidr(hostPart.replace(/^\[(.*)\]$/, '$1'));
  if (hostCidr) return { kind: 'cidr', cidr: hostCidr, ...portRule };
  const name = hostPart.replace(/^\*?\./, '').replace(/\.$/, '');
  return { kind: 'name', name, ...portRule };
}

/**
 * NO_PROXY matching (curl semantics): `*` matches everything; `example.org`, `.example.org` and `*.example.org`
 * match the name and every name below it; IPs and CIDRs match IP-literal hosts; `host:port` limits to that port.
 */
export function createNoProxyMatcher(
  noProxy: string | undefined,
): (hostname: string, port: number) => boolean {
  const rules = (noProxy ?? '')
    .split(/[\s,]+/)
    .map(parseNoProxyRule)
    .filter((rule) => rule !== undefined);
  return (hostname, port) => {
    const name = hostname
      .toLowerCase()
      .replace(/^\[(.*)\]$/, '$1')
      .replace(/\.$/, '');
    const address = parseIpAddress(name);
    return rules.some((rule) => {
      if (rule.kind === 'all') return true;
      if (rule.port !== undefined && rule.port !== port) return false;
      if (rule.kind === 'cidr') return address !== undefined && cidrContains(rule.cidr, address);
      return name === rule.name || name.endsWith(`.${rule.name}`);
    });
  };
}

/** Validates the proxy settings once (CONFIG_INVALID on a bad URL) and picks the proxy per target. */
export function createProxyRouter(settings: ProxySettings | undefined): ProxyRouter {
  const httpProxy = settings?.httpProxy ? parseProxyUrl(settings.httpProxy) : undefined;
  const httpsProxy = settings?.httpsProxy ? parseProxyUrl(settings.httpsProxy) : undefined;
  const bypass = createNoProxyMatcher(settings?.noProxy);
  return {
    select(target) {
      const proxy = target.url.protocol === 'https:' ? httpsProxy : httpProxy;
      if (!proxy || bypass(target.hostname, target.port)) return undefined;
      return proxy;
    },
  };
}
