const LINK_PROTOCOLS = new Set(['http:', 'https:', 'mailto:', 'ftp:']);
const IMAGE_PROTOCOLS = new Set(['http:', 'https:']);

/**
 * The document's base URL: `<base href>` resolved against the page URL (http/https only), else the page URL.
 * `undefined` when the page URL is not absolute; relative links then stay as written.
 */
export function documentBaseUrl(pageUrl: string, baseHref: string | null | undefined): URL | undefined {
  const page = URL.parse(pageUrl);
  if (!baseHref) return page ?? undefined;
  const base = URL.parse(baseHref.trim(), page?.href);
  return base && IMAGE_PROTOCOLS.has(base.protocol) ? base : (page ?? undefined);
}

/** An absolute link target, or `undefined` for `javascript:`, `data:` and other schemes a reader cannot follow. */
export function resolveLink(href: string, base: URL | undefined): string | undefined {
  return resolveWith(href, base, LINK_PROTOCOLS);
}

/** An absolute http(s) image URL, or `undefined` (data:, blob:, unresolvable). */
export function resolveImage(src: string, base: URL | undefined): string | undefined {
  return resolveWith(src, base, IMAGE_PROTOCOLS);
}

function resolveWith(
  value: string,
  base: URL | undefined,
  protocols: ReadonlySet<string>,
): string | undefined {
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  const url = URL.parse(trimmed, base?.href);
  if (url) return protocols.has(url.protocol) ? url.href : undefined;
  // No usable base: keep a relative reference as written rather than losing it.
  return base === undefined && !/^[a-z][a-z0-9+.-]*:/i.test(trimmed) ? trimmed : undefined;
}
