import { errorFromProvider, type PeriscopeError, type PeriscopeErrorDetails } from '../errors.ts';
import { asRecord, optionalText } from './provider-text.ts';

/**
 * What a provider failure means for the chain:
 * - `invalid-key` → HTTP_STATUS, not retryable (the chain still moves on; `periscope status` says so);
 * - `quota` → RATE_LIMITED with `details.reason: 'quota'` (plan or credits used up: cool down for long);
 * - `rate-limited` → RATE_LIMITED with `retryAfterMs` from the headers;
 * - `other` → HTTP_STATUS, retryable for 408/409/425/5xx.
 */
export type FailureKind = 'invalid-key' | 'quota' | 'rate-limited' | 'other';

/** A provider's own account of an error, read from its error body. */
export interface ProviderFailure {
  status: number;
  /** Machine code from the body (`SUBSCRIPTION_TOKEN_INVALID`, `dailyLimitExceeded`, …). */
  code?: string | undefined;
  /** Human message from the body, already shortened and scrubbed of the key. */
  message?: string | undefined;
  /** The parsed body, or undefined when it was not JSON. */
  body: unknown;
  /** A body that was not JSON, trimmed, shortened and scrubbed of the key (Marginalia's `QPM Limit Exceeded`). */
  text?: string | undefined;
  /** The response headers (lower-case names), when the failure came with a response. */
  headers?: Record<string, string> | undefined;
}

export interface ProviderErrorRules {
  /** Classify a failure; `undefined` falls back to the default (402 quota, 401/403 invalid key, 429 rate limited). */
  classify?(failure: ProviderFailure): FailureKind | undefined;
  /** A sentence appended to the message that says what to do, e.g. how to enable SearXNG's JSON format. */
  hint?(failure: ProviderFailure): string | undefined;
}

export interface ProviderErrorContext {
  url?: string;
  method?: string;
  statusText?: string;
  retryAfterMs?: number | undefined;
  hint?: string | undefined;
}

/**
 * A 2xx answer that cannot be used (malformed JSON, an unexpected shape, an error inside a 200). HTTP_STATUS,
 * retryable: a proxy page or a hiccup upstream is worth handing to the next provider.
 */
export function throwUnexpected(
  provider: string,
  text: string,
  details: PeriscopeErrorDetails<'HTTP_STATUS'> = {},
  cause?: unknown,
): never {
  throw errorFromProvider(provider, 'HTTP_STATUS', text, {
    retryable: true,
    details: { reason: 'unexpected-response', ...details },
    cause,
  });
}

function firstOf(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Message and code from the error bodies the providers are known to send: Brave `{error:{code,detail}}`, Tavily
 * `{detail:{error}}`, Serper `{message,statusCode}`, Exa/Firecrawl/SerpAPI `{error:"…"}`, Jina
 * `{name,message,readableMessage}`, Kagi `{error:{code,msg}}` or `{error:[{code,message}]}`, Google
 * `{error:{message,status,errors:[{reason}]}}`, MediaWiki `{error:{code,info}}`.
 */
export function readProviderError(body: unknown): { code?: string; message?: string } {
  const root = asRecord(body);
  if (!root) return {};
  const error = root.error;
  const inner = asRecord(firstOf(error));
  const detail = asRecord(root.detail);
  const googleReason = asRecord(firstOf(inner?.errors))?.reason;
  const message =
    optionalText(error) ??
    optionalText(inner?.detail) ??
    optionalText(inner?.message) ??
    optionalText(inner?.msg) ??
    optionalText(inner?.info) ??
    optionalText(detail?.error) ??
    optionalText(root.detail) ??
    optionalText(root.readableMessage) ??
    optionalText(root.message);
  const code =
    optionalText(googleReason) ??
    optionalText(inner?.code) ??
    optionalText(inner?.status) ??
    optionalText(root.tag) ??
    optionalText(root.name) ??
    (typeof inner?.code === 'number' ? String(inner.code) : undefined);
  return { ...(code === undefined ? {} : { code }), ...(message === undefined ? {} : { message }) };
}

export function defaultFailureKind(status: number): FailureKind {
  if (status === 402) return 'quota';
  if (status === 401 || status === 403) return 'invalid-key';
  if (status === 429) return 'rate-limited';
  return 'other';
}

/** The PeriscopeError for a classified provider failure; providers use it for errors reported inside a 200. */
export function providerError(
  provider: string,
  kind: FailureKind,
  failure: ProviderFailure,
  context: ProviderErrorContext = {},
): PeriscopeError {
  const message = failure.message?.slice(0, 300);
  const said = [failure.code, message].filter((part) => part !== undefined).join(': ');
  const status = `HTTP ${failure.status}${said ? `, ${said}` : ''}`;
  const hint = context.hint ? `; ${context.hint}` : '';
  const details = {
    provider,
    status: failure.status,
    ...(context.url === undefined ? {} : { url: context.url }),
    ...(failure.code === undefined ? {} : { providerCode: failure.code }),
  };
  const retryAfterMs = context.retryAfterMs;
  switch (kind) {
    case 'invalid-key':
      return errorFromProvider(provider, 'HTTP_STATUS', `the API key was refused (${status})${hint}`, {
        retryable: false,
        details: { ...details, reason: kind },
      });
    case 'quota':
      return errorFromProvider(
        provider,
        'RATE_LIMITED',
        `the plan's quota or credits are used up (${status})${hint}`,
        {
          retryable: true,
          retryAfterMs,
          details: { ...details, reason: kind },
        },
      );
    case 'rate-limited':
      return errorFromProvider(provider, 'RATE_LIMITED', `rate limited (${status})${hint}`, {
        retryable: true,
        retryAfterMs,
        details: { ...details, reason: kind },
      });
    default: {
      const statusText = context.statusText ? ` ${context.statusText}` : '';
      const where = context.url ? `${context.method ?? 'GET'} ${context.url} failed with ` : 'failed with ';
      const text = `${where}${failure.status}${statusText}${said ? `: ${said}` : ''}${hint}`;
      return errorFromProvider(provider, 'HTTP_STATUS', text, {
        retryable: failure.status >= 500 || [408, 409, 425].includes(failure.status),
        retryAfterMs,
        details,
      });
    }
  }
}
