import { existsSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import type { Frame, Page } from 'playwright-core';
import type { BrowserConfig } from '../../config/fetch-schema.ts';
import { parseContentType } from '../../content/content-type.ts';
import { renderContent } from '../../content/render-content.ts';
import { sniffContent } from '../../content/sniff.ts';
import type { RenderedContent } from '../../content/types.ts';
import { isPeriscopeError, PeriscopeError } from '../../errors.ts';
import { throwForStatus } from '../../net/http-status.ts';
import type { HttpFetch, HttpResponse } from '../../net/types.ts';
import { redactUrl } from '../../net/url-policy.ts';
import { type BrowserPool, type BrowserPoolStats, createBrowserPool } from '../browser/browser-pool.ts';
import { findChromium } from '../browser/chromium-launch.ts';
import { createPageRouter, type PageRouterState } from '../browser/page-router.ts';
import type { FetchBackend, FetchedPage } from '../fetch-backend.ts';
import { CHALLENGE_STATUSES, renderResponse } from './local.ts';

const ID = 'browser';
/** The document is asked for as a browser would; Markdown is the local back-end's business. */
const DOCUMENT_ACCEPT = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8';

export interface BrowserFetchBackendSettings {
  config: BrowserConfig;
  /** `network.maxBytes`: the rendered DOM and every sub-request stay under it. */
  maxBytes: number;
  env?: NodeJS.ProcessEnv;
}

export interface BrowserFetchBackend extends FetchBackend {
  /** Launches, pages opened, and connections that reached the sink (for tests and benchmarks). */
  stats(): BrowserPoolStats;
  close(): Promise<void>;
}

/**
 * A real headless Chromium (playwright-core, the system's Chromium). The document is fetched by the guarded client
 * first: anything but HTML (PDF, JSON, an image, an attachment) is rendered like a local fetch, never downloaded by
 * the browser. HTML is handed to a fresh page, whose every request goes through the guarded client too (see
 * page-router.ts), and read once the network is idle (or `waitForSelector` matches), within `waitMs`. The rendered
 * DOM then goes through the same pipeline as any page: main content, Markdown, and the shell/challenge verdicts.
 */
export function createBrowserFetchBackend(settings: BrowserFetchBackendSettings): BrowserFetchBackend {
  const { config } = settings;
  const executablePath = findChromium(config.executablePath, settings.env ?? process.env);
  const skip = new Set<string>(config.skipResourceTypes);
  let pool: BrowserPool | undefined;
  const emptyStats: BrowserPoolStats = { launches: 0, pagesOpened: 0, escaped: [], running: false };

  function getPool(path: string): BrowserPool {
    pool ??= createBrowserPool({
      executablePath: path,
      launchTimeoutMs: config.launchTimeoutMs,
      maxPages: config.maxPages,
      warmPages: config.warmPages,
      idleShutdownMs: config.idleShutdownMs,
    });
    return pool;
  }

  async function render(document: HttpResponse, httpFetch: HttpFetch, callerSignal: AbortSignal) {
    if (executablePath === undefined) throw notConfigured();
    const slot = await getPool(executablePath).acquire(callerSignal);
    // Ends the page's in-flight sub-requests when this fetch ends or the caller gives up.
    const session = new AbortController();
    const onAbort = () => session.abort(callerSignal.reason);
    callerSignal.addEventListener('abort', onAbort, { once: true });
    const { page } = slot;
    const started = performance.now();
    const router = createPageRouter({
      httpFetch,
      document: { url: document.finalUrl, response: document },
      signal: session.signal,
      skipResourceTypes: skip,
      maxSubrequests: config.maxSubrequests,
      subrequestTimeoutMs: config.waitMs,
      maxBytes: settings.maxBytes,
      isMainFrame: (pageRequest) => {
        try {
          return pageRequest.frame() === page.mainFrame();
        } catch {
          return false;
        }
      },
    });
    slot.onRoute = router.handle;
    const documents = trackDocuments(page);
    const warnings: string[] = [];
    try {
      const target = new URL(document.finalUrl);
      target.username = '';
      target.password = '';
      await until(
        page.goto(target.href, { waitUntil: 'commit', timeout: config.navigationTimeoutMs }),
        callerSignal,
      );
      const deadline = started + config.waitMs;
      const arrived = () => documents.arrivedAfter(router.state.lastMainNavigationAt);
      const settled = await waitForPage(page, config, router.state, arrived, deadline, callerSignal);
      if (!settled)
        warnings.push(
          `the page was still loading after ${config.waitMs} ms (fetch.browser.waitMs); read as it was`,
        );
      const snapshot = await until(
        withTimeout(
          readDom(page),
          config.snapshotTimeoutMs,
          () =>
            new PeriscopeError(
              'TIMEOUT',
              `browser: reading the rendered page ${redactUrl(document.finalUrl)} took longer than ${config.snapshotTimeoutMs} ms (a script is blocking it)`,
              {
                details: {
                  provider: ID,
                  url: redactUrl(document.finalUrl),
                  phase: 'total',
                  limit: 'fetch.browser.snapshotTimeoutMs',
                  limitValue: config.snapshotTimeoutMs,
                },
              },
            ),
        ),
        callerSignal,
      );
      return { html: snapshot[0], finalUrl: snapshot[1], state: router.state, warnings };
    } catch (error) {
      throw browserError(error, document.finalUrl, callerSignal);
    } finally {
      documents.dispose();
      session.abort();
      callerSignal.removeEventListener('abort', onAbort);
      await slot.release();
    }
  }

  return {
    id: ID,
    kind: 'origin',
    rendersJavaScript: true,
    unavailableReason: () => {
      if (executablePath === undefined) return notConfigured().message;
      if (!existsSync(executablePath))
        return `browser: no Chromium at ${executablePath} (fetch.browser.executablePath)`;
      return undefined;
    },
    async fetchPage(request, context) {
      if (executablePath === undefined) throw notConfigured();
      const response = await context.fetch(request.url, {
        signal: context.signal,
        headers: { accept: DOCUMENT_ACCEPT },
      });
      const kind = sniffContent(response.body, parseContentType(response.headers['content-type'])).kind;
      if (kind !== 'html') return renderResponse(response, request, context.signal);
      if (response.status >= 400 && !CHALLENGE_STATUSES.has(response.status)) throwForStatus(response);
      const rendered = await render(response, context.fetch, context.signal);
      const html = new TextEncoder().encode(rendered.html);
      if (html.byteLength > settings.maxBytes) {
        throw new PeriscopeError(
          'BODY_TOO_LARGE',
          `browser: the rendered page ${redactUrl(rendered.finalUrl)} is larger than ${settings.maxBytes} bytes (maxBytes)`,
          {
            details: {
              provider: ID,
              url: redactUrl(rendered.finalUrl),
              limit: 'maxBytes',
              limitValue: settings.maxBytes,
            },
          },
        );
      }
      const finalUrl = /^https?:/i.test(rendered.finalUrl) ? rendered.finalUrl : response.finalUrl;
      const failure = rendered.state.mainFailure;
      const content = await readRendered(
        renderContent({
          url: finalUrl,
          headers: { 'content-type': 'text/html; charset=utf-8' },
          body: html,
          mode: request.mode,
          limits: request.limits,
          signal: context.signal,
        }),
        failure,
        response.finalUrl,
      );
      return {
        url: response.url,
        finalUrl,
        status: rendered.state.mainStatus,
        content,
        warnings: [
          ...rendered.warnings,
          ...(failure ? [navigationWarning(failure)] : []),
          ...stateWarnings(rendered.state),
        ],
      } satisfies FetchedPage;
    },
    stats: () => pool?.stats() ?? emptyStats,
    close: async () => {
      await pool?.close();
    },
  };
}

function notConfigured(): PeriscopeError {
  return new PeriscopeError(
    'NOT_CONFIGURED',
    'browser: no Chromium found (install Debian/Ubuntu `chromium`, or set fetch.browser.executablePath or PERISCOPE_CHROMIUM_PATH)',
    { details: { provider: ID, reason: 'missing-browser' } },
  );
}

/**
 * The rendered page's content. When the page moved its main frame on (a script, a meta refresh) and the guarded
 * client could not fetch the new document, the frame kept the document it had (the router answered 204): its
 * content is the page, and a refused or dead address cannot make it unreadable. Only when that document has
 * nothing readable (no text, or a shell, challenge or error page) does the attempt fail, with the navigation's
 * cause — URL_BLOCKED or POLICY_DENIED for an address refused, NETWORK or TIMEOUT for one that did not answer — so
 * the chain stops or falls back as it would for the same failure on a redirect.
 */
async function readRendered(
  rendering: Promise<RenderedContent>,
  failure: PeriscopeError | undefined,
  documentUrl: string,
): Promise<RenderedContent> {
  if (failure === undefined) return rendering;
  const content = await rendering.catch(() => undefined);
  if (content !== undefined && (content.text.trim() !== '' || content.image !== undefined)) return content;
  throw navigationError(failure, documentUrl);
}

/** What the page's content comes with when its navigation failed: where it went, and why it was not followed. */
function navigationWarning(failure: PeriscopeError): string {
  const outcome =
    failure.code === 'URL_BLOCKED' || failure.code === 'POLICY_DENIED' ? 'was refused' : 'failed';
  return `the page tried to move on to another address and that ${outcome} (${failure.code}: ${failure.message}); read as it was rendered before`;
}

function navigationError(failure: PeriscopeError, documentUrl: string): PeriscopeError {
  return new PeriscopeError(
    failure.code,
    `browser: the page ${redactUrl(documentUrl)} has nothing readable of its own, and the address it moved on to failed: ${failure.message}`,
    {
      retryable: failure.retryable,
      retryAfterMs: failure.retryAfterMs,
      details: { ...failure.details, provider: ID, navigatedFrom: redactUrl(documentUrl) },
      cause: failure,
    },
  );
}

/** Keeps the last few of a list of timestamps. */
function stamp(list: number[]): void {
  list.push(performance.now());
  if (list.length > 50) list.shift();
}

/**
 * The main frame's commits and DOMContentLoaded events, to tell whether a document the router handed over after
 * the first (a script redirect, a meta refresh, the page behind a JavaScript challenge) has arrived: committed
 * after the router answered, and parsed after that. Until then the old document, still on screen, is not read.
 */
function trackDocuments(page: Page) {
  const commits: number[] = [];
  const parsed: number[] = [];
  const onNavigated = (frame: Frame) => {
    if (frame === page.mainFrame()) stamp(commits);
  };
  const onParsed = () => stamp(parsed);
  page.on('framenavigated', onNavigated);
  page.on('domcontentloaded', onParsed);
  return {
    arrivedAfter(since: number | undefined): boolean {
      if (since === undefined) return true;
      const commit = commits.find((at) => at > since);
      return commit !== undefined && parsed.some((at) => at >= commit);
    },
    dispose() {
      page.off('framenavigated', onNavigated);
      page.off('domcontentloaded', onParsed);
    },
  };
}

/**
 * Waits for the selector, or for `load`, any document the page moved on to (`arrived`), and then the network to
 * be quiet for `networkIdleMs` (counted from the router's own in-flight requests), but never past `deadline`.
 * Returns false when the deadline cut it short.
 */
async function waitForPage(
  page: Page,
  config: BrowserConfig,
  state: PageRouterState,
  arrived: () => boolean,
  deadline: number,
  signal: AbortSignal,
): Promise<boolean> {
  const remaining = () => Math.max(1, deadline - performance.now());
  const pause = () => new Promise((resolve) => setTimeout(resolve, Math.min(50, remaining())));
  try {
    if (config.waitForSelector !== null) {
      await until(
        page.waitForSelector(config.waitForSelector, { state: 'attached', timeout: remaining() }),
        signal,
      );
      return true;
    }
    const loadState = config.waitUntil === 'domcontentloaded' ? 'domcontentloaded' : 'load';
    await until(waitForLoad(page, loadState, state, remaining), signal);
    if (config.waitUntil !== 'networkidle') {
      while (!arrived() && state.mainFailure === undefined) {
        if (signal.aborted) throw signal.reason;
        if (performance.now() >= deadline) return false;
        await pause();
      }
      return true;
    }
    // Quiet is counted from the load event at the earliest: requests the page made just before it may not have
    // reached the router yet.
    state.lastActivityAt = Math.max(state.lastActivityAt, performance.now());
    const idleMs = config.networkIdleMs;
    // A failed navigation leaves the page on its document, which may still be loading: quiet is awaited as usual.
    const here = () => arrived() || state.mainFailure !== undefined;
    while (performance.now() < deadline) {
      if (signal.aborted) throw signal.reason;
      if (state.inFlight === 0 && performance.now() - state.lastActivityAt >= idleMs && here()) return true;
      await pause();
    }
    return false;
  } catch (error) {
    if (error instanceof Error && error.name === 'TimeoutError') return false;
    throw error;
  }
}

/**
 * Playwright's load state, or — once a navigation of the main frame has failed — the document's own readyState:
 * Playwright waits on the navigation it saw start, and one refused (answered 204) before the document's load event
 * leaves it waiting until the timeout although the page stays and loads.
 */
async function waitForLoad(
  page: Page,
  loadState: 'load' | 'domcontentloaded',
  state: PageRouterState,
  remaining: () => number,
): Promise<void> {
  const loaded = page.waitForLoadState(loadState, { timeout: remaining() }).then(() => true);
  loaded.catch(() => {});
  const ready = loadState === 'load' ? ['complete'] : ['interactive', 'complete'];
  for (;;) {
    const done = await Promise.race([loaded, delay(Math.min(50, remaining())).then(() => false)]);
    if (done) return;
    if (state.mainFailure !== undefined && ready.includes(await readyState(page, remaining()))) return;
  }
}

/** `document.readyState`, or '' when the page does not answer within `timeoutMs` (a script is blocking it). */
async function readyState(page: Page, timeoutMs: number): Promise<string> {
  const asked = page.evaluate<string>('document.readyState').catch(() => '');
  return Promise.race([asked, delay(timeoutMs).then(() => '')]);
}

function stateWarnings(state: PageRouterState): string[] {
  const warnings: string[] = [];
  if (state.blockedCount > 0) {
    warnings.push(
      `${state.blockedCount} sub-request(s) to non-public addresses refused: ${state.blocked.slice(0, 3).join(', ')}`,
    );
  }
  if (state.deniedCount > 0) {
    warnings.push(
      `${state.deniedCount} sub-request(s) outside the egress policy refused: ${state.denied.slice(0, 3).join(', ')}`,
    );
  }
  if (state.downloadsRefused.length > 0) {
    warnings.push(`download(s) refused: ${state.downloadsRefused.slice(0, 3).join(', ')}`);
  }
  return warnings;
}

/**
 * The serialised DOM and the page's URL. A page that is navigating right then (a script set `location`, a link was
 * clicked) is read again once the new document is there; the caller's timeout bounds the retries.
 */
async function readDom(page: Page): Promise<[string, string]> {
  for (;;) {
    try {
      const html = await page.content();
      return [html, page.url()];
    } catch (error) {
      if (!(error instanceof Error) || !/navigating/i.test(error.message) || page.isClosed()) throw error;
      await page.waitForLoadState('domcontentloaded', { timeout: 1_000 }).catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number, error: () => PeriscopeError): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(error()), timeoutMs);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** The promise, or the caller's cancellation as soon as it comes. */
function until<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function browserError(error: unknown, url: string, signal: AbortSignal): PeriscopeError {
  if (isPeriscopeError(error)) return error;
  if (signal.aborted) {
    const reason: unknown = signal.reason;
    if (isPeriscopeError(reason)) return reason;
    return new PeriscopeError('ABORTED', 'The call was cancelled.', { cause: error });
  }
  const message = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
  if (error instanceof Error && error.name === 'TimeoutError') {
    return new PeriscopeError('TIMEOUT', `browser: ${redactUrl(url)}: ${message}`, {
      cause: error,
      details: { provider: ID, url: redactUrl(url), phase: 'total' },
    });
  }
  return new PeriscopeError('NETWORK', `browser: ${redactUrl(url)}: ${message}`, {
    retryable: true,
    cause: error,
    details: { provider: ID, url: redactUrl(url), reason: 'browser-failed' },
  });
}
