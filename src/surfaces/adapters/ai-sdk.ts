import { type Tool as AiSdkTool, tool } from 'ai';
import type { ToolResult } from '../../tool-call.ts';
import type { Tool, ToolExecuteOptions } from '../../tools/tool.ts';
import { imageOf } from '../tool-parts.ts';
import { type ToolSource, toolsOf } from './tool-source.ts';

// Vercel AI SDK: `tool()` objects over the tools' own zod schemas. `execute` returns the ToolResult (the program's
// view); `toModelOutput` gives the model the output text (`error-text` on failure) and the image when there is one.
// The ToolResult's `data` keeps the passages of web_fetch with `query` (and of web_search results with `readTop`)
// with their offsets, headings and citations; `passagesOf(result.data)` reads them typed.

export { type CitedPassage, passagesOf } from '../tool-parts.ts';

export interface AiSdkToolOptions {
  /** The repeat-throttle scope the calls share: one conversation or agent run. Default: each call alone. */
  session?: string;
  /** The principal limits and credits apply to. */
  agentId?: string;
}

export type AiSdkTools = Record<string, AiSdkTool<unknown, ToolResult>>;

/** `generateText({ tools: aiSdkTools(periscope) })`. */
export function aiSdkTools(source: ToolSource, options: AiSdkToolOptions = {}): AiSdkTools {
  return Object.fromEntries(
    toolsOf(source).map((periscopeTool) => [periscopeTool.name, toAiSdkTool(periscopeTool, options)]),
  );
}

function toAiSdkTool(periscopeTool: Tool, options: AiSdkToolOptions): AiSdkTool<unknown, ToolResult> {
  return tool<unknown, ToolResult>({
    description: periscopeTool.description,
    inputSchema: periscopeTool.inputSchema,
    execute: (input, { abortSignal }) => {
      const executeOptions: ToolExecuteOptions = {};
      if (abortSignal) executeOptions.signal = abortSignal;
      if (options.session !== undefined) executeOptions.sessionId = options.session;
      if (options.agentId !== undefined) executeOptions.agentId = options.agentId;
      return periscopeTool.execute(input, executeOptions);
    },
    toModelOutput: ({ output }) => toModelOutput(output),
  });
}

/** ToolResult → what the model reads. */
export function toModelOutput(result: ToolResult) {
  if (result.isError) return { type: 'error-text' as const, value: result.output };
  const image = imageOf(result.data);
  if (!image) return { type: 'text' as const, value: result.output };
  return {
    type: 'content' as const,
    value: [
      { type: 'text' as const, text: result.output },
      { type: 'image-data' as const, data: image.base64, mediaType: image.mimeType },
    ],
  };
}
