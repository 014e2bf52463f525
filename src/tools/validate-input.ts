import type { z } from 'zod';
import { PeriscopeError } from '../errors.ts';
import { inputIssueOf } from '../input-issue.ts';

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

/** `https://docs.python.org/3/whatsnew/` → `docs.python.org/3/whatsnew/` for display lines. */
export function shortUrl(url: string): string {
  return url.replace(/^https?:\/\//, '').replace(/\/$/, '');
}
