import type { Request, Route } from 'playwright-core';
import { isPeriscopeError, type PeriscopeError, toPeriscopeError } from '../../errors.ts';
import type { HttpFetch, HttpResponse } from '../../net/types.ts';
import { redactUrl } from '../../net/url-policy.ts';

/** Never fetched: streams that would hold the page open, and things no reader needs. */
const ALWAYS_SKIPPED = new Set(['eventsource', 'websocket', 'texttrack', 'manifest']);
/** Request headers the browser sends that the guarded client sets itself, or that would leak browser state. */
const DROPPED_REQUEST_HEADERS = new Set([
  'host',
  'cookie',
  'user-agent',
  'connection',
  'content-length',
  'accept-encoding',
  'proxy-authorization',
  'upgrade-insecure-requests',
]);
/** Response headers that described the wire bytes (the body is already decoded) or the connection. */
const DROPPED_RESPONSE_HEADERS = new Set([
  'content-encoding',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'set-cookie',
  'strict-transport-security',
  'alt-svc',
]);

export interface PageRouterSettings {
  httpFetch: HttpFetch;
  /** The document, already fetched by the guarded client: fulfilled from memory when the page asks for it. */
  document: { url: string; response: HttpResponse };
  /** Fired when the fetch ends: in-flight sub-requests stop. */
  signal: AbortSignal;
  skipResourceTypes: ReadonlySet<string>;
  maxSubrequests: number;
  /** Limits for each sub-request. */
  subrequestTimeoutMs: number;
  maxBytes: number;
  isMainFrame(request: Request): boolean;
}

/** What the router saw, for warnings and tests. */
export interface PageRouterState {
  inFlight: number;
  lastActivityAt: number;
  subrequests: number;
  skipped: number;
  /** Requests refused by the URL policy (URL_BLOCKED), all of them. */
  blockedCount: number;
  /** The first few of them (at most MAX_BLOCKED_SAMPLE), redacted. */
  blocked: string[];
  /** Requests the egress policy refused (POLICY_DENIED: a domain outside it…), all of them. */
  deniedCount: number;
  /** The first few of them (at most MAX_BLOCKED_SAMPLE), redacted. */
  denied: string[];
  /** Navigations that would have downloaded a file. */
  downloadsRefused: string[];
  /** Status of the last document the main frame received. */
  mainStatus: number;
  /**
   * When the router last handed the main frame a new document after the first (a script or meta refresh moved
   * the page on, e.g. past a JavaScript challenge); undefined while it is still on the first. The page is not
   * settled until that document has arrived.
   */
  lastMainNavigationAt: number | undefined;
  /**
   * Why the main frame's latest navigation after the first document failed (the guarded client's error: URL_BLOCKED,
   * POLICY_DENIED, NETWORK, TIMEOUT…), or undefined. The navigation is answered 204, so the frame keeps the document
   * it had rather than Chromium's error page.
   */
  mainFailure: PeriscopeError | undefined;
  failed: number;
}

/** How many refused URLs are kept as examples; the count goes on. */
const MAX_BLOCKED_SAMPLE = 50;

/**
 * The route handler of one fetch. Every request the page makes — the document, scripts, XHR/fetch, iframes,
 * workers' requests, redirects — is fetched by the guarded client, so the same URL policy (every DNS answer,
 * every redirect hop, pinned connection, size and time limits, the deployment's proxy) applies as to a local
 * fetch, and Chromium itself never opens a connection; the call's egress check (src/egress/) sees each one, as a
 * `navigation` or a `subresource`. Private targets and refused domains are aborted; images, media and fonts are
 * skipped; a navigation that answers with an attachment is refused (downloads are off).
 */
