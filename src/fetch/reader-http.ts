import type { CallContext } from '../call-context.ts';
import type { FetchBackendsConfig } from '../config/fetch-schema.ts';
import type { ProvidersConfig } from '../config/search-schema.ts';
import { stripInvisible } from '../content/invisible-unicode.ts';
import { renderContent } from '../content/render-content.ts';
import type { ExtractMode, RenderedContent } from '../content/types.ts';
import { PeriscopeError } from '../errors.ts';
import type { HttpFetch } from '../net/types.ts';
import type { ProviderErrorRules } from '../services/provider-errors.ts';
import { jsonObject, providerUrl, requestProviderJson } from '../services/provider-http.ts';
import type { FetchBackend, FetchedPage, PageRequest } from './fetch-backend.ts';

/** What every reader back-end is built from: its endpoint, key, headers and attempt deadline. */
export interface ReaderSettings {
  /** The key, or undefined (NOT_CONFIGURED for readers that need one). */
  apiKey?: string | undefined;
  baseUrl?: string | undefined;
  headers: Record<string, string>;
  timeoutMs: number;
}

export interface ReaderCall {
  backend: string;
  url: URL;
  headers: Record<string, string>;
  json: unknown;
  secrets: readonly (string | undefined)[];
  errors?: ProviderErrorRules;
}

/** The key from `fetch.backends.<id>`, else `providers.<searchId>` (one account serves both), else the variables. */
export function resolveReaderSettings(
  id: keyof FetchBackendsConfig,
  backends: FetchBackendsConfig,
  providers: ProvidersConfig | undefined,
  env: NodeJS.ProcessEnv,
  fallback: { searchId?: string; keyEnv: readonly string[]; baseUrlEnv?: readonly string[] },
): ReaderSettings {
  const entry = backends[id];
  const searchEntry = fallback.searchId === undefined ? undefined : providers?.[fallback.searchId];
  const searchKey = searchEntry && !Array.isArray(searchEntry) ? nonEmpty(searchEntry.apiKey) : undefined;
  const fromEnv = (names: readonly string[] = []) =>
    names.map((name) => nonEmpty(env[name])).find((value) => value !== undefined);
  return {
    apiKey: nonEmpty(entry.apiKey) ?? searchKey ?? fromEnv(fallback.keyEnv),
    baseUrl: nonEmpty(entry.baseUrl) ?? fromEnv(fallback.baseUrlEnv),
    headers: entry.headers,
    timeoutMs: entry.timeoutMs,
  };
}

/** NOT_CONFIGURED's wording for a reader without its key. */
function missingKeyReason(id: string, keyEnv: readonly string[]): string {
  return `${id} has no API key (set ${[...keyEnv, `fetch.backends.${id}.apiKey`].join(' or ')})`;
}

/** The reader's endpoint: `baseUrl` (or the default) with `path` appended. */
export function readerEndpoint(id: string, settings: ReaderSettings, defaultBaseUrl: string, path = ''): URL {
  return providerUrl(id, settings.baseUrl ?? defaultBaseUrl, path);
}

/**
 * POST JSON to a reader's configured endpoint (trusted; every redirect away from it is checked) within its
 * `timeoutMs`, with the shared status mapping of the search providers: 401/403 refused key, 402 quota, 429 rate
 * limited with Retry-After, 5xx retryable. Returns the parsed JSON body.
 */
export async function postReaderJson(
  context: CallContext,
  settings: ReaderSettings,
  call: ReaderCall,
): Promise<unknown> {
  const reply = await requestProviderJson(
    { fetch: withDeadline(context.fetch, settings.timeoutMs), signal: context.signal, settings: {} },
    {
      provider: call.backend,
      url: call.url,
      method: 'POST',
      headers: { ...call.headers, ...settings.headers },
      json: call.json,
      secrets: call.secrets,
      ...(call.errors ? { errors: call.errors } : {}),
    },
  );
  return reply.body;
}

/**
 * A reader service that takes a JSON POST with an API key (exa, firecrawl, infoquest, tavily): what differs between
 * them is the endpoint, the key's header, the request body and how the answer becomes a page.
 */
export interface KeyedReaderSpec {
  id: string;
  keyEnv: readonly string[];
  rendersJavaScript: boolean;
  defaultBaseUrl: string;
  /** Appended to the base URL. */
  path?: string;
  /** The header carrying the key; `Authorization: Bearer <key>` unless said. */
  keyHeader?: (apiKey: string) => Record<string, string>;
  errors?: ProviderErrorRules;
  /** The JSON body that asks for this page. */
  requestBody(request: PageRequest): unknown;
  /** The answer (a JSON object) → the page, through `readerPage`. */
  readAnswer(body: Record<string, unknown>, request: PageRequest): Promise<FetchedPage>;
}

