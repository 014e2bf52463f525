import type { ToolErrorData } from '../../errors.ts';
import type { ToolResult } from '../../tool-call.ts';
import { cachedNote, formatAge } from '../../tools/cache-age.ts';
import { EXIT_OK, EXIT_TOOL_ERROR, EXIT_USAGE } from './cli-error.ts';
import { type CliIo, writeLine } from './io.ts';

export interface PrintToolResultOptions {
  /** `--json`: the whole ToolResult on stdout, nothing else. */
  json: boolean;
  /** The output as a person reads it (default: the model's output as it is). */
  render?: ((result: ToolResult) => string) | undefined;
  /** What a person can do about an error, appended to its message (`(raise it with --timeout-ms N)`). */
  hint?: ((error: ToolErrorData) => string) | undefined;
}

const USAGE_CODES = new Set(['INVALID_INPUT', 'CONFIG_INVALID']);

/**
 * How search, images and fetch print a tool call's result; returns the exit code. The output on stdout; the
 * summary line (`result.display`) on stderr, on success and on failure alike; on failure then
 * `periscope: <message>`. A usage mistake (bad input or config, exit 2) is the message alone, one line.
 */
export function printToolResult(io: CliIo, result: ToolResult, options: PrintToolResultOptions): number {
  if (options.json) writeLine(io.stdout, JSON.stringify(result, null, 2));
  else if (!result.isError)
    writeLine(
      io.stdout,
      cacheNoteForPeople(options.render ? options.render(result) : result.output, result.data),
    );
  if (!result.isError) {
    if (result.display) writeLine(io.stderr, result.display);
    return EXIT_OK;
  }
  const { error } = result.data as { error: ToolErrorData };
  const isUsage = USAGE_CODES.has(error.code);
  if (result.display && !isUsage) writeLine(io.stderr, result.display);
  if (!options.json) writeLine(io.stderr, `periscope: ${error.message}${options.hint?.(error) ?? ''}`);
  return isUsage ? EXIT_USAGE : EXIT_TOOL_ERROR;
}

/** The model's note on a cached answer ("set maxAgeSeconds to 0 …"), leading the output, as the flag to pass. */
function cacheNoteForPeople(text: string, data: unknown): string {
  const age = (data as { cacheAgeSeconds?: unknown } | undefined)?.cacheAgeSeconds;
  if (typeof age !== 'number' || !text.startsWith(cachedNote(age))) return text;
  const note = `[From cache, ${formatAge(age)} old; run it again with --max-age 0 for a live answer.]`;
  return `${note}${text.slice(cachedNote(age).length)}`;
}
