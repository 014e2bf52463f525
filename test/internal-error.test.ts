// A bug in Periscope (or in code it runs: a custom provider, a custom resolver, a tool) is INTERNAL: never
// blamed on the site, never told to retry, and refunded — the agent's request was not the problem.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import type { ToolErrorData } from '../src/errors.ts';
import { createPeriscope } from '../src/index.ts';
import { createCallPolicy } from '../src/policy/call-policy.ts';
import type { SearchProvider } from '../src/search/types.ts';
import { createLazyStore } from '../src/store/lazy-store.ts';
import { openStore } from '../src/store/open-store.ts';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import type { ToolResult } from '../src/tool-call.ts';
import type { Tool } from '../src/tools/tool.ts';
import { runToolCalls } from '../src/tools/tool-runner.ts';

let pages: TestServer;
before(async () => {
  pages = await startTestServer((_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html' }).end('<article><p>never reached</p></article>'),
  );
});
after(() => pages.close());

const errorOf = (result: ToolResult) => (result.data as { error: ToolErrorData }).error;

function assertInternal(result: ToolResult): ToolErrorData {
  assert.equal(result.isError, true);
  const error = errorOf(result);
  assert.equal(error.code, 'INTERNAL', result.output);
  assert.equal(error.retryable, false, 'a bug of ours is not the site failing');
  assert.match(result.output, /^Periscope failed internally \(not the site/);
  assert.doesNotMatch(result.output, /could not be reached/);
  return error;
}

test('web_search: a provider that throws a TypeError is INTERNAL, not NETWORK', async () => {
  const buggy: SearchProvider = {
    id: 'buggy',
    keyEnv: [],
    minIntervalMs: 0,
    isConfigured: () => true,
    search: async () => {
      const answer = undefined as unknown as { results: unknown[] };
      return answer.results as never;
    },
  };
  const periscope = createPeriscope({ search: { chain: ['buggy'] } }, { env: {}, providers: [buggy] });
  // A forced provider's failure is passed on as the provider gave it: INTERNAL keeps `retryable: false`.
  const error = assertInternal(await periscope.search({ query: 'tides' }, { provider: 'buggy' }));
  assert.match(error.message, /TypeError/);
  await periscope.close();
});

test('web_fetch: a resolver that throws a TypeError is INTERNAL (not "could not be resolved"), and refunded', async () => {
  const periscope = createPeriscope(
    {
      network: { allowPrivateNetwork: ['127.0.0.1/32', 'pages.test'] },
      fetch: { robots: 'ignore' },
      cache: { enabled: false },
      limits: { credits: { enabled: true } },
    },
    {
      env: {},
      lookup: async () => {
        throw new TypeError("Cannot read properties of undefined (reading 'address')");
      },
    },
  );
  await periscope.credits.grant('agent', 10);
  const result = await periscope.fetch({ url: `http://pages.test:${pages.port}/` }, { agentId: 'agent' });
  assertInternal(result);
  assert.equal(pages.calls.length, 0);
  assert.equal(await periscope.credits.balance('agent'), 10, 'an internal failure is refunded');
  assert.match(result.display ?? '', / · refunded$/);
  await periscope.close();
});

const brokenTool = (execute: Tool['execute']): Tool => ({
  name: 'web_fetch',
  description: 'broken',
  inputSchema: z.object({ url: z.string() }) as unknown as z.ZodType<unknown>,
  jsonSchema: {},
  execute,
});

test('runToolCalls: a tool that throws a TypeError is an INTERNAL result', async () => {
  const tool = brokenTool(async () => {
    throw new TypeError('x is not a function');
  });
  const [call] = await runToolCalls([{ id: '1', name: 'web_fetch', input: { url: 'https://a.example/' } }], {
    tools: [tool],
  });
  assertInternal(call!.result);
});

test('the call policy: a failed result without an error object counts as INTERNAL, and is refunded', async () => {
  const store = await openStore('memory:');
  const periscope = createPeriscope({ limits: { credits: { enabled: true } } }, { env: {}, store });
  const { limits, cache, usage } = periscope.config;
  const policy = createCallPolicy({ limits, cache, usage, store: createLazyStore(store) });
  await periscope.credits.grant('agent', 10);
  const guarded = policy.guard(
    brokenTool(async () => ({ isError: true, output: 'it broke', display: 'fetch a.example' })),
  );
  const result = await guarded.execute({ url: 'https://a.example/' }, { agentId: 'agent' });
  assert.equal(result.isError, true);
  assert.equal(await periscope.credits.balance('agent'), 10, 'refunded');
  assert.equal(result.display, 'fetch a.example · refunded');
  await policy.flush(); // usage is counted in memory until the policy's next flush (usage.flushIntervalMs)
  const day = await periscope.usage();
  assert.deepEqual(
    day.rows.map((row) => row.errors),
    [{ INTERNAL: 1 }],
  );
  await periscope.close();
  await store.close();
});
