// People in the loop (src/egress/before-call-check.ts): the library's beforeCall hook and the
// egress.beforeCallWebhook, each asked to allow or refuse a call before it runs; a real local webhook server.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { PeriscopeConfigInput } from '../config/schema.ts';
import { isPeriscopeError, type ToolErrorData } from '../errors.ts';
import { createPeriscope, type Periscope } from '../index.ts';
import type { SearchProvider } from '../search/types.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import type { ToolResult } from '../tool-call.ts';
import type { BeforeCallContext, BeforeCallHook, BeforeCallInfo } from './before-call-check.ts';
import type { EgressCheck } from './egress-check.ts';

function errorOf(result: ToolResult): ToolErrorData | undefined {
  return result.isError ? (result.data as { error: ToolErrorData }).error : undefined;
}

function countedProvider(): SearchProvider & { asked: number; queries: string[] } {
  const provider = {
    id: 'counted',
    keyEnv: [],
    minIntervalMs: 0,
    asked: 0,
    queries: [] as string[],
    isConfigured: () => true,
    async search(request: { query: string }) {
      provider.asked += 1;
      provider.queries.push(request.query);
      return { results: [{ title: 'Tides', url: 'https://tides.example/', snippet: 'tides' }] };
    },
  };
  return provider;
}

function open(
  options: {
    beforeCall?: BeforeCallHook;
    webhook?: NonNullable<PeriscopeConfigInput['egress']>['beforeCallWebhook'];
    limits?: PeriscopeConfigInput['limits'];
    provider?: SearchProvider;
    egressChecks?: EgressCheck[];
  } = {},
): Periscope {
  return createPeriscope(
    {
      search: { chain: ['counted'] },
      cache: { enabled: false },
      ...(options.webhook ? { egress: { beforeCallWebhook: options.webhook } } : {}),
      ...(options.limits ? { limits: options.limits } : {}),
    },
    {
      env: {},
      providers: [options.provider ?? countedProvider()],
      ...(options.beforeCall ? { beforeCall: options.beforeCall } : {}),
      ...(options.egressChecks ? { egressChecks: options.egressChecks } : {}),
    },
  );
}