export function createPageRouter(settings: PageRouterSettings) {
  const state: PageRouterState = {
    inFlight: 0,
    lastActivityAt: performance.now(),
    subrequests: 0,
    skipped: 0,
    blockedCount: 0,
    blocked: [],
    deniedCount: 0,
    denied: [],
    downloadsRefused: [],
    mainStatus: settings.document.response.status,
    lastMainNavigationAt: undefined,
    mainFailure: undefined,
    failed: 0,
  };
  const documentKey = withoutFragment(settings.document.url);
  let documentServed = false;
  /** Main-frame navigations asked for after the document, in order: only the latest one's failure counts. */
  let mainNavigations = 0;

  async function abort(route: Route, reason: 'blockedbyclient' | 'failed' | 'timedout'): Promise<void> {
    await route.abort(reason).catch(() => {});
  }

  /**
   * A refused request. A refused navigation is answered 204 No Content, which leaves the frame on the document it
   * has (an abort would replace the page with Chromium's own "blocked" error page, and that would be read instead).
   */
  async function refuse(route: Route, isNavigation: boolean): Promise<void> {
    if (isNavigation) await route.fulfill({ status: 204, body: '' }).catch(() => {});
    else await abort(route, 'blockedbyclient');
  }

  async function fulfil(route: Route, response: HttpResponse, extraDrop?: string): Promise<void> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (!DROPPED_RESPONSE_HEADERS.has(name) && name !== extraDrop) headers[name] = value;
    }
    await route
      .fulfill({ status: response.status, headers, body: Buffer.from(response.body) })
      .catch(() => {});
  }

  async function handle(route: Route): Promise<void> {
    const request = route.request();
    const url = request.url();
    const isNavigation = request.isNavigationRequest();
    if (settings.signal.aborted) return refuse(route, isNavigation);
    const isMainFrame = isNavigation && settings.isMainFrame(request);
    if (isMainFrame && !documentServed && withoutFragment(url) === documentKey) {
      documentServed = true;
      state.lastActivityAt = performance.now();
      // The page is rendered, not saved: an attachment header on the document does not make it a download.
      return fulfil(route, settings.document.response, 'content-disposition');
    }
    const type = request.resourceType();
    if (ALWAYS_SKIPPED.has(type) || settings.skipResourceTypes.has(type)) {
      state.skipped += 1;
      return abort(route, 'blockedbyclient');
    }
    if (!/^https?:/i.test(url) || state.subrequests >= settings.maxSubrequests) {
      state.skipped += 1;
      return refuse(route, isNavigation);
    }
    state.subrequests += 1;
    state.inFlight += 1;
    const navigation = isMainFrame ? ++mainNavigations : 0;
    if (isMainFrame) state.mainFailure = undefined;
    state.lastActivityAt = performance.now();
    try {
      const body = request.postDataBuffer();
      const response = await settings.httpFetch(url, {
        method: request.method(),
        headers: forwardedHeaders(request.headers()),
        ...(body ? { body: new Uint8Array(body) } : {}),
        signal: settings.signal,
        limits: { totalTimeoutMs: settings.subrequestTimeoutMs, maxBytes: settings.maxBytes },
        resource: isNavigation ? 'navigation' : 'subresource',
      });
      if (isNavigation && /^\s*attachment/i.test(response.headers['content-disposition'] ?? '')) {
        state.downloadsRefused.push(redactUrl(url));
        return refuse(route, true);
      }
      if (isMainFrame) {
        state.mainStatus = response.status;
        // 204/205 leave the frame where it is: no new document to wait for.
        if (response.status !== 204 && response.status !== 205)
          state.lastMainNavigationAt = performance.now();
      }
      return fulfil(route, response);
    } catch (error) {
      // The page moved its main frame on and that failed: the page is read as it was rendered, with the cause as a
      // warning, or the fetch fails with it when nothing readable is there (a later navigation supersedes it).
      if (isMainFrame && navigation === mainNavigations && !settings.signal.aborted)
        state.mainFailure = toPeriscopeError(error);
      if (isPeriscopeError(error) && error.code === 'URL_BLOCKED') {
        state.blockedCount += 1;
        if (state.blocked.length < MAX_BLOCKED_SAMPLE) state.blocked.push(redactUrl(url));
        return refuse(route, isNavigation);
      }
      if (isPeriscopeError(error) && error.code === 'POLICY_DENIED') {
        state.deniedCount += 1;
        if (state.denied.length < MAX_BLOCKED_SAMPLE) state.denied.push(redactUrl(url));
        return refuse(route, isNavigation);
      }
      state.failed += 1;
      // The main frame keeps the document it has (its content is read, with a warning), not Chromium's error page.
      if (isMainFrame) return refuse(route, true);
      const timedOut = isPeriscopeError(error) && error.code === 'TIMEOUT';
      return abort(route, timedOut ? 'timedout' : 'failed');
    } finally {
      state.inFlight -= 1;
      state.lastActivityAt = performance.now();
    }
  }

  return { state, handle };
}

function forwardedHeaders(headers: Record<string, string>): Record<string, string> {
  const forwarded: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    if (!key.startsWith(':') && !DROPPED_REQUEST_HEADERS.has(key)) forwarded[key] = value;
  }
  return forwarded;
}

function withoutFragment(url: string): string {
  const parsed = URL.parse(url);
  if (!parsed) return url;
  parsed.hash = '';
  parsed.username = '';
  parsed.password = '';
  return parsed.href;
}
