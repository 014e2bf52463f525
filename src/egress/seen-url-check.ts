import type { LazyStore } from '../store/lazy-store.ts';
import type { ToolResult } from '../tool-call.ts';
import type { EgressCall, EgressCheck, EgressDenial } from './egress-check.ts';
import { exactUrl } from './exact-url.ts';
import { SEEN_URLS_PER_CALL, SEEN_URLS_PER_SESSION, seenUrlsOf } from './seen-urls.ts';
import { urlsInText } from './urls-in-text.ts';

export interface SeenUrlCheckSettings {
  /** The state store: a session's seen URLs live there (src/egress/seen-urls.ts), shared by gateway instances. */
  store: LazyStore;
}

/**
 * `egress.seenUrlsOnly`: web_fetch takes a URL only if it came from the task, not from the model's own making:
 * - a result of an earlier web_search or image_search of the same session (result, image, thumbnail and page URLs);
 * - a URL shown by a page web_fetch read earlier in the session (its links as the markdown gives them, feed entries,
 *   URLs in its text; the page's own URL and final URL), and by the passages readTop read;
 * - the task's own URLs (`ToolExecuteOptions.egress.seenUrls`: the `ask` question's URLs, a program's, the
 *   gateway's `Periscope-Task-Urls` header, MCP's `_meta["periscope/taskUrls"]`), which also join the session.
 * Compared in exactUrl form: a seen URL with a query string or a path added is a new URL, and refused.
 *
 * A call without a session (`sessionId`) is its own session: it has seen nothing but its task URLs, and records
 * nothing. Redirects are not checked here: a hop the site sends a seen URL to is the site's choice, not the model's
 * (the domain policy still checks every hop). verify_citation's reads are web_fetch calls and follow the same rule.
 */
export function createSeenUrlCheck(settings: SeenUrlCheckSettings): EgressCheck {
  const { store } = settings;
  return {
    name: 'seen-url',
    async checkCall(call) {
      if (call.tool !== 'web_fetch') return undefined;
      // Many URLs (`urls`): every one must have been seen, or the call is refused whole.
      for (const url of Array.isArray(call.input.urls) ? call.input.urls : [call.input.url]) {
        if (typeof url !== 'string') continue;
        const asked = exactUrl(url);
        // Not an http(s) URL at all: web_fetch refuses it with its own INVALID_INPUT.
        if (asked === undefined) continue;
        if (taskUrls(call).includes(asked)) continue;
        if (call.sessionId === undefined) return notSeen({ session: false, full: false });
        const seen = seenUrlsOf(await store.get(), call.agentId, call.sessionId);
        if (await seen.has(asked)) continue;
        return notSeen({ session: true, full: await seen.isFull() });
      }
      return undefined;
    },
    async afterCall(call, result) {
      if (call.sessionId === undefined) return;
      const urls = [...taskUrls(call), ...resultUrls(call, result).slice(0, SEEN_URLS_PER_CALL)];
      if (urls.length === 0) return;
      await seenUrlsOf(await store.get(), call.agentId, call.sessionId).add(urls);
    },
  };
}

/** The call's task URLs, in exactUrl form. */
function taskUrls(call: EgressCall): string[] {
  return (call.options.seenUrls ?? []).flatMap((url) => exactUrl(url) ?? []);
}

/** The URLs a result showed the model, in exactUrl form. */
function resultUrls(call: EgressCall, result: ToolResult): string[] {
  if (result.isError || typeof result.data !== 'object' || result.data === null) return [];
  const data = result.data as Record<string, unknown>;
  const found: unknown[] = [];
  if (call.tool === 'web_fetch') {
    const pages = Array.isArray(data.results) ? (data.results as Array<Record<string, unknown>>) : [data];
    for (const page of pages) {
      found.push(page.url, page.finalUrl);
      if (typeof page.text === 'string') found.push(...urlsInText(page.text, SEEN_URLS_PER_CALL));
    }
  } else if (call.tool === 'web_search' || call.tool === 'image_search') {
    for (const item of Array.isArray(data.results) ? data.results : []) {
      const hit = (item ?? {}) as Record<string, unknown>;
      found.push(hit.url, hit.imageUrl, hit.thumbnailUrl, hit.sourceUrl);
    }
  }
  return found.flatMap((url) => (typeof url === 'string' ? (exactUrl(url) ?? []) : []));
}

function notSeen(state: { session: boolean; full: boolean }): EgressDenial {
  const where = state.session
    ? 'it is not a result of a search in this session, a link on a page read in it, or a URL the task gave'
    : 'this call has no session (sessionId), so only the URLs the task gave count, and it is not one of them';
  const full = state.full
    ? ` (this session has already recorded ${SEEN_URLS_PER_SESSION} URLs, the most it keeps)`
    : '';
  return {
    reason: 'not-seen',
    // Never the URL itself: it is the model's, and may carry what the secret check (run after this one) refuses.
    message: `web_fetch takes only URLs that came from this task (egress.seenUrlsOnly), and ${where}${full}; search for the page with web_search and fetch a result URL as given, without adding a path or query`,
    details: { rule: 'egress.seenUrlsOnly', session: state.session, ...(state.full ? { full: true } : {}) },
  };
}
