import { PeriscopeError, type PeriscopeErrorDetails } from '../errors.ts';
import type { AllowList } from './allow-list.ts';
import {
  type AddressClassification,
  classifyIpAddress,
  formatIpAddress,
  type IpAddress,
  parseIpAddress,
  parseIpv6,
} from './ip-address.ts';

/** A URL that passed the policy, with what the connection needs. */
export interface UrlTarget {
  url: URL;
  /** Host without brackets and without a trailing dot: what the policy, SNI and NO_PROXY look at. */
  hostname: string;
  /** Set when the host is an IP literal. */
  address?: IpAddress;
  port: number;
}

export interface UrlPolicyOptions {
  allowList?: AllowList;
  /** A configured endpoint: only the scheme is checked. */
  trusted?: boolean;
}

const ALLOWED_PROTOCOLS = new Set(['http:', 'https:']);
const LOCAL_NAMES = new Set(['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback']);
const BRACKETED_HOST = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?\[([^\]/?#]*)\]/i;

/** Query parameters whose values are credentials: masked in every message. */
const SECRET_PARAMETER =
  /^(?:api[-_]?key|key|apikey|token|access[-_]?token|refresh[-_]?token|id[-_]?token|auth|authorization|secret|client[-_]?secret|password|passwd|pwd|signature|sig|x-amz-signature|x-amz-credential|x-amz-security-token|session|sessionid|code)$/i;

/**
 * The URL for messages and error details: userinfo removed and credential-like query values (`api_key`, `token`,
 * `signature`…) replaced by `***`, so no secret reaches an error, a log or the model.
 */
export function redactUrl(url: string | URL): string {
  const parsed = typeof url === 'string' ? URL.parse(url) : url;
  if (!parsed) return String(url);
  const secretKeys = [...parsed.searchParams.keys()].filter((key) => SECRET_PARAMETER.test(key));
  if (parsed.username === '' && parsed.password === '' && secretKeys.length === 0) return parsed.href;
  const copy = new URL(parsed.href);
  copy.username = '';
  copy.password = '';
  if (secretKeys.length > 0) {
    const masked = [...copy.searchParams].map(([key, value]): [string, string] => [
      key,
      SECRET_PARAMETER.test(key) ? '***' : value,
    ]);
    copy.search = new URLSearchParams(masked).toString();
  }
  return copy.href;
}

/** `localhost`, `localhost.`, `*.localhost` and the usual /etc/hosts loopback aliases: refused without resolving. */
export function isLocalHostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  return LOCAL_NAMES.has(name) || name.endsWith('.localhost');
}

/**
 * Returns why an address may not be connected to, or undefined when it may (public, or opened by the allow-list).
 * IPv4-mapped IPv6 answers are matched against IPv4 allow-list entries.
 */
export function checkAddress(address: IpAddress, allowList?: AllowList): AddressClassification | undefined {
  const classification = classifyIpAddress(address);
  if (classification === undefined || allowList?.allowsAddress(address)) return undefined;
  return classification;
}

/**
 * `10.0.0.1 is a non-public address (private, 10.0.0.0/8)`; as an apposition, for `host "x" resolves to …`:
 * `10.0.0.1, a non-public address (private, 10.0.0.0/8)`.
 */
export function describeClassification(
  address: IpAddress,
  classification: AddressClassification,
  form: 'clause' | 'apposition' = 'clause',
): string {
  const text = formatIpAddress(address);
  const embedded = classification.embeddedIpv4 ? ` (embeds ${classification.embeddedIpv4})` : '';
  const link = form === 'clause' ? ' is' : ',';
  return `${text}${embedded}${link} a non-public address (${classification.reason}, ${classification.range})`;
}

export function blockedError(
  url: string | URL,
  reason: string,
  details: PeriscopeErrorDetails<'URL_BLOCKED'> = {},
): PeriscopeError {
  return new PeriscopeError('URL_BLOCKED', `Fetching ${redactUrl(url)} refused: ${reason}`, {
    details: { url: redactUrl(url), ...details },
  });
}

/**
 * For text the WHATWG URL parser refuses: URL_BLOCKED when it names a non-public IPv6 literal — zone ids
 * (`http://[fe80::1%25eth0]/`, `http://[::1%25lo]/`), which the parser rejects and no allow-list opens — else
 * undefined (the text is simply not a URL). Callers that parse URLs themselves use it to give the same answer.
 */
export function blockedUnparsableUrl(text: string): PeriscopeError | undefined {
  const bracketed = BRACKETED_HOST.exec(text.trim())?.[1];
  const v6 = bracketed === undefined ? undefined : parseIpv6(bracketed);
  if (!v6) return undefined;
  const address: IpAddress = { family: 6, ...v6 };
  const classification = classifyIpAddress(address);
  if (!classification) return undefined;
  const shown = shownUrl(text);
  return new PeriscopeError(
    'URL_BLOCKED',
    `Fetching ${shown} refused: ${describeClassification(address, classification)}`,
    { details: { url: shown, reason: classification.reason } },
  );
}

/** A caller's text as an error message quotes it: at most 200 characters. */
function shownUrl(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * Parses a caller-supplied URL. Malformed → INVALID_INPUT; a scheme other than http/https → URL_BLOCKED.
 * A URL that WHATWG refuses but that names a non-public IPv6 literal (zone ids: `http://[fe80::1%25eth0]/`)
 * is reported as URL_BLOCKED, which is what it is.
 */
export function parseHttpUrl(input: string | URL): URL {
  const url = typeof input === 'string' ? URL.parse(input.trim()) : new URL(input.href);
  if (!url) {
    const blocked = typeof input === 'string' ? blockedUnparsableUrl(input) : undefined;
    if (blocked) throw blocked;
    const shown = shownUrl(String(input));
    throw new PeriscopeError('INVALID_INPUT', `"${shown}" is not a valid URL; give an absolute http(s) URL`, {
      details: { url: shown, reason: 'invalid-url' },
    });
  }
  if (!ALLOWED_PROTOCOLS.has(url.protocol)) {
    throw blockedError(
      url,
      `the scheme "${url.protocol}" is not allowed; only http and https URLs can be fetched`,
      {
        reason: 'scheme',
      },
    );
  }
  return url;
}

/**
 * The URL policy for one hop, before any resolution: scheme, host-name rules (`localhost`…), and IP literals in
 * every encoding. Host names that still need resolving pass here; their answers are checked by the pinned lookup.
 */
export function checkUrl(input: string | URL, options: UrlPolicyOptions = {}): UrlTarget {
  const url = parseHttpUrl(input);
  const bracketless = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const hostname = bracketless.replace(/\.$/, '');
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  const address = parseIpAddress(hostname);
  const target: UrlTarget = address ? { url, hostname, address, port } : { url, hostname, port };
  if (options.trusted) return target;
  const { allowList } = options;
  if (address) {
    const classification = checkAddress(address, allowList);
    if (classification) {
      throw blockedError(url, describeClassification(address, classification), {
        reason: classification.reason,
        address: formatIpAddress(address),
      });
    }
    return target;
  }
  if (allowList?.allowsHost(hostname)) return target;
  if (isLocalHostName(hostname)) {
    throw blockedError(url, `"${hostname}" is a local host name`, { reason: 'loopback' });
  }
  return target;
}
