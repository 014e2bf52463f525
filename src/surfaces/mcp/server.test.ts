import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { z } from 'zod';
import type { Tool, ToolExecuteOptions } from '../../tools/tool.ts';
import { createMcpServer, type McpCallEvent } from './server.ts';

// The server over the SDK's in-memory transport pair, with small tools of our own: what the tool is given and what
// becomes of what it reports.

function searchTool(execute: Tool['execute']): Tool {
  return {
    name: 'web_search',
    description: 'test tool',
    inputSchema: z.object({ query: z.string() }),
    jsonSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' },
    execute,
  };
}

async function connect(tool: Tool, events: McpCallEvent[] = [], progressIntervalMs?: number) {
  const server = createMcpServer({
    tools: [tool],
    agentId: 'agent-x',
    onResult: (event) => events.push(event),
    ...(progressIntervalMs === undefined ? {} : { progressIntervalMs }),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientSide);
  return client;
}

const ok = {
  isError: false,
  output: 'fine',
  data: { query: 'q', provider: 'p', results: [], attempts: [], cached: false, warnings: [] },
};

test('the tool gets the abort signal, the agent and one session id for the whole connection', async () => {
  const seen: ToolExecuteOptions[] = [];
  const events: McpCallEvent[] = [];
  const client = await connect(
    searchTool(async (_input, options = {}) => {
      seen.push(options);
      return ok;
    }),
    events,
  );
  await client.callTool({ name: 'web_search', arguments: { query: 'a' } });
  await client.callTool({ name: 'web_search', arguments: { query: 'b' } });
  assert.ok(seen[0]?.signal instanceof AbortSignal);
  assert.equal(seen[0]?.agentId, 'agent-x');
  assert.equal(typeof seen[0]?.sessionId, 'string');
  assert.equal(seen[1]?.sessionId, seen[0]?.sessionId);
  assert.equal(seen[0]?.onProgress, undefined, 'no progress token, no progress');
  assert.deepEqual(
    events.map((event) => [event.tool, event.agentId, event.sessionId, event.result.output]),
    [
      ['web_search', 'agent-x', seen[0]?.sessionId, 'fine'],
      ['web_search', 'agent-x', seen[0]?.sessionId, 'fine'],
    ],
  );
  const { tools } = await client.listTools();
  assert.equal(tools[0]?.inputSchema.$schema, undefined, 'no dialect line in the schema sent');
  await client.close();
});

test("the tool's own progress reports are forwarded between start and finish, always increasing", async () => {
  const client = await connect(
    searchTool(async (_input, options = {}) => {
      options.onProgress?.({ progress: 1, total: 3, message: 'brave answered' });
      options.onProgress?.({ progress: 1, total: 3 });
      return ok;
    }),
  );
  const updates: Array<{ progress: number; total?: number | undefined; message?: string | undefined }> = [];
  await client.callTool({ name: 'web_search', arguments: { query: 'a' } }, undefined, {
    onprogress: (update) => updates.push(update),
  });
  assert.deepEqual(updates, [
    { progress: 0, message: 'web_search started' },
    { progress: 1, message: 'brave answered' },
    { progress: 2, message: 'web_search: 1 of 3' },
    { progress: 3, total: 3, message: 'web_search done' },
  ]);
  await client.close();
});

test('a long call sends "still running" notifications while it runs, and none after it ends', async () => {
  let finish = () => {};
  const client = await connect(
    searchTool(async () => {
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
      return ok;
    }),
    [],
    20,
  );
  const updates: Array<{ progress: number; total?: number | undefined; message?: string | undefined }> = [];
  const call = client.callTool({ name: 'web_search', arguments: { query: 'a' } }, undefined, {
    onprogress: (update) => updates.push(update),
  });
  while (updates.length < 3) await new Promise((resolve) => setTimeout(resolve, 10));
  finish();
  await call;
  const count = updates.length;
  assert.equal(updates[0]?.message, 'web_search started');
  assert.match(updates[1]?.message ?? '', /^web_search running \(\d+ s\)$/);
  assert.deepEqual(updates.at(-1), { progress: count - 1, total: count - 1, message: 'web_search done' });
  assert.deepEqual(
    updates.map((update) => update.progress),
    updates.map((_, index) => index),
  );
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.equal(updates.length, count, 'the heartbeat stops with the call');
  await client.close();
});

test('a tool that rejects (against its contract) still gives an isError result', async () => {
  const client = await connect(
    searchTool(async () => {
      throw new Error('wrapper bug');
    }),
  );
  const result = (await client.callTool({ name: 'web_search', arguments: { query: 'a' } })) as {
    isError: boolean;
    content: Array<{ text: string }>;
  };
  assert.equal(result.isError, true);
  assert.ok(result.content[0]?.text);
  await client.close();
});
