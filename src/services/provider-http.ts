import { errorFromProvider, isPeriscopeError, PeriscopeError, toPeriscopeError } from '../errors.ts';
import type { HttpResponse } from '../net/types.ts';
import { redactUrl } from '../net/url-policy.ts';
import {
  defaultFailureKind,
  type ProviderErrorRules,
  type ProviderFailure,
  providerError,
  readProviderError,
  throwUnexpected,
} from './provider-errors.ts';
import { retryAfterFromHeaders } from './provider-headers.ts';
import { asRecord, optionalText } from './provider-text.ts';
import type { ProviderContext, ProviderSettings } from './types.ts';

export interface ProviderRequest {
  provider: string;
  url: URL;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Sent as the JSON body (POST). */
  json?: unknown;
  /** Strings never to show in a message (the API key). */
  secrets?: readonly (string | undefined)[];
  errors?: ProviderErrorRules;
}

export interface ProviderReply {
  /** The parsed JSON body. */
  body: unknown;
  status: number;
  headers: Record<string, string>;
}

/**
 * The provider's endpoint: `baseUrl` from settings (a stand-in in tests, a self-hosted instance) or the default,
 * with `path` appended to its path and the defined `params` set. A baseUrl that is not http(s) is a config error.
 */
export function providerUrl(
  provider: string,
  baseUrl: string,
  path: string,
  params: Record<string, string | number | boolean | undefined> = {},
): URL {
  const url = URL.parse(baseUrl);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw errorFromProvider(provider, 'CONFIG_INVALID', `baseUrl "${baseUrl}" is not an http(s) URL`, {
      details: { reason: 'invalid-base-url' },
    });
  }
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url;
}

/** Whether the settings carry an API key (the `isConfigured` of every keyed provider). */
export function hasApiKey(settings: ProviderSettings): boolean {
  return optionalText(settings.apiKey) !== undefined;
}

/** The API key from settings; NOT_CONFIGURED (no request made) when it is missing. */
export function requireApiKey(
  provider: string,
  settings: ProviderSettings,
  keyEnv: readonly string[],
): string {
  const key = optionalText(settings.apiKey);
  if (key !== undefined) return key;
  const where = keyEnv.length > 0 ? ` (set ${keyEnv.join(' or ')}, or providers.${provider}.apiKey)` : '';
  throw new PeriscopeError('NOT_CONFIGURED', `${provider} has no API key${where}`, {
    details: { provider, reason: 'missing-key' },
  });
}

/**
 * One request to a provider's configured endpoint (trusted: the URL policy is skipped for it, never for a
 * redirect away from it), with its error statuses turned into PeriscopeErrors and its JSON body parsed.
 */
export async function requestProviderJson(
  context: ProviderContext,
  request: ProviderRequest,
): Promise<ProviderReply> {
  const method = request.method ?? (request.json === undefined ? 'GET' : 'POST');
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  if (request.json !== undefined) headers['content-type'] = 'application/json';
  let response: HttpResponse;
  try {
    response = await context.fetch(request.url, {
      method,
      headers,
      ...(request.json === undefined ? {} : { body: JSON.stringify(request.json) }),
      signal: context.signal,
      trusted: true,
    });
  } catch (error) {
    // The chain's deadline (an abort whose reason is its TIMEOUT) is reported as that timeout, not as a cancellation.
    const reason: unknown = context.signal.reason;
    if (context.signal.aborted && isPeriscopeError(reason) && reason.code !== 'ABORTED') throw reason;
    throw withProvider(request.provider, toPeriscopeError(error));
  }
  const scrub = scrubber(request.secrets);
  if (response.status >= 400) {
    throw statusError(request, method, response, scrub);
  }
  return {
    body: parseJsonBody(request, method, response),
    status: response.status,
    headers: response.headers,
  };
}

function withProvider(provider: string, error: PeriscopeError): PeriscopeError {
  if (error.details.provider === provider) return error;
  return errorFromProvider(provider, error.code, error.message, {
    retryable: error.retryable,
    retryAfterMs: error.retryAfterMs,
    details: error.details,
    cause: error,
  });
}

function scrubber(secrets: readonly (string | undefined)[] = []): (text: string) => string {
  const values = secrets.filter((secret): secret is string => secret !== undefined && secret.length >= 4);
  return (text) => values.reduce((result, secret) => result.replaceAll(secret, '***'), text);
}

function decodeBody(response: HttpResponse): string {
  return Buffer.from(response.body)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
}

function parseJsonBody(request: ProviderRequest, method: string, response: HttpResponse): unknown {
  const text = decodeBody(response);
  try {
    if (text.trim() === '') throw new SyntaxError('empty body');
    return JSON.parse(text);
  } catch (error) {
    const contentType = response.headers['content-type'] ?? 'no content type';
    return throwUnexpected(
      request.provider,
      `${method} ${redactUrl(response.finalUrl)} returned malformed JSON (HTTP ${response.status}, ${contentType})`,
      { url: redactUrl(response.finalUrl), status: response.status, reason: 'malformed-json' },
      error,
    );
  }
}

/** The body as a JSON object; an unexpected-response error when it is an array, a string or null. */
export function jsonObject(provider: string, body: unknown): Record<string, unknown> {
  const record = asRecord(body);
  if (record === undefined) {
    throwUnexpected(provider, 'returned JSON that is not an object', { reason: 'unexpected-shape' });
  }
  return record;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function statusError(
  request: ProviderRequest,
  method: string,
  response: HttpResponse,
  scrub: (text: string) => string,
): PeriscopeError {
  const raw = decodeBody(response);
  const body = tryParse(raw);
  const read = readProviderError(body);
  const message = read.message === undefined ? undefined : scrub(read.message).slice(0, 300);
  const text = body === undefined && raw.trim() !== '' ? scrub(raw.trim()).slice(0, 300) : undefined;
  const failure: ProviderFailure = {
    status: response.status,
    code: read.code,
    message,
    body,
    ...(text === undefined ? {} : { text }),
    headers: response.headers,
  };
  const kind = request.errors?.classify?.(failure) ?? defaultFailureKind(response.status);
  return providerError(request.provider, kind, failure, {
    url: redactUrl(response.finalUrl),
    method,
    statusText: response.statusText,
    retryAfterMs: retryAfterFromHeaders(response.headers),
    hint: request.errors?.hint?.(failure),
  });
}
