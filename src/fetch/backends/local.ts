import { inCpuTurn } from '../../concurrency/cpu-turns.ts';
import { renderContent } from '../../content/render-content.ts';
import type { ContentInput } from '../../content/types.ts';
import { isPeriscopeError } from '../../errors.ts';
import { throwForStatus } from '../../net/http-status.ts';
import type { HttpResponse } from '../../net/types.ts';
import { stageEnd, stageStart } from '../../stage-timing.ts';
import type { FetchBackend, FetchedPage, PageRequest } from '../fetch-backend.ts';
import { watchDownloadCaps } from './download-caps.ts';

/**
 * Markdown first: sites that can serve it (Cloudflare's "Markdown for Agents", docs sites, llms.txt-style
 * endpoints) send it instead of HTML, and it passes through untouched; everyone else sends HTML.
 */
export const ACCEPT =
  'text/markdown, text/html;q=0.9, application/xhtml+xml;q=0.9, application/json;q=0.8, text/plain;q=0.7, */*;q=0.5';

/** Bot challenges (Cloudflare, CAPTCHA walls) usually come with one of these statuses. */
export const CHALLENGE_STATUSES = new Set([403, 429, 503]);

/** A challenge page is BLOCKED_BY_SITE (a browser may get through), not a plain HTTP error. */
export async function throwIfChallenge(input: ContentInput): Promise<void> {
  try {
    await renderContent(input);
  } catch (error) {
    if (isPeriscopeError(error) && error.code === 'BLOCKED_BY_SITE') throw error;
  }
}

/**
 * An HTTP response as the local pipeline reads it: a challenge status with a challenge page is BLOCKED_BY_SITE,
 * another error status is HTTP_STATUS, anything else is rendered (HTML main content, PDF, JSON, feed, image…).
 */
export async function renderResponse(
  response: HttpResponse,
  request: PageRequest,
  signal: AbortSignal,
): Promise<FetchedPage> {
  const input = {
    url: response.finalUrl,
    headers: response.headers,
    body: response.body,
    mode: request.mode,
    limits: request.limits,
    signal,
  };
  if (CHALLENGE_STATUSES.has(response.status)) await throwIfChallenge(input);
  throwForStatus(response);
  // The stage times the synchronous part, which for HTML is all of it (a PDF's parsing goes on after).
  const content = await inCpuTurn(() => {
    const started = stageStart();
    const rendering = renderContent(input);
    stageEnd('extraction', started);
    return rendering;
  });
  return { url: response.url, finalUrl: response.finalUrl, status: response.status, content };
}

/** The floor of every fetch chain: the guarded HTTP client and the local content pipeline. */
export function createLocalFetchBackend(): FetchBackend {
  return {
    id: 'local',
    kind: 'origin',
    rendersJavaScript: false,
    unavailableReason: () => undefined,
    async fetchPage(request, context) {
      // Images and PDFs stop downloading at their own caps: an image is then described, a PDF refused by name.
      const caps = watchDownloadCaps(request.limits, context.signal);
      let response: HttpResponse;
      const started = stageStart();
      try {
        response = await context.fetch(request.url, {
          signal: caps.signal,
          headers: { accept: ACCEPT },
          onResponseHead: caps.onResponseHead,
          onBodyChunk: caps.onBodyChunk,
        });
      } catch (error) {
        const described = caps.settle(error, request.url);
        if (described) return described;
        throw error;
      } finally {
        caps.dispose();
        stageEnd('network', started);
      }
      return renderResponse(response, request, context.signal);
    },
  };
}
