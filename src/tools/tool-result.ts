import { toPeriscopeError } from '../errors.ts';
import type { ToolResult } from '../tool-call.ts';
import { describeForModel } from './describe-error.ts';

/** The only catch that matters: any failure becomes an error result the model can act on. */
export function toErrorResult(error: unknown, display?: string): ToolResult<never> {
  const periscopeError = toPeriscopeError(error);
  const result: ToolResult<never> = {
    isError: true,
    output: describeForModel(periscopeError),
    data: { error: periscopeError.toJSON() },
  };
  const line = display ? `${display} → ${periscopeError.code}` : periscopeError.code;
  result.display = line;
  return result;
}
