/** A usage mistake on the command line: exit code 2, one line naming the fix. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const EXIT_OK = 0;
export const EXIT_TOOL_ERROR = 1;
export const EXIT_USAGE = 2;
