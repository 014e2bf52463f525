/** Query parameters that only track the click: removed before two results are compared. */
const TRACKING_PARAMETER =
  /^(?:utm_[a-z0-9_]+|fbclid|gclid|gclsrc|dclid|gbraid|wbraid|msclkid|yclid|twclid|ttclid|li_fat_id|igshid|mc_cid|mc_eid|_ga|_gl|_hsenc|_hsmi|mkt_tok|oly_anon_id|oly_enc_id|vero_id|ref_src|srsltid)$/i;

/**
 * The key two search results are deduplicated by: host lower-cased without `www.`, default port, fragment and
 * tracking parameters (`utm_*`, `fbclid`, `gclid`, …) removed, remaining parameters sorted, trailing slash and
 * scheme ignored (`http://Example.com/a/?utm_source=x` and `https://example.com/a` are one page).
 * Returns undefined for anything that is not an http(s) URL.
 */
export function canonicalUrl(input: string | URL): string | undefined {
  const url = typeof input === 'string' ? URL.parse(input) : input;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return undefined;
  const host = url.host.startsWith('www.') ? url.host.slice(4) : url.host;
  const path = url.pathname.endsWith('/') ? url.pathname.replace(/\/+$/, '') : url.pathname;
  if (url.search.length <= 1) return `${host}${path}`;
  const parameters = [...url.searchParams].filter(([name]) => !TRACKING_PARAMETER.test(name));
  if (parameters.length === 0) return `${host}${path}`;
  if (parameters.length > 1) parameters.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${host}${path}?${new URLSearchParams(parameters).toString()}`;
}
