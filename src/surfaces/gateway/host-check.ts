import { isIP } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';

/**
 * Against DNS rebinding of the gateway itself: a web page whose name is re-pointed at 127.0.0.1 reaches the
 * gateway with `Host: evil.example` and `Origin: http://evil.example`. Requests are accepted only with a Host the
 * gateway is really known by, and (when a browser sends one) an Origin on that same list.
 */
export interface HostPolicy {
  /** `host:port` forms accepted in Host (lower case). */
  allowedHosts: string[];
  /** `http://host:port` forms accepted in Origin (lower case). */
  allowedOrigins: string[];
}

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}

export function isWildcardHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  return bare === '0.0.0.0' || bare === '::';
}

/** `::1` → `[::1]`; names and IPv4 unchanged. */
export function hostForUrl(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}

export function createHostPolicy(options: {
  host: string;
  port: number;
  extraHosts?: readonly string[];
  extraOrigins?: readonly string[];
}): HostPolicy {
  const { host, port } = options;
  const names = new Set<string>([host, 'localhost', '127.0.0.1', '::1']);
  if (isWildcardHost(host)) {
    names.add(hostname());
    for (const addresses of Object.values(networkInterfaces())) {
      for (const address of addresses ?? []) names.add(address.address);
    }
  }
  const hosts = new Set<string>();
  for (const name of names) hosts.add(`${hostForUrl(name)}:${port}`.toLowerCase());
  for (const extra of options.extraHosts ?? []) {
    hosts.add(extra.toLowerCase());
    if (!/:\d+$/.test(extra)) hosts.add(`${extra}:${port}`.toLowerCase());
  }
  const origins = new Set<string>();
  for (const entry of hosts) origins.add(`http://${entry}`);
  for (const extra of options.extraHosts ?? []) {
    if (!/:\d+$/.test(extra)) origins.add(`https://${extra.toLowerCase()}`);
  }
  for (const extra of options.extraOrigins ?? []) origins.add(extra.toLowerCase().replace(/\/$/, ''));
  return { allowedHosts: [...hosts], allowedOrigins: [...origins] };
}

/** Undefined when acceptable, otherwise why not. A missing Host (HTTP/1.0) is refused; a missing Origin is fine. */
export function checkHostAndOrigin(
  policy: HostPolicy,
  headers: { host?: string | undefined; origin?: string | undefined },
): string | undefined {
  const host = headers.host?.toLowerCase();
  if (host === undefined || !policy.allowedHosts.includes(host)) {
    return `Host ${JSON.stringify(headers.host ?? '')} is not one this gateway answers to (gateway.allowedHosts)`;
  }
  const origin = headers.origin?.toLowerCase();
  if (origin !== undefined && !policy.allowedOrigins.includes(origin)) {
    return `Origin ${JSON.stringify(headers.origin)} is not allowed (gateway.allowedOrigins)`;
  }
  return undefined;
}
