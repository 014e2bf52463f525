// periscope/ai-sdk driven end to end by the AI SDK itself: generateText with the SDK's own test model, which calls
// the tools; the SDK validates the input with the tools' zod schemas, runs them, and sends the model output back.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createPeriscope, type Periscope } from '../src/index.ts';
import { aiSdkTools, type CitedPassage, passagesOf } from '../src/surfaces/adapters/ai-sdk.ts';
import type { ToolResult } from '../src/tool-call.ts';
import { configFor, PNG, type StandIn, startStandIn } from './support/stand-in.ts';

let standIn: StandIn;
let periscope: Periscope;

before(async () => {
  standIn = await startStandIn();
  periscope = createPeriscope(configFor(standIn) as never);
});

after(async () => {
  await standIn.close();
  await periscope.close();
});

type CallOptions = Parameters<MockLanguageModelV3['doGenerate']>[0];
type GenerateResult = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A model that first calls the given tools, then answers with the tool results it was sent. */
function scriptedModel(calls: Array<{ id: string; name: string; input: unknown }>) {
  return new MockLanguageModelV3({
    doGenerate: async (options: CallOptions): Promise<GenerateResult> => {
      const last = options.prompt.at(-1);
      if (last?.role === 'tool') {
        return {
          content: [{ type: 'text', text: 'done' }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage,
          warnings: [],
        };
      }
      return {
        content: calls.map((call) => ({
          type: 'tool-call' as const,
          toolCallId: call.id,
          toolName: call.name,
          input: JSON.stringify(call.input),
        })),
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      };
    },
  });
}

test('generateText runs the tools: ToolResult for the program, text / error-text / image for the model', async () => {
  const model = scriptedModel([
    { id: 'call_search', name: 'web_search', input: { query: 'brest tides' } },
    { id: 'call_image', name: 'web_fetch', input: { url: `${standIn.url}/image.png?ai-sdk` } },
    { id: 'call_blocked', name: 'web_fetch', input: { url: 'http://192.168.1.1/' } },
  ]);
  const result = await generateText({
    model,
    tools: aiSdkTools(periscope, { session: 'conversation-1', agentId: 'agent-ai' }),
    prompt: 'When is high tide in Brest?',
    stopWhen: stepCountIs(3),
  });
  assert.equal(result.text, 'done');

  const first = result.steps[0];
  const outputs = Object.fromEntries(
    (first?.toolResults ?? []).map((entry) => [entry.toolCallId, entry.output as ToolResult]),
  );
  assert.equal(outputs.call_search?.isError, false);
  assert.equal((outputs.call_search?.data as { provider: string } | undefined)?.provider, 'brave');
  assert.equal(outputs.call_blocked?.isError, true);

  // what the model was sent back, as the SDK put it in the second prompt
  const secondPrompt = model.doGenerateCalls[1]?.prompt ?? [];
  const toolParts = secondPrompt
    .filter((message) => message.role === 'tool')
    .flatMap((message) => message.content)
    .filter((part) => part.type === 'tool-result');
  const sent = Object.fromEntries(toolParts.map((part) => [part.toolCallId, part.output]));
  assert.equal(sent.call_search?.type, 'text');
  assert.match((sent.call_search as { value: string }).value, /^Results for: brest tides/);
  assert.equal(sent.call_blocked?.type, 'error-text');
  assert.match((sent.call_blocked as { value: string }).value, /private, local or non-web address/);
  assert.equal(sent.call_image?.type, 'content');
  const [text, image] = (sent.call_image as unknown as { value: Array<Record<string, string>> }).value;
  assert.equal(text?.type, 'text');
  assert.equal(image?.type, 'image-data');
  assert.equal(image?.mediaType, 'image/png');
  assert.equal(image?.data, PNG.toString('base64'));
});

test('the tools offer their zod schemas: input the schema refuses never reaches the tool', async () => {
  const model = scriptedModel([{ id: 'call_bad', name: 'web_search', input: { count: 3 } }]);
  const result = await generateText({
    model,
    tools: aiSdkTools(periscope),
    prompt: 'x',
    stopWhen: stepCountIs(2),
  });
  const error = result.steps[0]?.content.find((part) => part.type === 'tool-error');
  assert.ok(error, 'the SDK reports the invalid input as a tool error');
  assert.equal(result.steps[0]?.toolResults.length, 0);
});

test('web_fetch with passages: the program gets them typed with their locations and citations, the model the text', async () => {
  // The model's call: web_fetch with `query` (and `maxChars`), run by the real tool.
  const fetchTool = periscope.tools.find((candidate) => candidate.name === 'web_fetch');
  assert.ok(fetchTool);
  const url = `${standIn.url}/article?ai-sdk-passages`;
  const input = { url, query: 'walkers on the foreshore', maxChars: 300 };
  const model = scriptedModel([{ id: 'call_passages', name: 'web_fetch', input }]);
  const result = await generateText({
    model,
    tools: aiSdkTools([fetchTool]),
    prompt: 'Should walkers check the tide?',
    stopWhen: stepCountIs(2),
  });
  const output = result.steps[0]?.toolResults[0]?.output as ToolResult;
  const passages: CitedPassage[] = passagesOf(output.data);
  assert.ok(passages.length > 0);
  const plain = await fetchTool.execute({ url });
  const document = (plain.data as { text: string }).text;
  for (const passage of passages) {
    assert.equal(passage.text, document.slice(passage.start, passage.end));
    assert.equal(passage.citation.quote, passage.text);
    assert.equal(passage.citation.finalUrl, url);
    assert.match(passage.citation.contentHash, /^sha256:[0-9a-f]{64}$/);
  }
  const answer = passages.find((passage) => passage.text.includes('Walkers on the foreshore'));
  assert.equal(answer?.heading, 'Tide tables of Brest');
  // the model reads the output text, as for any result
  const sent = (model.doGenerateCalls[1]?.prompt ?? [])
    .filter((message) => message.role === 'tool')
    .flatMap((message) => message.content)
    .find((part) => part.type === 'tool-result');
  assert.deepEqual(sent?.output, { type: 'text', value: output.output });
});
