import type { ServerResponse } from 'node:http';
import type { ChatMessage } from '../agent/chat-completions.ts';

/** What the scripted model says next: text, tool calls, or both. */
export interface ScriptedReply {
  content?: string;
  toolCalls?: Array<{ name: string; arguments: Record<string, unknown> }>;
}

export interface ChatRequestBody {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  tools?: Array<{ type: string; function: { name: string } }>;
}

let callCounter = 0;

/**
 * Answer one Chat Completions request the way OpenAI-compatible servers do: a JSON completion, or (with
 * `stream: true`) server-sent events with the content in pieces and each tool call's arguments split in two.
 */
export function sendChatReply(response: ServerResponse, body: ChatRequestBody, reply: ScriptedReply): void {
  const toolCalls = (reply.toolCalls ?? []).map((call) => ({
    id: `call_${++callCounter}`,
    type: 'function' as const,
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
  const finishReason = toolCalls.length > 0 ? 'tool_calls' : 'stop';
  if (!body.stream) {
    response.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'chatcmpl-test',
        object: 'chat.completion',
        model: body.model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: reply.content ?? null,
              ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
            },
            finish_reason: finishReason,
          },
        ],
      }),
    );
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const event = (delta: unknown, finish: string | null = null) =>
    response.write(
      `data: ${JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
    );
  event({ role: 'assistant', content: '' });
  for (const piece of (reply.content ?? '').match(/.{1,12}/gs) ?? []) event({ content: piece });
  toolCalls.forEach((call, index) => {
    const half = Math.ceil(call.function.arguments.length / 2);
    event({
      tool_calls: [
        {
          index,
          id: call.id,
          type: 'function',
          function: { name: call.function.name, arguments: call.function.arguments.slice(0, half) },
        },
      ],
    });
    event({ tool_calls: [{ index, function: { arguments: call.function.arguments.slice(half) } }] });
  });
  event({}, finishReason);
  response.end('data: [DONE]\n\n');
}

/** The tool messages the model has been sent so far. */
export function toolMessages(body: ChatRequestBody): ChatMessage[] {
  return body.messages.filter((message) => message.role === 'tool');
}
