import type { ERROR_REASONS } from './error-reasons.ts';

/**
 * The closed set of error codes. Codes are public API: never renamed, never removed.
 */
export const ERROR_CODES = [
  'INVALID_INPUT',
  'CONFIG_INVALID',
  'NOT_CONFIGURED',
  'URL_BLOCKED',
  'ROBOTS_DISALLOWED',
  'HTTP_STATUS',
  'NETWORK',
  'TIMEOUT',
  'BODY_TOO_LARGE',
  'UNSUPPORTED_CONTENT',
  'EMPTY_CONTENT',
  'BLOCKED_BY_SITE',
  'RATE_LIMITED',
  'CREDITS_EXHAUSTED',
  'REPEATED_LOOKUP',
  'ALL_FAILED',
  'ABORTED',
  'INTERNAL',
  'POLICY_DENIED',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** The `details.reason` values an error of each code may carry (the table, with meanings: src/error-reasons.ts). */
export type ReasonsByCode = { [CODE in ErrorCode]: keyof (typeof ERROR_REASONS)[CODE] & string };

/** Every `details.reason`, whatever the code. */
export type ErrorReason = ReasonsByCode[ErrorCode];

export type TimeoutPhase = 'connect' | 'headers' | 'body' | 'total';

/** One provider's part in a search-chain call, as `data.attempts` and ALL_FAILED's `details.attempts` report it. */
export interface ProviderAttempt {
  provider: string;
  /** `ok`: it answered (maybe with no results); `failed`: it was asked and failed; `skipped`: it was not asked. */
  outcome: 'ok' | 'failed' | 'skipped';
  code?: ErrorCode;
  message?: string;
  /** Time spent on it, queueing included. */
  ms: number;
  /** Time spent waiting for its turn (pacing), when any. */
  queuedMs?: number;
  results?: number;
  /** When it may be asked again (rate limit, cooldown), when known. */
  retryAfterMs?: number;
  /** Not `ok`: whether asking it again may help (false for a refused key, a refused request). */
  retryable?: boolean;
  /** Not `ok`: the HTTP status the provider answered with, when it answered. */
  status?: number;
  /** Not `ok`: the error's `details.reason` (`invalid-key`, `quota`, `rate-limited`, `query-too-long`…). */
  reason?: ErrorReason;
  /** Not `ok`: the provider's own error code (`SUBSCRIPTION_TOKEN_INVALID`, `VALIDATION`…). */
  providerCode?: string;
}

/** One back-end's part in a web_fetch call (`data.attempts`, and `details.attempts` of a failed call). */
export interface FetchAttempt {
  backend: string;
  /** `ok`: it returned the page; `failed`: it was asked and failed; `skipped`: it was not asked. */
  outcome: 'ok' | 'failed' | 'skipped';
  code?: ErrorCode;
  /** Why it failed or was skipped. */
  message?: string;
  /** The HTTP status it reported (the origin's, or the reader service's on failure). */
  status?: number;
  /** Time spent on it. */
  ms: number;
}

export interface PeriscopeErrorDetails<CODE extends ErrorCode = ErrorCode> {
  url?: string;
  status?: number;
  provider?: string;
  phase?: TimeoutPhase;
  /** Name of the limit that was hit, e.g. `maxBytes`, and its value. */
  limit?: string;
  limitValue?: number;
  /** Why, within the code: one of `ReasonsByCode[CODE]` (docs/errors.md lists them). */
  reason?: ReasonsByCode[CODE];
  attempts?: ProviderAttempt[] | FetchAttempt[];
  [key: string]: unknown;
}

export interface ToolErrorData {
  code: ErrorCode;
  message: string;
  retryable: boolean;
  retryAfterMs?: number;
  details?: PeriscopeErrorDetails;
}

const BRAND = Symbol.for('periscope.error');

/** Codes that are worth retrying (or handing to the next provider) by default. */
const RETRYABLE_BY_DEFAULT: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'NETWORK',
  'TIMEOUT',
  'RATE_LIMITED',
  'BLOCKED_BY_SITE',
]);

export interface PeriscopeErrorOptions<CODE extends ErrorCode = ErrorCode> {
  retryable?: boolean;
  retryAfterMs?: number | undefined;
  details?: PeriscopeErrorDetails<CODE>;
  cause?: unknown;
}

export class PeriscopeError<CODE extends ErrorCode = ErrorCode> extends Error {
  readonly code: CODE;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly details: PeriscopeErrorDetails<CODE>;

