import { type IncomingHttpHeaders, validateHeaderName, validateHeaderValue } from 'node:http';
import {
  type ErrorCode,
  isPeriscopeError,
  PeriscopeError,
  type PeriscopeErrorDetails,
  toPeriscopeError,
} from '../errors.ts';
import { abortedError, timeoutError } from './net-errors.ts';
import { DEFAULT_NETWORK_LIMITS, resolveNetworkLimits } from './network-limits.ts';
import { createNetworkPolicy, type NetworkPolicy, type NetworkPolicySettings } from './network-policy.ts';
import { createProxyRouter } from './proxy.ts';
import { followRedirect, type HopRequestState, REDIRECT_STATUSES, redirectKey } from './redirects.ts';
import { sendHop } from './send-hop.ts';
import type {
  ConnectAttempt,
  HttpFetch,
  HttpRequest,
  HttpResponse,
  LookupFunction,
  NetworkLimits,
  ProxySettings,
} from './types.ts';
import { parseHttpUrl, redactUrl, type UrlTarget } from './url-policy.ts';

export const DEFAULT_USER_AGENT = 'Periscope/0.1 (+https://github.com/periscope)';
export const DEFAULT_ACCEPT_ENCODING = 'gzip, deflate, br';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Request headers the client owns: framing and connection management are not the caller's to set. */
const OWNED_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
]);

function buildHeaders(request: HttpRequest, userAgent: string, authorization: string | undefined) {
  const headers: Record<string, string> = {
    'user-agent': userAgent,
    'accept-encoding': DEFAULT_ACCEPT_ENCODING,
  };
  if (authorization !== undefined) headers.authorization = authorization;
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    const key = name.toLowerCase();
    try {
      validateHeaderName(key);
      validateHeaderValue(key, value);
    } catch (error) {
      throw new PeriscopeError('INVALID_INPUT', `Request header "${name}" is not a valid HTTP header`, {
        cause: error,
        details: { reason: 'invalid-header' },
      });
    }
    if (!OWNED_HEADERS.has(key)) headers[key] = value;
  }
  return headers;
}

/** Userinfo in a URL becomes Basic authorization for that origin (and is dropped with it on cross-origin hops). */
function takeCredentials(url: URL): string | undefined {
  if (url.username === '' && url.password === '') return undefined;
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  url.username = '';
  url.password = '';
  return `Basic ${Buffer.from(credentials).toString('base64')}`;
}

function toHeaderRecord(headers: IncomingHttpHeaders, decoded: boolean): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name === 'set-cookie') continue;
    record[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  if (decoded) {
    delete record['content-encoding'];
    delete record['content-length'];
  }
  return record;
}

