/** Query parameters that only track the click: removed before two results are compared. */
const TRACKING_PARAMETER =
  /^(?:utm_[a-z0-9_]+|fbclid|gclid|gclsrc|dclid|gbraid|wbraid|msclkid|yclid|twclid|ttclid|li_fat_id|igshid|mc_cid|mc_eid|_ga|_gl|_hsenc|_hsmi|mkt_tok|oly_anon_id|oly_enc_id|vero_id|ref_src|srsltid)$/i;

/**
 * The key two search results are deduplicated by: host lower-cased without `www.`, default port, fragment and
 * tracking parameters (`utm_*`, `fbclid`, `gclid`, …) removed, remaining parameters sorted, trailing slash and
 * scheme ignored (`http://Example.com/a/?utm_source=x` and `https://example.com/a` are one page).
 * Returns undefined for anything that is not an http(s) URL.
 */
export function canonicalUrl(input: string): string | undefined {
  const url = URL.parse(input);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return undefined;
  const host = url.host.replace(/^www\./, '');
  const parameters = [...url.searchParams]
    .filter(([name]) => !TRACKING_PARAMETER.test(name))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const query = parameters.length > 0 ? `?${new URLSearchParams(parameters).toString()}` : '';
  const path = url.pathname.replace(/\/+$/, '');
  return `${host}${path}${query}`;
}
