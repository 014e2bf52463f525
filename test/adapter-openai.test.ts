// periscope/openai with the real `openai` client against a local stand-in of the API: tool definitions go out in
// the request, the model's tool calls come back, the runner answers them, and the tool messages go out again.
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { ResponseInputItem, Tool as ResponsesTool } from 'openai/resources/responses/responses';
import { createPeriscope, type Periscope } from '../src/index.ts';
import {
  chatCompletionTools,
  functionCallOutputsFromCalls,
  responsesTools,
  toolMessagesFromCalls,
} from '../src/surfaces/adapters/openai.ts';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import { configFor, PNG, type StandIn, startStandIn } from './support/stand-in.ts';

let standIn: StandIn;
let api: TestServer;
let periscope: Periscope;
let client: OpenAI;

function json(response: ServerResponse, body: unknown) {
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

before(async () => {
  standIn = await startStandIn();
  periscope = createPeriscope(configFor(standIn) as never);
  api = await startTestServer({
    'POST /v1/responses': (_request, response) =>
      json(response, {
        id: 'resp_1',
        object: 'response',
        created_at: 1,
        model: 'stand-in',
        status: 'completed',
        output: [],
      }),
    'POST /v1/chat/completions': (_request, response, body) => {
      const { messages } = JSON.parse(body) as { messages: Array<{ role: string }> };
      if (messages.at(-1)?.role === 'tool') {
        return json(response, completion({ role: 'assistant', content: 'High tide is at 06:12.' }, 'stop'));
      }
      return json(
        response,
        completion(
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_search',
                type: 'function',
                function: { name: 'web_search', arguments: '{"query":"brest tides"}' },
              },
              {
                id: 'call_fetch',
                type: 'function',
                function: {
                  name: 'web_fetch',
                  arguments: JSON.stringify({ url: `${standIn.url}/article?openai` }),
                },
              },
              {
                id: 'call_blocked',
                type: 'function',
                function: { name: 'web_fetch', arguments: '{"url":"http://10.0.0.1/"}' },
              },
            ],
          },
          'tool_calls',
        ),
      );
    },
  });
  client = new OpenAI({ baseURL: `${api.url}/v1`, apiKey: 'stand-in', maxRetries: 0 });
});

after(async () => {
  await api.close();
  await standIn.close();
  await periscope.close();
});

function completion(message: Record<string, unknown>, finishReason: string) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'stand-in',
    choices: [{ index: 0, message, finish_reason: finishReason, logprobs: null }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

test('Chat Completions: definitions out, tool calls run by the runner, tool messages back in call order', async () => {
  const tools: ChatCompletionTool[] = chatCompletionTools(periscope);
  assert.deepEqual(
    tools.map((tool) => tool.type === 'function' && tool.function.name),
    ['web_fetch', 'web_search', 'image_search'],
  );
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'When is high tide in Brest?' }];
  const params: ChatCompletionCreateParamsNonStreaming = { model: 'stand-in', messages, tools };
  const first = await client.chat.completions.create(params);
  const sent = JSON.parse(api.calls[0]?.body ?? '{}') as {
    tools: Array<{ function: { name: string; parameters: Record<string, unknown> } }>;
  };
  const fetchDefinition = sent.tools[0]?.function;
  assert.equal(fetchDefinition?.name, 'web_fetch');
  assert.equal(fetchDefinition?.parameters.type, 'object');
  assert.equal(fetchDefinition?.parameters.$schema, undefined);
  // url or urls, exactly one: neither is required by the schema (the tool names what is missing).
  assert.equal(fetchDefinition?.parameters.required, undefined);
  assert.ok(Object.hasOwn((fetchDefinition?.parameters.properties ?? {}) as object, 'urls'));

  const assistant = first.choices[0]?.message;
  assert.ok(assistant?.tool_calls);
  const toolMessages = await toolMessagesFromCalls(assistant.tool_calls, { tools: periscope.tools });
  assert.deepEqual(
    toolMessages.map((message) => [message.role, message.tool_call_id]),
    [
      ['tool', 'call_search'],
      ['tool', 'call_fetch'],
      ['tool', 'call_blocked'],
    ],
  );
  assert.match(String(toolMessages[0]?.content), /^Results for: brest tides/);
  assert.match(String(toolMessages[1]?.content), /High tide in Brest is at 06:12/);
  assert.match(String(toolMessages[2]?.content), /private, local or non-web address/);

  const second = await client.chat.completions.create({
    model: 'stand-in',
    messages: [...messages, assistant, ...toolMessages],
    tools,
  });
  assert.equal(second.choices[0]?.message.content, 'High tide is at 06:12.');
  const resent = JSON.parse(api.calls[1]?.body ?? '{}') as { messages: Array<Record<string, unknown>> };
  assert.deepEqual(resent.messages.at(-1), {
    role: 'tool',
    tool_call_id: 'call_blocked',
    content: toolMessages[2]?.content,
  });
});

test('Responses API: function tools, and function_call items → function_call_output with the image', async () => {
  const tools: ResponsesTool[] = responsesTools(periscope);
  const search = tools.find((tool) => tool.type === 'function' && tool.name === 'web_search');
  assert.equal(search?.type === 'function' && search.strict, false);
  const outputs: ResponseInputItem[] = await functionCallOutputsFromCalls(
    [
      { type: 'reasoning' },
      {
        type: 'function_call',
        call_id: 'fc_image',
        name: 'web_fetch',
        arguments: JSON.stringify({ url: `${standIn.url}/image.png?responses` }),
      },
      { type: 'function_call', call_id: 'fc_search', name: 'web_search', arguments: '{"query":"harbour"}' },
    ] as Array<{ type: string }>,
    { tools: periscope.tools, concurrency: 2 },
  );
  assert.equal(outputs.length, 2);
  const [image, searched] = outputs as ResponseInputItem.FunctionCallOutput[];
  assert.equal(image?.call_id, 'fc_image');
  assert.ok(Array.isArray(image?.output));
  const [textPart, imagePart] = image.output as unknown as Array<Record<string, string>>;
  assert.equal(textPart?.type, 'input_text');
  assert.equal(imagePart?.type, 'input_image');
  assert.equal(imagePart?.image_url, `data:image/png;base64,${PNG.toString('base64')}`);
  assert.equal(searched?.call_id, 'fc_search');
  assert.match(String(searched?.output), /^Results for: harbour/);

  await client.responses.create({ model: 'stand-in', input: outputs, tools });
  const sent = JSON.parse(api.calls.at(-1)?.body ?? '{}') as {
    input: unknown[];
    tools: Array<{ name: string }>;
  };
  assert.deepEqual(sent.input, JSON.parse(JSON.stringify(outputs)));
  assert.deepEqual(
    sent.tools.map((tool) => tool.name),
    ['web_fetch', 'web_search', 'image_search'],
  );
});