/** The call's deadline and the caller's cancellation, as one signal whose reason is the error to throw. */
function createCallScope(
  signal: AbortSignal | undefined,
  totalTimeoutMs: number,
  operation: string,
  url: string,
) {
  const controller = new AbortController();
  const onAbort = () => controller.abort(abortedError(operation, url, signal?.reason));
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(
    () => controller.abort(timeoutError(operation, url, 'total', totalTimeoutMs)),
    totalTimeoutMs,
  );
  return {
    signal: controller.signal,
    dispose() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
}

function redirectError(
  operation: string,
  url: string,
  text: string,
  details: PeriscopeErrorDetails<'HTTP_STATUS'>,
) {
  return new PeriscopeError('HTTP_STATUS', `${operation} failed: ${text}`, {
    retryable: false,
    details: { url, ...details },
  });
}

export interface HttpClientOptions extends Partial<NetworkLimits>, NetworkPolicySettings {
  /**
   * The deployment's network policy (src/net/network-policy.ts): the allow-list and resolver the client checks and
   * connects with, shared with every other part that decides about URLs. Without it the client builds its own from
   * `allowPrivateNetwork`, `lookup`, `dnsServer`, `dnsTimeoutMs` and `dnsTries` (a standalone client); with it,
   * those must not be given (CONFIG_INVALID: one opening, decided in one place).
   */
  policy?: NetworkPolicy;
  /** Custom resolver. Wins over `dnsServer`. Default: the system resolver (dns.lookup, all: true). */
  lookup?: LookupFunction;
  proxy?: ProxySettings;
  userAgent?: string;
  /**
   * CA certificates (PEM) to trust for HTTPS instead of Node's bundled roots (tls `ca`): for intranets and tests.
   * To add to the bundled roots instead, use NODE_EXTRA_CA_CERTS.
   */
  ca?: string | readonly string[];
  /**
   * Audit and test hook: called synchronously right before every TCP connect with the host and port actually
   * dialled (the checked address, or the configured proxy). Throwing refuses the connect.
   */
  beforeConnect?: (attempt: ConnectAttempt) => void;
}

/**
 * The client's network policy: the one it is handed, or (a standalone client) one built from its own options.
 * Both at once would be two openings: CONFIG_INVALID.
 */
function clientPolicy(options: HttpClientOptions): NetworkPolicy {
  if (options.policy === undefined) return createNetworkPolicy(options, { lookup: options.lookup });
  const settings = ['allowPrivateNetwork', 'lookup', 'dnsServer', 'dnsTimeoutMs', 'dnsTries'] as const;
  const given = settings.filter((name) => options[name] !== undefined && options[name] !== null);
  if (given.length > 0) {
    throw new PeriscopeError(
      'CONFIG_INVALID',
      `createHttpClient was given a network policy and ${given.join(', ')}; the policy already decides them, give it alone`,
    );
  }
  return options.policy;
}

/**
 * The guarded client. Per hop: URL policy → one resolution, every answer checked → connect to a checked address
 * (directly or through the proxy) → request with connect/headers/body/total deadlines → body within maxBytes.
 * Redirects are followed by hand and every hop is checked again. Status codes are returned, not thrown.
 * The policy (allow-list and resolver) is `options.policy`, the deployment's one; `allowPrivateNetwork`, `lookup`,
 * `dnsServer`, `dnsTimeoutMs` and `dnsTries` build one for a standalone client instead.
 */
export function createHttpClient(options: HttpClientOptions = {}): HttpFetch {
  const clientLimits = resolveNetworkLimits(DEFAULT_NETWORK_LIMITS, options, 'CONFIG_INVALID');
  const policy = clientPolicy(options);
  const proxies = createProxyRouter(options.proxy);
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const ca =
    options.ca === undefined ? undefined : typeof options.ca === 'string' ? options.ca : [...options.ca];

  return async function guardedFetch(input, request = {}): Promise<HttpResponse> {
    const limits = request.limits
      ? resolveNetworkLimits(clientLimits, request.limits, 'INVALID_INPUT')
      : clientLimits;
    const method = (request.method ?? 'GET').toUpperCase();
    if (!METHODS.has(method)) {
      throw new PeriscopeError('INVALID_INPUT', `HTTP method "${request.method}" is not supported`, {
        details: { reason: 'invalid-method' },
      });
    }
    const url = parseHttpUrl(input);
    const authorization = takeCredentials(url);
    let state: HopRequestState = {
      url,
      method,
      headers: buildHeaders(request, userAgent, authorization),
      body: request.body === undefined ? undefined : Buffer.from(request.body),
    };
    const firstUrl = url.href;
    const shownUrl = redactUrl(url);
    const operation = `${method} ${shownUrl}`;
    const trustedOrigin = request.trusted === true ? url.origin : undefined;
    const seen = new Set([redirectKey(method, url)]);
    const redirects: string[] = [];
    const scope = createCallScope(request.signal, limits.totalTimeoutMs, operation, shownUrl);
    try {
      for (;;) {
        if (scope.signal.aborted) throw scope.signal.reason;
        const trusted = state.url.origin === trustedOrigin;
        const target: UrlTarget = policy.checkUrl(state.url, { trusted });
        await request.beforeHop?.(state.url, redirects.length, request.resource ?? 'document');
        const hop = await sendHop({
          ...state,
          target,
          limits,
          callSignal: scope.signal,
          resolve: (hopTarget) => policy.resolve(hopTarget, { trusted }),
          proxy: proxies.select(target),
          ...(ca === undefined ? {} : { ca }),
          beforeConnect: options.beforeConnect,
          onSent: redirects.length === 0 ? request.onSent : undefined,
          onConnected: redirects.length === 0 ? request.onConnected : undefined,
        });
        const location = hop.headers.location;
        const next =
          REDIRECT_STATUSES.has(hop.status) && location
            ? followRedirect(state, hop.status, location)
            : undefined;
        if (next) {
          hop.discard();
          const details = {
            status: hop.status,
            redirects: [...redirects, next.url.href].map((item) => redactUrl(item)),
          };
          const key = redirectKey(next.method, next.url);
          if (seen.has(key)) {
            const visited = redactUrl(next.url);
            throw redirectError(operation, shownUrl, `redirect loop (${visited} was already visited)`, {
              ...details,
              reason: 'redirect-loop',
            });
          }
          if (redirects.length >= limits.maxRedirects) {
            const text = `more than ${limits.maxRedirects} redirects (maxRedirects)`;
            throw redirectError(operation, shownUrl, text, {
              ...details,
              reason: 'too-many-redirects',
              limit: 'maxRedirects',
              limitValue: limits.maxRedirects,
            });
          }
          seen.add(key);
          redirects.push(next.url.href);
          state = next;
          continue;
        }
        if (request.onResponseHead) {
          const head = { url: state.url.href, status: hop.status, statusText: hop.statusText };
          try {
            request.onResponseHead({ ...head, headers: toHeaderRecord(hop.headers, false) });
          } catch (error) {
            hop.discard();
            throw error;
          }
        }
        const { body, decoded } = await hop.readBody(request.onBodyChunk);
        return {
          url: firstUrl,
          finalUrl: state.url.href,
          status: hop.status,
          statusText: hop.statusText,
          headers: toHeaderRecord(hop.headers, decoded),
          body,
          redirects,
          remoteAddress: hop.remoteAddress,
        };
      }
    } catch (error) {
      const failure = scope.signal.aborted && !isPeriscopeError(error) ? scope.signal.reason : error;
      throw withRedirectContext(toPeriscopeError(failure), redirects, firstUrl);
    } finally {
      scope.dispose();
    }
  };
}

/** A hop refused after redirects says where the chain started. */
function withRedirectContext(
  error: PeriscopeError,
  redirects: readonly string[],
  firstUrl: string,
): PeriscopeError {
  if ((error.code !== 'URL_BLOCKED' && error.code !== 'POLICY_DENIED') || redirects.length === 0)
    return error;
  const from = redactUrl((redirects.length > 1 ? redirects.at(-2) : undefined) ?? firstUrl);
  return new PeriscopeError<ErrorCode>(error.code, `${error.message} (redirected from ${from})`, {
    cause: error,
    retryable: error.retryable,
    details: { ...error.details, redirectFrom: from, redirects: redirects.map((item) => redactUrl(item)) },
  });
}
