// periscope/langchain invoked as LangChain invokes tools: `tool.invoke(toolCall)` → ToolMessage with the output as
// content and the ToolResult data as artifact.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ToolMessage } from '@langchain/core/messages';
import { createPeriscope, type Periscope } from '../src/index.ts';
import { type CitedPassage, langchainTools, passagesOf } from '../src/surfaces/adapters/langchain.ts';
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

function toolNamed(name: string) {
  const found = langchainTools(periscope, { session: 'thread-1' }).find(
    (candidate) => candidate.name === name,
  );
  assert.ok(found, name);
  return found;
}

test('structured tools with the tools’ names, descriptions and zod schemas', () => {
  const tools = langchainTools(periscope);
  assert.deepEqual(
    tools.map((candidate) => candidate.name),
    ['web_fetch', 'web_search', 'image_search'],
  );
  const search = tools[1];
  assert.equal(search?.description, periscope.tools[1]?.description);
  assert.equal(search?.responseFormat, 'content_and_artifact');
  assert.equal(search?.schema, periscope.tools[1]?.inputSchema);
});

test('a tool call → ToolMessage: output as content, data as artifact', async () => {
  const message = await toolNamed('web_search').invoke({
    name: 'web_search',
    args: { query: 'brest tides' },
    type: 'tool_call',
    id: 'call_lc_1',
  });
  assert.ok(message instanceof ToolMessage);
  assert.equal(message.tool_call_id, 'call_lc_1');
  assert.equal(message.status, 'success');
  assert.match(String(message.content), /^Results for: brest tides/);
  assert.equal((message.artifact as { provider: string }).provider, 'brave');
});

test('a failed call → ToolMessage with status error, the model sentence as content', async () => {
  const message = await toolNamed('web_fetch').invoke({
    name: 'web_fetch',
    args: { url: 'http://10.1.2.3/' },
    type: 'tool_call',
    id: 'call_lc_2',
  });
  assert.ok(message instanceof ToolMessage);
  assert.equal(message.status, 'error');
  assert.equal(message.tool_call_id, 'call_lc_2');
  assert.equal(typeof message.content, 'string');
  assert.match(String(message.content), /private, local or non-web address/);
  assert.equal((message.artifact as { error: { code: string } }).error.code, 'URL_BLOCKED');
});

test('an image → content blocks: the text, then a standard image block', async () => {
  const message = await toolNamed('web_fetch').invoke({
    name: 'web_fetch',
    args: { url: `${standIn.url}/image.png?langchain` },
    type: 'tool_call',
    id: 'call_lc_3',
  });
  assert.ok(message instanceof ToolMessage);
  const blocks = message.content as Array<Record<string, string>>;
  assert.equal(blocks[0]?.type, 'text');
  assert.deepEqual(blocks[1], { type: 'image', mimeType: 'image/png', data: PNG.toString('base64') });
  assert.equal((message.artifact as { image: { mimeType: string } }).image.mimeType, 'image/png');
});

test('invoked with plain arguments, a tool returns the content alone', async () => {
  const content = await toolNamed('web_fetch').invoke({ url: `${standIn.url}/article?langchain` });
  assert.match(String(content), /High tide in Brest is at 06:12/);
});

test('web_fetch with passages: the artifact carries them with their locations and citations', async () => {
  // The model's call: web_fetch with `query` (and `maxChars`), run by the real tool.
  const fetchTool = periscope.tools.find((candidate) => candidate.name === 'web_fetch');
  assert.ok(fetchTool);
  const [tool] = langchainTools([fetchTool]);
  assert.ok(tool);
  const url = `${standIn.url}/article?langchain-passages`;
  const args = { url, query: 'walkers on the foreshore', maxChars: 300 };
  const message = await tool.invoke({ name: 'web_fetch', args, type: 'tool_call', id: 'call_lc_p' });
  assert.ok(message instanceof ToolMessage);
  assert.equal(message.status, 'success');
  const passages: CitedPassage[] = passagesOf(message.artifact);
  const answer = passages.find((passage) => passage.text.includes('Walkers on the foreshore'));
  assert.equal(answer?.heading, 'Tide tables of Brest');
  const document = ((await fetchTool.execute({ url })).data as { text: string }).text;
  for (const passage of passages) {
    assert.equal(passage.text, document.slice(passage.start, passage.end));
    assert.deepEqual(
      [passage.citation.start, passage.citation.end, passage.citation.quote],
      [passage.start, passage.end, passage.text],
    );
  }
  assert.match(String(message.content), /^<<<untrusted_web_content id=/);
});
