import { ToolMessage } from '@langchain/core/messages';
import { type DynamicStructuredTool, tool } from '@langchain/core/tools';
import type { ToolResult } from '../../tool-call.ts';
import type { Tool, ToolExecuteOptions } from '../../tools/tool.ts';
import { imageOf } from '../tool-parts.ts';
import { type ToolSource, toolsOf } from './tool-source.ts';

// LangChain.js: structured tools with responseFormat 'content_and_artifact': the content is the output (plus the
// image as a standard image block), the artifact is the ToolResult's data. A failed call invoked as a tool call
// becomes a ToolMessage with status 'error'. The artifact keeps the passages of web_fetch with `query` (and of
// web_search results with `readTop`) with their offsets, headings and citations; `passagesOf(artifact)` reads them
// typed.

export { type CitedPassage, passagesOf } from '../tool-parts.ts';

export interface LangChainToolOptions {
  /** The repeat-throttle scope the calls share: one conversation or agent run. Default: each call alone. */
  session?: string;
  /** The principal limits and credits apply to. */
  agentId?: string;
}

type Content =
  | string
  | Array<{ type: 'text'; text: string } | { type: 'image'; mimeType: string; data: string }>;

/** `createAgent({ tools: langchainTools(periscope) })`, `model.bindTools(langchainTools(periscope))`. */
export function langchainTools(
  source: ToolSource,
  options: LangChainToolOptions = {},
): DynamicStructuredTool[] {
  return toolsOf(source).map((periscopeTool) => toLangChainTool(periscopeTool, options));
}

function toLangChainTool(periscopeTool: Tool, options: LangChainToolOptions): DynamicStructuredTool {
  return tool(
    async (input: unknown, config) => {
      const executeOptions: ToolExecuteOptions = {};
      if (config?.signal) executeOptions.signal = config.signal;
      if (options.session !== undefined) executeOptions.sessionId = options.session;
      if (options.agentId !== undefined) executeOptions.agentId = options.agentId;
      const result = await periscopeTool.execute(input, executeOptions);
      const content = contentOf(result);
      const toolCallId = config?.toolCall?.id;
      if (result.isError && toolCallId) {
        const message = new ToolMessage({
          content,
          artifact: result.data,
          status: 'error',
          tool_call_id: toolCallId,
          name: periscopeTool.name,
        });
        return [message, result.data];
      }
      return [content, result.data];
    },
    {
      name: periscopeTool.name,
      description: periscopeTool.description,
      schema: periscopeTool.inputSchema,
      responseFormat: 'content_and_artifact',
    },
  ) as unknown as DynamicStructuredTool;
}

/** ToolResult → ToolMessage content. */
export function contentOf(result: ToolResult): Content {
  const image = result.isError ? undefined : imageOf(result.data);
  if (!image) return result.output;
  return [
    { type: 'text', text: result.output },
    { type: 'image', mimeType: image.mimeType, data: image.base64 },
  ];
}
