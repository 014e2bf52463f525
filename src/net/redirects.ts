/** Statuses that are followed. Others (including 300 and 304) are returned to the caller. */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** Dropped from the request when a redirect leaves the origin. */
export const CREDENTIAL_HEADERS: readonly string[] = ['authorization', 'cookie', 'proxy-authorization'];

/** Dropped with the body when a redirect turns the request into a GET. */
const BODY_HEADERS = [
  'content-type',
  'content-length',
  'content-encoding',
  'content-language',
  'content-location',
];

export interface HopRequestState {
  url: URL;
  method: string;
  /** Lower-cased names. */
  headers: Record<string, string>;
  body: Buffer | undefined;
}

export interface RedirectStep extends HopRequestState {
  crossOrigin: boolean;
}

/**
 * Method and URL (fragment ignored) as a key for loop detection: POST /login → 303 → GET /login is not a loop.
 */
export function redirectKey(method: string, url: URL): string {
  const copy = new URL(url.href);
  copy.hash = '';
  return `${method} ${copy.href}`;
}

/**
 * The request that follows a redirect (RFC 9110 §15.4, as browsers do it): 303 → GET (HEAD stays HEAD);
 * 301/302 after POST → GET; 307/308 keep method and body. Userinfo in the location is removed; credential
 * headers are dropped when the origin changes. Undefined when the location is not a URL.
 */
export function followRedirect(
  current: HopRequestState,
  status: number,
  location: string,
): RedirectStep | undefined {
  const url = URL.parse(location, current.url.href);
  if (!url) return undefined;
  url.username = '';
  url.password = '';
  if (url.hash === '' && current.url.hash !== '') url.hash = current.url.hash;
  const headers = { ...current.headers };
  let { method, body } = current;
  if (
    (status === 303 && method !== 'GET' && method !== 'HEAD') ||
    ((status === 301 || status === 302) && method === 'POST')
  ) {
    method = 'GET';
    body = undefined;
    for (const name of BODY_HEADERS) delete headers[name];
  }
  const crossOrigin = url.origin !== current.url.origin;
  if (crossOrigin) {
    for (const name of CREDENTIAL_HEADERS) delete headers[name];
  }
  return { url, method, headers, body, crossOrigin };
}
