// The MCP surface as a client sees it, the same over stdio and Streamable HTTP: the official SDK client against a
// real server whose providers and pages are local stand-ins (test/support/stand-in.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { openEnvelope } from '../src/testing/envelope.ts';
import { PNG, type StandIn, withTimeout } from './support/stand-in.ts';

export { configFor, type StandIn, startStandIn, writeConfig } from './support/stand-in.ts';

function text(result: CallToolResult): string {
  const first = result.content[0];
  assert.equal(first?.type, 'text');
  return (first as { text: string }).text;
}

async function call(client: Client, name: string, input: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: input })) as CallToolResult;
}

/** The scenarios every MCP transport passes. `connect` gives a client to a server offering every tool. */
export function mcpToolSuite(transport: string, fixture: () => { client: Client; standIn: StandIn }): void {
  test(`${transport}: lists the three tools with schemas, descriptions for models and annotations`, async () => {
    const { tools } = await fixture().client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['image_search', 'web_fetch', 'web_search']);
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, 'object');
      assert.equal(tool.outputSchema?.type, 'object');
      assert.equal(tool.annotations?.readOnlyHint, true);
      assert.equal(tool.annotations?.openWorldHint, true);
      assert.match(tool.description ?? '', /untrusted/);
    }
    const fetchTool = tools.find((tool) => tool.name === 'web_fetch');
    // url or urls, exactly one: neither is required by the schema (the tool names what is missing).
    assert.equal(fetchTool?.inputSchema.required, undefined);
    assert.ok(fetchTool?.inputSchema.properties && 'urls' in fetchTool.inputSchema.properties);
    assert.match(fetchTool?.description ?? '', /startIndex/);
    assert.match(fetchTool?.description ?? '', /after web_search/);
  });

  test(`${transport}: web_search answers from the provider stand-in, with structuredContent`, async () => {
    const { client, standIn } = fixture();
    const result = await call(client, 'web_search', { query: `tides ${transport}` });
    assert.equal(result.isError, false);
    const envelope = openEnvelope(text(result));
    assert.equal(envelope.before, `Results for: tides ${transport}\n\n`);
    assert.equal(
      envelope.body,
      `1. About tides ${transport}\n   https://tides.example/brest\n   High tide 06:12`,
    );
    assert.equal(envelope.after, '');
    const data = result.structuredContent as { provider: string; results: unknown[] };
    assert.equal(data.provider, 'brave');
    assert.equal(data.results.length, 1);
    const braveCall = standIn.server.calls.findLast((recorded) =>
      recorded.url.pathname.endsWith('/web/search'),
    );
    assert.equal(braveCall?.headers['x-subscription-token'], 'stand-in-key');
  });

  test(`${transport}: image_search answers from the provider stand-in`, async () => {
    const result = await call(fixture().client, 'image_search', { query: `harbour ${transport}` });
    assert.equal(result.isError, false);
    assert.match(text(result), /^Image results for: harbour/);
    assert.match(openEnvelope(text(result)).body, /https:\/\/photos\.example\/brest\.jpg/);
    const data = result.structuredContent as { results: Array<{ imageUrl: string }> };
    assert.equal(data.results[0]?.imageUrl, 'https://photos.example/brest.jpg');
  });

  test(`${transport}: web_fetch reads a page as untrusted content`, async () => {
    const { client, standIn } = fixture();
    const result = await call(client, 'web_fetch', { url: `${standIn.url}/article?via=${transport}` });
    assert.equal(result.isError, false, text(result));
    assert.match(text(result), /High tide in Brest is at 06:12/);
    assert.match(text(result), /untrusted/i);
    // Some clients give the model structuredContent instead of content: it holds no page text outside the
    // envelope. Its text is the enveloped output; the title is in the envelope's header, not a field of its own.
    const data = result.structuredContent as {
      title?: string;
      status: number;
      untrusted: boolean;
      text: string;
    };
    assert.equal(data.status, 200);
    assert.equal(data.untrusted, true);
    assert.equal(data.text, text(result));
    assert.match(
      data.text,
      /^<<<untrusted_web_content id="[0-9a-f]+"[^\n]*>>>\nTitle: Tide tables of Brest\n/,
    );
    assert.equal(data.title, undefined);
  });

  test(`${transport}: failures are isError results carrying the model's sentence`, async () => {
    const { client } = fixture();
    const blocked = await call(client, 'web_fetch', { url: 'http://169.254.169.254/latest/meta-data/' });
    assert.equal(blocked.isError, true);
    assert.match(text(blocked), /private, local or non-web address/);
    assert.equal(blocked.structuredContent, undefined);
    const invalid = await call(client, 'web_search', { count: 3 });
    assert.equal(invalid.isError, true);
    assert.match(text(invalid), /query/);
    const unknown = await call(client, 'web_browse', { url: 'https://example.com' });
    assert.equal(unknown.isError, true);
    assert.match(text(unknown), /no tool named web_browse/);
  });

  test(`${transport}: an image comes back as MCP image content after the text`, async () => {
    const { client, standIn } = fixture();
    const result = await call(client, 'web_fetch', { url: `${standIn.url}/image.png?via=${transport}` });
    assert.equal(result.isError, false, text(result));
    assert.equal(result.content.length, 2);
    const image = result.content[1] as { type: string; data: string; mimeType: string };
    assert.equal(image.type, 'image');
    assert.equal(image.mimeType, 'image/png');
    assert.deepEqual(Buffer.from(image.data, 'base64'), PNG);
    const data = result.structuredContent as { image: Record<string, unknown> };
    assert.equal(data.image.mimeType, 'image/png');
    assert.equal(data.image.base64, undefined, 'the bytes are sent once, in the image block');
  });

  test(`${transport}: progress notifications when the client sends a progress token`, async () => {
    const { client, standIn } = fixture();
    // What arrives on the wire, in order. (The SDK client runs a notification's handler a microtask after a
    // response read in the same chunk, when it has already dropped the progress handler: under load `onprogress`
    // can miss the last notification, so the order is checked here, at the transport.)
    const wire: Array<{ method?: string; id?: unknown; params?: Record<string, unknown> }> = [];
    const clientTransport = client.transport as Transport;
    const deliver = clientTransport.onmessage;
    clientTransport.onmessage = (message, extra) => {
      wire.push(message as (typeof wire)[number]);
      deliver?.(message, extra);
    };
    const updates: Array<{ progress: number; total?: number | undefined; message?: string | undefined }> = [];
    try {
      const result = await client.callTool(
        { name: 'web_fetch', arguments: { url: `${standIn.url}/article?progress=${transport}` } },
        undefined,
        { onprogress: (update) => updates.push(update) },
      );
      assert.equal(result.isError, false);
    } finally {
      clientTransport.onmessage = deliver;
    }
    assert.equal(updates[0]?.message, 'web_fetch started', JSON.stringify(updates));
    const notes = wire.filter((message) => message.method === 'notifications/progress');
    const responseAt = wire.findIndex((message) => message.id !== undefined && message.method === undefined);
    assert.ok(notes.length >= 2, JSON.stringify(wire));
    assert.ok(
      wire.indexOf(notes.at(-1) as (typeof wire)[number]) < responseAt,
      'every notification before the result',
    );
    assert.equal(notes[0]?.params?.message, 'web_fetch started');
    const last = notes.at(-1)?.params;
    assert.equal(last?.message, 'web_fetch done');
    assert.equal(last?.total, last?.progress);
    for (let index = 1; index < notes.length; index += 1) {
      assert.ok(
        Number(notes[index]?.params?.progress) > Number(notes[index - 1]?.params?.progress),
        'progress increases',
      );
    }
  });

  test(`${transport}: cancelling a call closes the upstream connection`, async () => {
    const { client } = fixture();
    const hang = fixture().standIn.hang();
    const controller = new AbortController();
    const pending = client.callTool({ name: 'web_fetch', arguments: { url: hang.url } }, undefined, {
      signal: controller.signal,
    });
    await hang.started;
    controller.abort('the user changed their mind');
    await assert.rejects(pending);
    await withTimeout(hang.closed, 5000, 'the stand-in connection was not closed after cancellation');
    // the session goes on working
    const after = await call(client, 'web_search', { query: `after cancel ${transport}` });
    assert.equal(after.isError, false);
  });
}