describe('the library hook', () => {
  test('it sees the call and who makes it; allowing (or saying nothing) lets the call run', async () => {
    const seen: Array<[BeforeCallInfo, BeforeCallContext]> = [];
    const provider = countedProvider();
    const later: string[] = [];
    const periscope = open({
      provider,
      egressChecks: [{ name: 'later', checkCall: (call) => void later.push(String(call.input.query)) }],
      beforeCall: (call, context) => {
        seen.push([call, context]);
        const quiet = call.input.query === 'quiet';
        (call.input as Record<string, unknown>).query = 'rewritten by the hook';
        return quiet ? undefined : { allow: true };
      },
    });
    try {
      const options = { agentId: 'a1', sessionId: 's1', egress: { budget: { maxCredits: 9 } } };
      assert.equal((await periscope.search({ query: 'tides', count: 3 }, options)).isError, false);
      assert.equal((await periscope.search({ query: 'quiet' })).isError, false);
      assert.equal(provider.asked, 2);
      assert.deepEqual(provider.queries, ['tides', 'quiet']);
      assert.deepEqual(
        later,
        ['tides', 'quiet'],
        'the hook cannot rewrite the call: it gets a copy of the input',
      );
      (seen[0]?.[0].input as Record<string, unknown>).query = 'tides';
      assert.deepEqual(seen[0], [
        { tool: 'web_search', input: { query: 'tides', count: 3 } },
        { agentId: 'a1', sessionId: 's1', egress: { budget: { maxCredits: 9 } } },
      ]);
      assert.deepEqual(seen[1]?.[1], { agentId: 'default', sessionId: undefined, egress: {} });
    } finally {
      await periscope.close();
    }
  });

  test('a refusal is POLICY_DENIED hook with its reason for the model; nothing is sent or charged', async () => {
    const provider = countedProvider();
    const periscope = open({
      provider,
      limits: { credits: { enabled: true } },
      beforeCall: async (call) =>
        call.input.query === 'payroll'
          ? { allow: false, reason: 'HR data needs\n a person to approve it' }
          : undefined,
    });
    try {
      await periscope.credits.grant('a2', 10);
      const result = await periscope.search({ query: 'payroll' }, { agentId: 'a2' });
      const error = errorOf(result);
      assert.equal(error?.code, 'POLICY_DENIED');
      assert.deepEqual(error?.details, { by: 'hook', reason: 'hook', check: 'before-call' });
      assert.equal(error?.retryable, false);
      assert.match(
        result.output,
        /^The person or program overseeing these calls refused this one \(the reason follows\); retrying will not help[^\n]*\nError POLICY_DENIED: the beforeCall hook refused the call: HR data needs a person to approve it$/,
      );
      assert.equal(provider.asked, 0, 'the provider was not asked');
      assert.equal(await periscope.credits.balance('a2'), 10, 'nothing charged');
    } finally {
      await periscope.close();
    }
  });

  test('a hook that throws or answers nonsense refuses (fail closed)', async () => {
    let answer: () => unknown = () => {
      throw new Error('approval service down');
    };
    const periscope = open({ beforeCall: () => answer() as undefined });
    try {
      const threw = errorOf(await periscope.search({ query: 'tides' }));
      assert.equal(threw?.details?.reason, 'hook');
      assert.equal(threw?.details?.failure, 'threw');
      assert.doesNotMatch(threw?.message ?? '', /approval service down/, "the hook's own error is not shown");
      answer = () => ({ allow: 'yes' });
      assert.equal(errorOf(await periscope.search({ query: 'tides' }))?.details?.failure, 'malformed');
    } finally {
      await periscope.close();
    }
  });

  test('it comes after the budget: never asked about a call the budget refuses, and a refusal gives the budget back', async () => {
    let refuse = true;
    let asked = 0;
    const periscope = open({
      limits: { session: { maxCalls: { web_search: 1 } } },
      beforeCall: () => {
        asked += 1;
        return refuse ? { allow: false, reason: 'not yet' } : undefined;
      },
    });
    try {
      const session = { sessionId: 'loop' };
      assert.equal(errorOf(await periscope.search({ query: 'one' }, session))?.details?.reason, 'hook');
      refuse = false;
      assert.equal(
        (await periscope.search({ query: 'two' }, session)).isError,
        false,
        'the budget was given back',
      );
      assert.equal(errorOf(await periscope.search({ query: 'three' }, session))?.details?.reason, 'budget');
      assert.equal(asked, 2, 'not asked about the call the budget refused');
    } finally {
      await periscope.close();
    }
  });
});

