import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { PeriscopeError } from '../../errors.ts';
import { launchChromium } from './chromium-launch.ts';
import { type NetworkSink, startNetworkSink } from './network-sink.ts';

export interface BrowserPoolSettings {
  executablePath: string;
  launchTimeoutMs: number;
  /** Pages in use at once; more acquirers queue. */
  maxPages: number;
  /** Fresh pages kept ready. */
  warmPages: number;
  /** Closes the browser after this long with no page in use. */
  idleShutdownMs: number;
}

/** A fresh context and page, used for one fetch and then closed. */
export interface BrowserSlot {
  context: BrowserContext;
  page: Page;
  /** Every request of this context goes here (set by the fetch before navigating). */
  onRoute: (route: Route) => Promise<void>;
  release(): Promise<void>;
}

export interface BrowserPoolStats {
  launches: number;
  pagesOpened: number;
  /** Connections that reached the sink proxy: traffic that was not routed (WebSockets, …), refused. */
  escaped: readonly string[];
  running: boolean;
}

export interface BrowserPool {
  acquire(signal: AbortSignal): Promise<BrowserSlot>;
  stats(): BrowserPoolStats;
  close(): Promise<void>;
}

interface Running {
  browser: Browser;
  sink: NetworkSink;
  ready: Array<Promise<BrowserSlot>>;
}

const refuseEverything = (route: Route) => route.abort('blockedbyclient');

/**
 * One Chromium, launched on first use and shared: a page pool of fresh contexts (a page is never reused across
 * fetches, so no cookie, storage or cache crosses from one site to the next), `warmPages` of them opened ahead so a
 * warm fetch does not wait for a renderer to start, at most `maxPages` in use, and an idle shutdown. A crashed or
 * closed browser is launched again on the next fetch.
 */
export function createBrowserPool(settings: BrowserPoolSettings): BrowserPool {
  let running: Promise<Running> | undefined;
  let current: Running | undefined;
  let inUse = 0;
  let launches = 0;
  let pagesOpened = 0;
  const escapedBefore: string[] = [];
  const waiters: Array<() => void> = [];
  let idleTimer: NodeJS.Timeout | undefined;

  async function start(): Promise<Running> {
    const sink = await startNetworkSink();
    try {
      const browser = await launchChromium({
        executablePath: settings.executablePath,
        sinkPort: sink.port,
        timeoutMs: settings.launchTimeoutMs,
      });
      launches += 1;
      const state: Running = { browser, sink, ready: [] };
      browser.on('disconnected', () => {
        if (current === state) forget(state);
      });
      current = state;
      return state;
    } catch (error) {
      await sink.close();
      throw error;
    }
  }

  function forget(state: Running): void {
    escapedBefore.push(...state.sink.escaped);
    void state.sink.close();
    if (current === state) current = undefined;
    running = undefined;
  }

  async function openSlot(browser: Browser): Promise<BrowserSlot> {
    const context = await browser.newContext({
      serviceWorkers: 'block',
      acceptDownloads: false,
      bypassCSP: false,
      javaScriptEnabled: true,
    });
    try {
      const slot: BrowserSlot = {
        context,
        page: undefined as unknown as Page,
        onRoute: refuseEverything,
        release: async () => {
          slot.onRoute = refuseEverything;
          await context.close().catch(() => {});
        },
      };
      await context.route('**/*', (route) => slot.onRoute(route));
      // WebSockets cannot be fulfilled by the guarded client: every one is closed before it connects (and the
      // sink proxy catches any that Playwright's shim does not see).
      await context.routeWebSocket(/./, (socket) =>
        socket.close({ code: 1008, reason: 'blocked by Periscope' }),
      );
      slot.page = await context.newPage();
      pagesOpened += 1;
      return slot;
    } catch (error) {
      await context.close().catch(() => {});
      throw error;
    }
  }

  function topUp(state: Running): void {
    while (state.ready.length < settings.warmPages && current === state) {
      const slot = openSlot(state.browser);
      slot.catch(() => {});
      state.ready.push(slot);
    }
  }

  async function waitForTurn(signal: AbortSignal): Promise<void> {
    while (inUse >= settings.maxPages) {
      if (signal.aborted) throw signal.reason;
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          const index = waiters.indexOf(wake);
          if (index !== -1) waiters.splice(index, 1);
          reject(signal.reason);
        };
        const wake = () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        waiters.push(wake);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    }
  }

  function scheduleIdleShutdown(): void {
    clearTimeout(idleTimer);
    if (inUse > 0) return;
    idleTimer = setTimeout(() => {
      if (inUse === 0) void shutdown();
    }, settings.idleShutdownMs);
    idleTimer.unref();
  }

  async function shutdown(): Promise<void> {
    clearTimeout(idleTimer);
    const pending = running;
    running = undefined;
    if (!pending) return;
    const state = await pending.catch(() => undefined);
    if (!state) return;
    forget(state);
    await state.browser.close().catch(() => {});
  }

  return {
    async acquire(signal) {
      clearTimeout(idleTimer);
      await waitForTurn(signal);
      inUse += 1;
      try {
        running ??= start();
        running.catch(() => {
          running = undefined;
        });
        const state = await running;
        const warm = state.ready.shift();
        const slot = warm ? await warm.catch(() => openSlot(state.browser)) : await openSlot(state.browser);
        topUp(state);
        const release = slot.release;
        let released = false;
        slot.release = async () => {
          if (released) return;
          released = true;
          await release();
          inUse -= 1;
          waiters.shift()?.();
          scheduleIdleShutdown();
        };
        return slot;
      } catch (error) {
        inUse -= 1;
        waiters.shift()?.();
        scheduleIdleShutdown();
        if (error instanceof PeriscopeError) throw error;
        const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
        throw new PeriscopeError('NETWORK', `browser: could not open a page (${message})`, {
          retryable: true,
          cause: error,
          details: { provider: 'browser', reason: 'page-failed' },
        });
      }
    },
    stats: () => ({
      launches,
      pagesOpened,
      escaped: [...escapedBefore, ...(current?.sink.escaped ?? [])],
      running: current !== undefined,
    }),
    close: shutdown,
  };
}