/** The back-end for a KeyedReaderSpec: NOT_CONFIGURED without a key, else one POST within `timeoutMs`. */
export function createKeyedReader(spec: KeyedReaderSpec, settings: ReaderSettings): FetchBackend {
  const keyHeader = spec.keyHeader ?? ((apiKey: string) => ({ authorization: `Bearer ${apiKey}` }));
  return {
    id: spec.id,
    kind: 'reader',
    rendersJavaScript: spec.rendersJavaScript,
    unavailableReason: () =>
      settings.apiKey === undefined ? missingKeyReason(spec.id, spec.keyEnv) : undefined,
    async fetchPage(request, context) {
      const apiKey = settings.apiKey ?? '';
      const body = jsonObject(
        spec.id,
        await postReaderJson(context, settings, {
          backend: spec.id,
          url: readerEndpoint(spec.id, settings, spec.defaultBaseUrl, spec.path),
          headers: keyHeader(apiKey),
          json: spec.requestBody(request),
          secrets: [apiKey],
          ...(spec.errors ? { errors: spec.errors } : {}),
        }),
      );
      return spec.readAnswer(body, request);
    },
  };
}

/** The guarded client with the attempt's deadline as its total timeout. */
export function withDeadline(fetch: HttpFetch, timeoutMs: number): HttpFetch {
  return (url, request = {}) =>
    fetch(url, { ...request, limits: { ...request.limits, totalTimeoutMs: timeoutMs } });
}

export interface ReaderDocument {
  backend: string;
  /** The URL asked for. */
  url: URL;
  /** What the reader returned: Markdown (most), or HTML (infoquest) that goes through the HTML pipeline. */
  body: { markdown: string } | { html: string };
  mode: ExtractMode;
  title?: string | undefined;
  /** The URL the reader says it ended on; used only when it is http(s). */
  finalUrl?: string | undefined;
  /** The origin's status, when the reader reports it. */
  status?: number | undefined;
  publishedAt?: string | undefined;
}

/**
 * A reader's answer → a FetchedPage through the same content pipeline as a local fetch: Markdown is taken as it
 * is (outline, no BOM) less invisible characters and data-URI images (`cleanMarkdown`), HTML is reduced to its
 * main content and judged (a shell or challenge is not content).
 * Empty text is EMPTY_CONTENT, and an origin status ≥ 400 the reader passed on is HTTP_STATUS.
 */
export async function readerPage(document: ReaderDocument): Promise<FetchedPage> {
  const finalUrl = httpUrlOr(document.finalUrl, document.url.href);
  const status = document.status ?? 200;
  if (status >= 400) {
    throw new PeriscopeError(
      'HTTP_STATUS',
      `${document.backend}: ${finalUrl} answered the reader with HTTP ${status}`,
      {
        retryable: status >= 500 || status === 429,
        details: { provider: document.backend, url: finalUrl, status, reason: 'origin-status' },
      },
    );
  }
  const { body } = document;
  const isHtml = 'html' in body;
  const text = 'html' in body ? body.html : body.markdown;
  if (text.trim() === '') {
    throw new PeriscopeError('EMPTY_CONTENT', `${document.backend} returned no content for ${finalUrl}`, {
      details: { provider: document.backend, url: finalUrl, reason: 'reader-empty' },
    });
  }
  const content: RenderedContent = await renderContent({
    url: finalUrl,
    headers: { 'content-type': isHtml ? 'text/html; charset=utf-8' : 'text/markdown; charset=utf-8' },
    body: new TextEncoder().encode(text),
    mode: document.mode,
  });
  // The reader's own title and date are page text too: the same invisible-character hygiene as the body.
  const title = document.title ? stripInvisible(document.title).trim() : '';
  const publishedAt = document.publishedAt ? stripInvisible(document.publishedAt).trim() : '';
  const rendered: RenderedContent = {
    ...content,
    extractor: isHtml ? content.extractor : document.backend,
    ...(title && !content.title ? { title } : {}),
    ...(publishedAt && !content.publishedAt ? { publishedAt } : {}),
  };
  return { url: document.url.href, finalUrl, status, content: rendered };
}

function httpUrlOr(candidate: string | undefined, fallback: string): string {
  const parsed = candidate === undefined ? null : URL.parse(candidate);
  return parsed && (parsed.protocol === 'http:' || parsed.protocol === 'https:') ? parsed.href : fallback;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}
