import { isPeriscopeError, type PeriscopeErrorDetails } from '../../errors.ts';
import type { InputConstraint } from '../../input-issue.ts';
import { UsageError } from './cli-error.ts';
import type { ParsedFlags } from './flags.ts';

/** Which flag sets which input field: `{ count: '--count', extractMode: '--mode' }`. */
export type FlagNames = Readonly<Record<string, string>>;

/**
 * INVALID_INPUT (from a tool, the key operations, extract) is a usage mistake: a UsageError, worded with the flag
 * when the error names the field (`details.field`) and what it broke (`details.constraint`), else its own message.
 * Any other error is returned as it is.
 */
export function asUsageError(error: unknown, flags: FlagNames, values: ParsedFlags): unknown {
  if (!isPeriscopeError(error) || error.code !== 'INVALID_INPUT') return error;
  return new UsageError(flagMessage(error.details, flags, values) ?? error.message);
}

/** `--count must be 20 or less, got 50`; undefined when the details name no field a flag sets. */
export function flagMessage(
  details: PeriscopeErrorDetails,
  flags: FlagNames,
  values: ParsedFlags,
): string | undefined {
  const flag = typeof details.field === 'string' ? flags[details.field] : undefined;
  const constraint = details.constraint as InputConstraint | undefined;
  if (flag === undefined || constraint === undefined) return undefined;
  const raw = values[flag.replace(/^--/, '')];
  const got = raw === undefined ? '' : `, got '${String(raw)}'`;
  // Every number a CLI flag takes is a whole number.
  switch (constraint.kind) {
    case 'at-most':
      return constraint.of
        ? `${flag} must be ${constraint.maximum} ${constraint.of} or fewer`
        : `${flag} must be ${constraint.maximum} or less${raw === undefined ? '' : `, got ${String(raw)}`}`;
    case 'at-least':
      return constraint.of
        ? `${flag} must be at least ${constraint.minimum} ${constraint.of}${got}`
        : `${flag} expects a whole number ≥ ${constraint.minimum}${got}`;
    case 'whole-number':
      return `${flag} expects a whole number${got}`;
    case 'type':
      return constraint.expected === 'number' ? `${flag} expects a whole number${got}` : undefined;
    case 'one-of': {
      const { values: allowed } = constraint;
      const choices =
        allowed.length === 2 ? `${allowed[0]} or ${allowed[1]}` : `one of ${allowed.join(', ')}`;
      return `${flag} must be ${choices}${got}`;
    }
    case 'format':
      return `${flag} must be ${constraint.description}${got}`;
    case 'excludes':
      return `${flag} cannot be combined with ${flags[constraint.with] ?? constraint.with}`;
    case 'requires':
      return `${flags[constraint.with] ?? constraint.with} and ${flag} go together: give both or neither`;
    case 'order':
      return `${flag} ${constraint.relation} ${flags[constraint.with] ?? constraint.with}${got}`;
    default:
      return undefined;
  }
}
