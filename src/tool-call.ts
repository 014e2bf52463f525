// The words of one tool call that rooms below the tools share (docs/decisions/0013-layout.md): which tool was
// called and what it returned. The egress checks name the tool and read its result; they sit below src/tools/,
// which builds the tools and their results, so the words live here, under both.
import type { ToolErrorData } from './errors.ts';

export type ToolName = 'web_fetch' | 'web_search' | 'image_search' | 'verify_citation';

export interface ToolResult<DATA = unknown> {
  isError: boolean;
  /** What the model reads. */
  output: string;
  /** Structured payload for programs; on error `{ error }`. */
  data?: DATA | { error: ToolErrorData };
  /** One short line for people; never sent to the model. */
  display?: string;
}
