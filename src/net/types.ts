import type { LookupAddress } from 'node:dns';

/**
 * A resolver: host name → every address it resolves to. Injected for tests and unusual deployments. It rejects with
 * an error whose `code` says why, as dns.resolve does: ENOTFOUND (NXDOMAIN: "does not exist"), ENODATA (no address),
 * any other code a resolver failure ("could not be resolved", retryable). Anything else it throws is a bug: INTERNAL.
 */
export type LookupFunction = (hostname: string) => Promise<LookupAddress[]>;

/** Every network limit is its own named option with a unit. */
export interface NetworkLimits {
  /** TCP (and TLS, and proxy handshake) connect time, per hop. Default 10 000 ms. */
  connectTimeoutMs: number;
  /** From request sent to response headers received, per hop. Default 15 000 ms. */
  headersTimeoutMs: number;
  /** Longest silence while reading the body. Default 15 000 ms. */
  bodyTimeoutMs: number;
  /** The whole call, all redirects included. Default 30 000 ms. */
  totalTimeoutMs: number;
  /** Body bytes, counted while streaming and after decompression. Default 10 000 000. */
  maxBytes: number;
  /** Total size of the response head (status line and headers). Default 65 536 bytes. */
  maxHeaderBytes: number;
  /** Redirects followed before giving up. Default 5. */
  maxRedirects: number;
}

/**
 * The resolver's limits: fixed when the network policy is built (one resolver serves every call), so they are not
 * per-request overrides like NetworkLimits.
 */
export interface ResolverLimits {
  /** How long one DNS query waits for an answer before it is sent again (c-ares `timeout`). Default 2 000 ms. */
  dnsTimeoutMs: number;
  /**
   * How many times a query to `dnsServer` is sent before the lookup fails (c-ares `tries`). Default 2. (The system
   * resolver's ENOTFOUND is confirmed with one query: a check, not the lookup itself.)
   */
  dnsTries: number;
}

export interface ProxySettings {
  /** Proxy for http: URLs (`http://host:port` or `socks5://host:port`). */
  httpProxy?: string | undefined;
  /** Proxy for https: URLs. */
  httpsProxy?: string | undefined;
  /** Comma-separated hosts / suffixes / `*` that bypass the proxy (NO_PROXY syntax). */
  noProxy?: string | undefined;
}

/** What is about to be dialled: a checked target address (direct) or the configured proxy. */
export interface ConnectAttempt {
  host: string;
  port: number;
  via: 'direct' | 'proxy';
}

export interface HttpRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
  /**
   * Configured endpoints (a provider base URL) are trusted: the URL policy is not applied to them
   * (but every redirect away from their origin is checked). URLs from callers are never trusted.
   */
  trusted?: boolean;
  /** Sees the final response's status and headers before its body is read (aborting `signal` then stops the body). */
  onResponseHead?: (head: ResponseHead) => void;
  /**
   * Called once, when the first request (hop 0) has been written to the connection (its head and body handed to the
   * operating system), before any response: search pacing across instances counts from this moment.
   */
  onSent?: () => void;
  /**
   * Called once, when the first request's connection is open (to the host, or through its proxy), just before the
   * request is written: from then on it may have reached the host. A request that ends without it never left (a
   * refusal before connecting, a failed lookup, a refused or timed-out connection): search pacing gives its turn back.
   */
  onConnected?: () => void;
  /** Sees the final response's decoded body chunk by chunk as it streams in (the full body is still returned). */
  onBodyChunk?: (chunk: Buffer) => void;
  /** Per-request overrides of the client's limits. */
  limits?: Partial<NetworkLimits>;
  /**
   * What the request is for, as `beforeHop` (the egress checks, src/egress/) tells it: `document` (default: the page
   * asked for), `navigation` (a document a browser page moved on to), `subresource` (a script, style, XHR a browser
   * page loads).
   */
  resource?: 'document' | 'navigation' | 'subresource';
  /**
   * Called before each hop is sent, the first (`hop` 0) and every redirect, after the URL policy; throwing (a
   * POLICY_DENIED) refuses it and nothing is sent to that URL.
   */
  beforeHop?: (url: URL, hop: number, resource: NonNullable<HttpRequest['resource']>) => void | Promise<void>;
}

/** The final response before its body: what `onResponseHead` sees. */
export interface ResponseHead {
  /** The URL after redirects. */
  url: string;
  status: number;
  statusText: string;
  /** Lower-cased header names, as sent (content-length and content-encoding describe the wire bytes). */
  headers: Record<string, string>;
}

export interface HttpResponse {
  /** The URL first requested. */
  url: string;
  /** The URL after redirects. */
  finalUrl: string;
  status: number;
  statusText: string;
  /**
   * Lower-cased header names; repeated headers joined with ", " (set-cookie dropped). When the body was decoded,
   * content-encoding and content-length are removed (they described the wire bytes, not `body`).
   */
  headers: Record<string, string>;
  /** Decompressed body, at most `maxBytes`. */
  body: Uint8Array;
  /** Every hop followed, in order (not including the first URL). */
  redirects: string[];
  /** The address the final connection went to (for diagnostics). */
  remoteAddress?: string | undefined;
}

/** The guarded client: the only way Periscope code touches the network. Throws PeriscopeError. */
export type HttpFetch = (url: string | URL, request?: HttpRequest) => Promise<HttpResponse>;