describe('the webhook (egress.beforeCallWebhook), a real server on 127.0.0.1', () => {
  let approver: TestServer;
  let answer: (body: Record<string, unknown>) => { status: number; body: string; delayMs?: number };
  before(async () => {
    approver = await startTestServer({
      'POST /approve': async (_request, response, raw) => {
        const reply = answer(JSON.parse(raw) as Record<string, unknown>);
        if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
        if (!response.destroyed)
          response.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body);
      },
    });
  });
  after(() => approver.close());

  const webhook = (extra: Record<string, unknown> = {}) => ({
    url: `${approver.url}/approve`,
    headers: { Authorization: 'Bearer approve-token' },
    ...extra,
  });
  const allow = () => ({ status: 200, body: JSON.stringify({ allow: true }) });

  test('allow: the call runs; the webhook got the call as JSON with the configured headers', async () => {
    answer = allow;
    const provider = countedProvider();
    const periscope = open({ provider, webhook: webhook() });
    try {
      const before = approver.calls.length;
      const result = await periscope.search({ query: 'tides' }, { agentId: 'a3', sessionId: 's3' });
      assert.equal(result.isError, false, result.output);
      assert.equal(provider.asked, 1);
      const [asked] = approver.calls.slice(before);
      assert.equal(asked?.headers.authorization, 'Bearer approve-token');
      assert.equal(asked?.headers['content-type'], 'application/json');
      assert.deepEqual(JSON.parse(asked?.body ?? ''), {
        tool: 'web_search',
        input: { query: 'tides' },
        agentId: 'a3',
        sessionId: 's3',
      });
    } finally {
      await periscope.close();
    }
  });

  test('deny with a reason: POLICY_DENIED hook, the reason shown to the model, nothing sent', async () => {
    answer = (body) =>
      (body.input as { query: string }).query.includes('salary')
        ? {
            status: 200,
            body: JSON.stringify({ allow: false, reason: 'Salaries are off limits for this team.' }),
          }
        : allow();
    const provider = countedProvider();
    const periscope = open({ provider, webhook: webhook() });
    try {
      const result = await periscope.search({ query: 'salary bands' });
      const error = errorOf(result);
      assert.equal(error?.code, 'POLICY_DENIED');
      assert.deepEqual(error?.details, { by: 'webhook', reason: 'hook', check: 'before-call' });
      assert.match(
        result.output,
        /\nError POLICY_DENIED: the approval webhook refused the call: Salaries are off limits for this team\.$/,
      );
      assert.equal(provider.asked, 0);
      assert.equal((await periscope.search({ query: 'tides' })).isError, false);
    } finally {
      await periscope.close();
    }
  });

  for (const onFailure of ['deny', 'allow'] as const) {
    test(`no answer within timeoutMs, an error status, a non-decision: onFailure ${onFailure} decides`, async () => {
      const provider = countedProvider();
      const periscope = open({ provider, webhook: webhook({ timeoutMs: 300, onFailure }) });
      try {
        const failures = [
          {
            failure: 'timeout',
            reply: () => ({ status: 200, body: JSON.stringify({ allow: false }), delayMs: 1500 }),
          },
          { failure: 'status', reply: () => ({ status: 500, body: JSON.stringify({ allow: true }) }) },
          { failure: 'malformed', reply: () => ({ status: 200, body: 'yes please' }) },
          { failure: 'malformed', reply: () => ({ status: 200, body: JSON.stringify({ allowed: true }) }) },
        ];
        for (const { failure, reply } of failures) {
          answer = reply;
          const started = performance.now();
          const result = await periscope.search({ query: `tides ${failure}` });
          const elapsed = performance.now() - started;
          if (failure === 'timeout')
            assert.ok(elapsed < 1400, `waited ${Math.round(elapsed)} ms, not the 1500`);
          if (onFailure === 'allow') {
            assert.equal(result.isError, false, `${failure}: ${result.output}`);
          } else {
            const error = errorOf(result);
            assert.equal(error?.details?.reason, 'hook', failure);
            assert.equal(error?.details?.failure, failure);
            assert.match(
              error?.message ?? '',
              /egress\.beforeCallWebhook\.onFailure is deny, so the call was refused$/,
            );
          }
        }
        assert.equal(provider.asked, onFailure === 'allow' ? 4 : 0);
      } finally {
        await periscope.close();
      }
    });
  }

  test('an unreachable webhook is a failure too; the URL may be a private or local address, never another scheme', async () => {
    const closed = await startTestServer(() => undefined);
    const url = `${closed.url}/approve`;
    await closed.close();
    const periscope = open({ webhook: { url } });
    try {
      assert.equal(errorOf(await periscope.search({ query: 'tides' }))?.details?.failure, 'unreachable');
    } finally {
      await periscope.close();
    }
    assert.throws(
      () => open({ webhook: { url: 'file:///etc/approve' } }),
      (error) => isPeriscopeError(error) && error.code === 'CONFIG_INVALID',
    );
  });

  test('the hook is asked first; both must allow', async () => {
    answer = () => ({ status: 200, body: JSON.stringify({ allow: false, reason: 'webhook says no' }) });
    const before = approver.calls.length;
    const periscope = open({
      webhook: webhook(),
      beforeCall: (call) =>
        call.input.query === 'hook' ? { allow: false, reason: 'hook says no' } : undefined,
    });
    try {
      assert.match(errorOf(await periscope.search({ query: 'hook' }))?.message ?? '', /hook says no/);
      assert.equal(approver.calls.length, before, 'the webhook is not asked about a call the hook refused');
      assert.match(errorOf(await periscope.search({ query: 'other' }))?.message ?? '', /webhook says no/);
    } finally {
      await periscope.close();
    }
  });
});
