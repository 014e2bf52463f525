import { inputJsonSchema } from '../tools/input-json-schema.ts';
import type { Tool } from '../tools/tool.ts';

/** A Chat Completions function tool, as the protocol spells it. */
export interface ChatFunctionTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown>; strict: boolean };
}

/** The tools as Chat Completions `tools` (what the agent loop sends, and the OpenAI adapter's `chatCompletionTools`). */
export function chatFunctionTools(tools: readonly Tool[]): ChatFunctionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: inputJsonSchema(tool),
      strict: false,
    },
  }));
}
