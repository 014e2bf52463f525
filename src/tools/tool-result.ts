import { type ToolErrorData, toPeriscopeError } from '../errors.ts';
import { describeForModel } from './describe-error.ts';

export interface ToolResult<DATA = unknown> {
  isError: boolean;
  /** What the model reads. */
  output: string;
  /** Structured payload for programs; on error `{ error }`. */
  data?: DATA | { error: ToolErrorData };
  /** One short line for people; never sent to the model. */
  display?: string;
}

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
