import type { z } from 'zod';
import { PeriscopeError } from '../errors.ts';
import { inputIssueOf } from '../input-issue.ts';
import { blockedUnparsableUrl } from '../net/url-policy.ts';

/** Parse tool input; every problem is named in one line the model (or a person) can act on. */
export function validateInput<T>(schema: z.ZodType<T>, input: unknown, toolName: string): T {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const problems = result.error.issues.map(
    (issue) => `${issue.path.map(String).join('.') || 'input'}: ${issue.message}`,
  );
  // The first problem as data (`field`, `constraint`), for surfaces that word it themselves (the CLI's flags).
  const first = result.error.issues[0];
  throw new PeriscopeError('INVALID_INPUT', `invalid ${toolName} arguments: ${problems.join('; ')}`, {
    details: first ? { ...inputIssueOf(first) } : {},
  });
}

const WITH_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const NON_WEB_SCHEME = /^(about|blob|data|file|javascript|mailto|tel|vbscript|view-source):/i;

/**
 * Parse a URL from a caller; a bare host such as `example.com/page` gets `https://`. A zone-id IPv6 literal
 * (`http://[::1%25lo]/`) is URL_BLOCKED, as the guarded client says: no allow-list opens it.
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

/** `https://docs.python.org/3/whatsnew/` → `docs.python.org/3/whatsnew/` for display lines. */
export function shortUrl(url: string): string {
  return url.replace(/^https?:\/\//, '').replace(/\/$/, '');
}
