import { PeriscopeError } from '../errors.ts';
import { blockedUnparsableUrl } from './url-policy.ts';

const WITH_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const NON_WEB_SCHEME = /^(about|blob|data|file|javascript|mailto|tel|vbscript|view-source):/i;

/**
 * Parse a URL from a caller; a bare host such as `example.com/page` gets `https://`. A zone-id IPv6 literal
 * (`http://[::1%25lo]/`) is URL_BLOCKED, as the guarded client says: no allow-list opens it. One reading for
 * every room that takes a URL from outside: the tools, the egress checks, the repeat throttle.
 */
export function parseCallerUrl(text: string): URL {
  const trimmed = text.trim();
  const candidate =
    WITH_SCHEME.test(trimmed) || NON_WEB_SCHEME.test(trimmed) ? trimmed : `https://${trimmed}`;
  try {
    return new URL(candidate);
  } catch {
    const blocked = blockedUnparsableUrl(candidate);
    if (blocked) throw blocked;
    throw new PeriscopeError(
      'INVALID_INPUT',
      `"${text}" is not a valid URL; give an absolute http(s) URL such as https://example.com/page`,
      {
        details: { url: text },
      },
    );
  }
}
