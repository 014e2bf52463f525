import type {
  Tool as AnthropicTool,
  Base64ImageSource,
  ImageBlockParam,
  TextBlockParam,
  ToolResultBlockParam,
  ToolUseBlock,
} from '@anthropic-ai/sdk/resources/messages';
import { inputJsonSchema } from '../../tools/input-json-schema.ts';
import type { ToolResult } from '../../tools/tool-result.ts';
import { type RunToolCallsOptions, runToolCalls } from '../../tools/tool-runner.ts';
import { imageOf } from '../tool-parts.ts';
import { type ToolSource, toolsOf } from './tool-source.ts';

// Anthropic Messages API: tool definitions, and tool_use blocks → tool_result blocks through the runner. Types
// only from `@anthropic-ai/sdk`: nothing of it loads at run time.

const IMAGE_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** Messages API `tools`. */
export function anthropicTools(source: ToolSource): AnthropicTool[] {
  return toolsOf(source).map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: { ...inputJsonSchema(tool), type: 'object' },
  }));
}

/** A `tool_result` block: the output (and the image, when the result carries one Claude reads), `is_error`. */
export function toolResultBlock(toolUseId: string, result: ToolResult): ToolResultBlockParam {
  const text: TextBlockParam = { type: 'text', text: result.output };
  const image = result.isError ? undefined : imageOf(result.data);
  const content: Array<TextBlockParam | ImageBlockParam> = [text];
  if (image && IMAGE_TYPES.has(image.mimeType)) {
    const mediaType = image.mimeType as Base64ImageSource['media_type'];
    content.push({ type: 'image', source: { type: 'base64', media_type: mediaType, data: image.base64 } });
  }
  return { type: 'tool_result', tool_use_id: toolUseId, content, is_error: result.isError };
}

/**
 * Run the `tool_use` blocks of an assistant message's content (other blocks are skipped) and return the
 * `tool_result` blocks for the next user message, in call order.
 */
export async function toolResultsFromToolUses(
  content: readonly { type: string }[],
  options: RunToolCallsOptions,
): Promise<ToolResultBlockParam[]> {
  const calls = content
    .filter((block): block is ToolUseBlock => block.type === 'tool_use')
    .map((block) => ({ id: block.id, name: block.name, input: block.input }));
  const results = await runToolCalls(calls, options);
  return results.map(({ id, result }) => toolResultBlock(id, result));
}
