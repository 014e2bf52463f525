import { setTimeout as delay } from 'node:timers/promises';
import type { FetchBackend } from '../fetch/fetch-backend.ts';
import type { HttpFetch } from '../net/types.ts';

/**
 * For browser tests whose page moves its main frame on: the client a back-end is given, except that the page's
 * request for a `/hold` path is answered only once a navigation has settled in the client (fetched, refused or
 * failed), or after `maxWaitMs`. A page that asks for /hold while it loads then keeps its network busy until its
 * navigation has been dealt with, so the back-end's wait for quiet cannot read the page before the navigation
 * reached the router, however slowly Chromium hands it over on a loaded machine (an event, not a longer wait).
 */
export function holdForNavigation(fetch: HttpFetch, maxWaitMs: number): HttpFetch {
  let settle = () => {};
  const settled = new Promise<void>((resolve) => {
    settle = resolve;
  });
  return async (url, request) => {
    if (new URL(url).pathname === '/hold') await Promise.race([settled, delay(maxWaitMs)]);
    try {
      return await fetch(url, request);
    } finally {
      if (request?.resource === 'navigation') settle();
    }
  };
}

/** The back-end, each of its fetches with its own `holdForNavigation` client. */
export function withNavigationHold<Backend extends FetchBackend>(
  backend: Backend,
  maxWaitMs: number,
): Backend {
  return {
    ...backend,
    fetchPage: (request, context) =>
      backend.fetchPage(request, { ...context, fetch: holdForNavigation(context.fetch, maxWaitMs) }),
  };
}
