import type { z } from 'zod';
import { validateInput } from '../../tools/validate-input.ts';
import { asUsageError, type FlagNames } from './flag-input.ts';
import type { ParsedFlags } from './flags.ts';

/**
 * The tool's own schema judges the input the flags make, before the call (so a mistake is one line and no call);
 * a problem is a UsageError (exit 2) naming the flag.
 */
export function checkToolInput(
  schema: z.ZodType,
  input: unknown,
  toolName: string,
  flags: FlagNames,
  values: ParsedFlags,
): void {
  try {
    validateInput(schema, input, toolName);
  } catch (error) {
    throw asUsageError(error, flags, values);
  }
}