  constructor(code: CODE, message: string, options: PeriscopeErrorOptions<CODE> = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PeriscopeError';
    this.code = code;
    this.retryable = options.retryable ?? RETRYABLE_BY_DEFAULT.has(code);
    this.retryAfterMs = options.retryAfterMs;
    this.details = options.details ?? {};
    Object.defineProperty(this, BRAND, { value: true });
  }

  toJSON(): ToolErrorData {
    const data: ToolErrorData = { code: this.code, message: this.message, retryable: this.retryable };
    if (this.retryAfterMs !== undefined) data.retryAfterMs = this.retryAfterMs;
    if (Object.keys(this.details).length > 0) data.details = this.details;
    return data;
  }
}

export function isPeriscopeError(value: unknown): value is PeriscopeError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

/**
 * Socket, DNS, TLS and HTTP-parser failures as Node (net, dns, tls, http, undici) reports them in `error.code`:
 * the network's doing, not ours.
 */
const NETWORK_ERROR_CODE =
  /^(?:E(?:CONN(?:RESET|REFUSED|ABORTED)|PIPE|TIMEDOUT|HOST(?:UNREACH|DOWN)|NET(?:UNREACH|DOWN|RESET)|ADDRNOTAVAIL|PROTO|NOTFOUND|NODATA|SERVFAIL|REFUSED|TIMEOUT|AI_[A-Z]+)|ERR_(?:TLS|SSL)_[A-Z_]+|ERR_SOCKET_[A-Z_]+|ERR_STREAM_PREMATURE_CLOSE|HPE_[A-Z_]+|UND_ERR_[A-Z_]+|CERT_[A-Z_]+|UNABLE_TO_[A-Z_]+|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|HOSTNAME_MISMATCH)$/;

/** The network error code of `error` or of one of its causes (`fetch failed` wraps the socket's error). */
function networkErrorCode(error: unknown): string | undefined {
  let current = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && NETWORK_ERROR_CODE.test(code)) return code;
    current = current.cause;
  }
  return undefined;
}

/**
 * Wrap anything thrown into a PeriscopeError, keeping the original as `cause`. A cancellation is ABORTED, a
 * timeout signal TIMEOUT, a socket/DNS/TLS failure NETWORK; anything else is INTERNAL: Periscope (or code it runs)
 * failed, not the site. With PERISCOPE_DEBUG set, an INTERNAL failure's stack goes to stderr.
 */
export function toPeriscopeError(error: unknown): PeriscopeError {
  if (isPeriscopeError(error)) return error;
  if (error instanceof Error && error.name === 'AbortError') {
    return new PeriscopeError('ABORTED', 'The call was cancelled.', { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof Error && error.name === 'TimeoutError') {
    return new PeriscopeError('TIMEOUT', `Timed out: ${message}`, { cause: error });
  }
  const errorCode = networkErrorCode(error);
  if (errorCode !== undefined) {
    return new PeriscopeError('NETWORK', `Network failure: ${message}`, {
      cause: error,
      details: { errorCode },
    });
  }
  const named = error instanceof Error ? `${error.name}: ${message}` : message;
  const internal = new PeriscopeError('INTERNAL', `Internal failure: ${named}`, {
    cause: error,
    retryable: false,
  });
  if (process.env.PERISCOPE_DEBUG) {
    const stack = error instanceof Error ? (error.stack ?? named) : named;
    process.stderr.write(`periscope: internal failure (PERISCOPE_DEBUG): ${stack}\n`);
  }
  return internal;
}

/**
 * An error a provider or back-end reports: the message names it (`brave: rate limited (HTTP 429)`), `details.provider`
 * holds its id and `details.messageWithoutProvider` the rest, for the displays that name the provider already (the
 * chain's attempts, a cooldown, `status`). Nothing takes the name back out of the message.
 */
export function errorFromProvider(
  provider: string,
  code: ErrorCode,
  text: string,
  options: PeriscopeErrorOptions = {},
): PeriscopeError {
  return new PeriscopeError(code, `${provider}: ${text}`, {
    ...options,
    details: { ...options.details, provider, messageWithoutProvider: text },
  });
}

/** What an error says without its provider's name (see errorFromProvider); its whole message when it kept none. */
export function messageWithoutProvider(error: PeriscopeError): string {
  const text = error.details.messageWithoutProvider;
  return typeof text === 'string' ? text : error.message;
}
