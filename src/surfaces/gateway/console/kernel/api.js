// The gateway's API with the admin key. The key is kept in this tab's session storage only (no cookie, no local
// storage) and sent as a bearer header; '' is open mode (no keys on a loopback gateway).
const KEY_STORAGE = 'periscope.console.key';

let adminKey = sessionStorage.getItem(KEY_STORAGE) ?? '';
// Only the latest attempt decides: the start-up attempt (stored key or open mode) may answer after the user signed in.
let signInAttempt = 0;

/** The headers that carry the key, if there is one. */
export function authorization() {
  return adminKey ? { authorization: `Bearer ${adminKey}` } : {};
}

/** The key kept from earlier in this tab ('' if none). */
export const storedKey = () => adminKey;

/**
 * A JSON call to the gateway with the key, never cached and never with cookies. Throws the gateway's error message
 * on a non-2xx answer, unless `keepError` (the playground shows error answers as they are).
 */
export async function api(path, options = {}) {
  const headers = { ...(options.body ? { 'content-type': 'application/json' } : {}), ...authorization() };
  const response = await fetch(path, {
    method: options.method ?? 'GET',
    headers,
    body: options.body ? JSON.stringify(options.body) : undefined,
    cache: 'no-store',
    credentials: 'omit',
    signal: options.signal,
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok && !options.keepError) {
    const error = new Error(body?.error?.message ?? `HTTP ${response.status}`);
    error.status = response.status;
    // Seconds to wait before trying again (429, 503), as the gateway's Retry-After says.
    const wait = Number(response.headers.get('retry-after'));
    if (wait > 0) error.retryAfterSeconds = wait;
    throw error;
  }
  return { status: response.status, body };
}

/** Whether the gateway asks for a key, as the console page it served says (so no request has to fail to find out). */
export function keyRequired() {
  return document.querySelector('meta[name="periscope-sign-in"]')?.getAttribute('content') === 'key';
}

/**
 * Tries `key` on the console API; if it opens the console, keeps it and calls `opened`. Resolves to the error that
 * refused it, or to undefined (signed in, or a later attempt has started: that one decides). Only a refusal of the
 * key itself (401, 403) forgets it; an answer that asks to wait (429 too many failed authentications from this
 * address, 503) keeps it, with the wait in `retryAfterSeconds`, and so does a gateway that could not be reached.
 */
export async function signIn(key, opened) {
  const attempt = ++signInAttempt;
  adminKey = key;
  try {
    await api('/v1/admin/console/overview');
  } catch (error) {
    if (attempt !== signInAttempt) return undefined;
    if (error.status === 401 || error.status === 403) {
      adminKey = '';
      sessionStorage.removeItem(KEY_STORAGE);
    }
    return error;
  }
  if (attempt !== signInAttempt) return undefined;
  if (key) sessionStorage.setItem(KEY_STORAGE, key);
  opened();
  return undefined;
}

/** Forgets the key, in memory and in session storage. */
export function forgetKey() {
  sessionStorage.removeItem(KEY_STORAGE);
  adminKey = '';
}
