// periscope/anthropic with the real `@anthropic-ai/sdk` client against a local stand-in of the Messages API.
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import type {
  MessageCreateParamsNonStreaming,
  MessageParam,
  Tool,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { createPeriscope, type Periscope } from '../src/index.ts';
import {
  anthropicTools,
  toolResultBlock,
  toolResultsFromToolUses,
} from '../src/surfaces/adapters/anthropic.ts';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import { configFor, PNG, type StandIn, startStandIn } from './support/stand-in.ts';

let standIn: StandIn;
let api: TestServer;
let periscope: Periscope;
let client: Anthropic;

function json(response: ServerResponse, body: unknown) {
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function message(content: unknown[], stopReason: string) {
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'stand-in',
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
}

before(async () => {
  standIn = await startStandIn();
  periscope = createPeriscope(configFor(standIn) as never);
  api = await startTestServer({
    'POST /v1/messages': (_request, response, body) => {
      const { messages } = JSON.parse(body) as { messages: MessageParam[] };
      if (messages.length > 1)
        return json(response, message([{ type: 'text', text: 'A harbour.' }], 'end_turn'));
      return json(
        response,
        message(
          [
            { type: 'text', text: 'Let me look.' },
            {
              type: 'tool_use',
              id: 'toolu_image',
              name: 'web_fetch',
              input: { url: `${standIn.url}/image.png?a` },
            },
            { type: 'tool_use', id: 'toolu_blocked', name: 'web_fetch', input: { url: 'http://[::1]:22/' } },
            { type: 'tool_use', id: 'toolu_search', name: 'web_search', input: { query: 'brest harbour' } },
          ],
          'tool_use',
        ),
      );
    },
  });
  client = new Anthropic({ baseURL: api.url, apiKey: 'stand-in', maxRetries: 0 });
});

after(async () => {
  await api.close();
  await standIn.close();
  await periscope.close();
});

test('tool definitions, tool_use blocks run by the runner, tool_result blocks with is_error and images', async () => {
  const tools: Tool[] = anthropicTools(periscope);
  const messages: MessageParam[] = [{ role: 'user', content: 'What does the harbour look like?' }];
  const params: MessageCreateParamsNonStreaming = { model: 'stand-in', max_tokens: 100, messages, tools };
  const first = await client.messages.create(params);
  const sent = JSON.parse(api.calls[0]?.body ?? '{}') as {
    tools: Array<{ name: string; input_schema: Record<string, unknown> }>;
  };
  assert.deepEqual(
    sent.tools.map((tool) => tool.name),
    ['web_fetch', 'web_search', 'image_search'],
  );
  assert.equal(sent.tools[1]?.input_schema.type, 'object');
  assert.equal(sent.tools[1]?.input_schema.$schema, undefined);

  const results: ToolResultBlockParam[] = await toolResultsFromToolUses(first.content, {
    tools: periscope.tools,
  });
  assert.deepEqual(
    results.map((block) => [block.type, block.tool_use_id, block.is_error]),
    [
      ['tool_result', 'toolu_image', false],
      ['tool_result', 'toolu_blocked', true],
      ['tool_result', 'toolu_search', false],
    ],
  );
  const [image, blocked, searched] = results as [
    ToolResultBlockParam,
    ToolResultBlockParam,
    ToolResultBlockParam,
  ];
  assert.deepEqual(
    (image.content as Array<{ type: string }>).map((block) => block.type),
    ['text', 'image'],
  );
  assert.deepEqual((image.content as Array<{ source?: unknown }>)[1]?.source, {
    type: 'base64',
    media_type: 'image/png',
    data: PNG.toString('base64'),
  });
  assert.match((blocked.content as Array<{ text: string }>)[0]?.text ?? '', /private, local or non-web/);
  assert.match((searched.content as Array<{ text: string }>)[0]?.text ?? '', /^Results for: brest harbour/);

  const second = await client.messages.create({
    ...params,
    messages: [
      ...messages,
      { role: 'assistant', content: first.content },
      { role: 'user', content: results },
    ],
  });
  assert.deepEqual(second.content[0], { type: 'text', text: 'A harbour.' });
  const resent = JSON.parse(api.calls[1]?.body ?? '{}') as { messages: Array<{ content: unknown }> };
  assert.deepEqual(resent.messages.at(-1)?.content, JSON.parse(JSON.stringify(results)));
});

test('an image type Claude does not read stays described in text only', () => {
  const block = toolResultBlock('toolu_x', {
    isError: false,
    output: 'An image (image/x-icon, 16×16).',
    data: { image: { mimeType: 'image/x-icon', base64: 'AAAA', width: 16, height: 16 } },
  });
  assert.deepEqual(block, {
    type: 'tool_result',
    tool_use_id: 'toolu_x',
    content: [{ type: 'text', text: 'An image (image/x-icon, 16×16).' }],
    is_error: false,
  });
});
