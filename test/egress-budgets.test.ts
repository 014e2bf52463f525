// A gateway API key's own session budget (keys create --session-max-calls, POST /v1/admin/keys { session }):
// held on REST calls of one Periscope-Session and on the calls of one MCP session, only ever narrower.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ToolErrorData } from '../src/errors.ts';
import { createPeriscope } from '../src/index.ts';
import { createApiKey } from '../src/keys/api-keys.ts';
import type { SearchProvider } from '../src/search/types.ts';
import { createMemoryStore } from '../src/store/memory-store.ts';
import { createGateway } from '../src/surfaces/gateway/gateway.ts';
import { mountMcp } from '../src/surfaces/gateway/mount-mcp.ts';
import { httpCall } from '../src/testing/http-call.ts';

const provider: SearchProvider & { asked: number } = {
  id: 'counted',
  keyEnv: [],
  minIntervalMs: 0,
  asked: 0,
  isConfigured: () => true,
  async search() {
    provider.asked += 1;
    return { results: [{ title: 'Tides', url: 'https://tides.example/', snippet: 'tides' }] };
  },
};

test("a key's session budget holds on REST (per Periscope-Session) and MCP (per MCP session), and only narrows", async () => {
  const store = createMemoryStore();
  const periscope = createPeriscope(
    {
      search: { chain: ['counted'] },
      cache: { enabled: false },
      limits: { session: { maxCalls: { web_search: 3 } } },
      gateway: { port: 0 },
    },
    { store, env: {}, providers: [provider] },
  );
  const gateway = createGateway({ periscope, mcp: mountMcp, version: '0.0.0-test' });
  try {
    const admin = (await createApiKey(store, { agent: 'ops', admin: true })).key;
    const { url } = await gateway.listen();
    const headers = (key: string, session?: string) => ({
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      ...(session ? { 'periscope-session': session } : {}),
    });
    const made = await httpCall(`${url}/v1/admin/keys`, {
      headers: headers(admin),
      body: JSON.stringify({ agent: 'bot', session: { maxCalls: { web_search: 2 } } }),
    });
    assert.equal(made.status, 201, made.text);
    const created = made.json as { key: string; record: { session: unknown } };
    assert.deepEqual(created.record.session, { maxCalls: { web_search: 2 } });
    const refusedBody = await httpCall(`${url}/v1/admin/keys`, {
      headers: headers(admin),
      body: JSON.stringify({ agent: 'bot', session: { maxCalls: { web_search: -2 } } }),
    });
    assert.equal(refusedBody.status, 400, refusedBody.text);

    const search = async (key: string, query: string, session?: string) => {
      const response = await httpCall(`${url}/v1/tools/web_search`, {
        headers: headers(key, session),
        body: JSON.stringify({ query }),
      });
      const data = (response.json as { data?: { error?: ToolErrorData } }).data;
      return data?.error ? `${data.error.code} ${data.error.details?.reason ?? ''}`.trim() : 'ok';
    };
    assert.equal(await search(created.key, 'one', 't1'), 'ok');
    assert.equal(await search(created.key, 'two', 't1'), 'ok');
    assert.equal(await search(created.key, 'three', 't1'), 'POLICY_DENIED budget');
    assert.equal(await search(created.key, 'one', 't2'), 'ok', 'another session has its own budget');
    // The admin key has no budget of its own: the deployment's 3 hold.
    for (const query of ['a', 'b', 'c']) assert.equal(await search(admin, query, 't1'), 'ok');
    assert.equal(await search(admin, 'd', 't1'), 'POLICY_DENIED budget');

    // Over MCP: one MCP session is one session.
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import(
      '@modelcontextprotocol/sdk/client/streamableHttp.js'
    );
    const client = new Client({ name: 'budget-test', version: '1.0.0' });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${created.key}` } },
        }),
      );
      const call = async (query: string) =>
        (await client.callTool({ name: 'web_search', arguments: { query } })) as {
          isError?: boolean;
          content: Array<{ text?: string }>;
        };
      assert.notEqual((await call('m1')).isError, true);
      assert.notEqual((await call('m2')).isError, true);
      const third = await call('m3');
      assert.equal(third.isError, true);
      assert.match(
        third.content[0]?.text ?? '',
        /Error POLICY_DENIED: this session may make 2 web_search calls, and has used 2 \(the caller's session budget/,
      );
    } finally {
      await client.close();
    }
  } finally {
    await gateway.close();
    await periscope.close();
  }
});
