import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageToolCall,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';
import type {
  FunctionTool,
  ResponseFunctionCallOutputItemList,
  ResponseFunctionToolCall,
  ResponseInputItem,
} from 'openai/resources/responses/responses';
import { chatFunctionTools } from '../../agent/chat-function-tools.ts';
import type { ToolResult } from '../../tool-call.ts';
import { inputJsonSchema } from '../../tools/input-json-schema.ts';
import { type RunToolCallsOptions, runToolCalls, type ToolCall } from '../../tools/tool-runner.ts';
import { imageOf } from '../tool-parts.ts';
import { dataUrl, type ToolSource, toolsOf } from './tool-source.ts';

// OpenAI: tool definitions for Chat Completions and the Responses API, and tool calls → tool messages through the
// runner. Types only from `openai`: nothing of it loads at run time.

/** Chat Completions `tools`. */
export function chatCompletionTools(source: ToolSource): ChatCompletionFunctionTool[] {
  return chatFunctionTools(toolsOf(source));
}

/** Responses API `tools` (function tools). */
export function responsesTools(source: ToolSource): FunctionTool[] {
  return toolsOf(source).map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    parameters: inputJsonSchema(tool),
    strict: false,
  }));
}

/** One Chat Completions tool message: the output (tool messages carry text only, so an image stays described). */
export function toolMessage(toolCallId: string, result: ToolResult): ChatCompletionToolMessageParam {
  return { role: 'tool', tool_call_id: toolCallId, content: result.output };
}

/** One Responses API `function_call_output`: the output, then the image when there is one. */
export function functionCallOutput(callId: string, result: ToolResult): ResponseInputItem.FunctionCallOutput {
  const image = result.isError ? undefined : imageOf(result.data);
  if (!image) return { type: 'function_call_output', call_id: callId, output: result.output };
  const output: ResponseFunctionCallOutputItemList = [
    { type: 'input_text', text: result.output },
    { type: 'input_image', image_url: dataUrl(image), detail: 'auto' },
  ];
  return { type: 'function_call_output', call_id: callId, output };
}

/**
 * Run an assistant message's `tool_calls` (concurrently, under the runner's limits) and return the tool messages
 * to append, in call order.
 */
export async function toolMessagesFromCalls(
  toolCalls: readonly ChatCompletionMessageToolCall[],
  options: RunToolCallsOptions,
): Promise<ChatCompletionToolMessageParam[]> {
  const calls: ToolCall[] = toolCalls.map((call) =>
    call.type === 'function'
      ? { id: call.id, name: call.function.name, input: call.function.arguments }
      : { id: call.id, name: call.custom.name, input: call.custom.input },
  );
  const results = await runToolCalls(calls, options);
  return results.map(({ id, result }) => toolMessage(id, result));
}

/**
 * Run the `function_call` items of a Responses API output (other items are skipped) and return the
 * `function_call_output` items to send back, in call order.
 */
export async function functionCallOutputsFromCalls(
  items: readonly { type: string }[],
  options: RunToolCallsOptions,
): Promise<ResponseInputItem.FunctionCallOutput[]> {
  const calls: ToolCall[] = items
    .filter((item): item is ResponseFunctionToolCall => item.type === 'function_call')
    .map((item) => ({ id: item.call_id, name: item.name, input: item.arguments }));
  const results = await runToolCalls(calls, options);
  return results.map(({ id, result }) => functionCallOutput(id, result));
}
