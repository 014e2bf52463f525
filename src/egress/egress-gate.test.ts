// The egress gate (src/egress/egress-gate.ts): the one place checks run, before a call is counted or charged and
// before each request it sends. These tests use checks of their own; the built-in ones have their own files.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ERROR_REASONS } from '../error-reasons.ts';
import { isPeriscopeError, type ToolErrorData } from '../errors.ts';
import { createPeriscope } from '../index.ts';
import type { LookupFunction } from '../net/types.ts';
import type { SearchProvider } from '../search/types.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';
import { egressCall } from '../tools/egress-call.ts';
import {
  type EgressCheck,
  type EgressRequest,
  type EgressVerdict,
  POLICY_DENIED_REASONS,
} from './egress-check.ts';
import { createEgressGate } from './egress-gate.ts';

const PAGE = `<!doctype html><html><head><title>Tides</title></head><body><main>${'<p>High tide at Brest is at 06:12 and 18:40 today; the coefficient is 95.</p>'.repeat(6)}</main></body></html>`;

function errorOf(result: { data?: unknown }): ToolErrorData {
  return (result.data as { error: ToolErrorData }).error;
}

test('POLICY_DENIED_REASONS lists the reasons of src/error-reasons.ts', () => {
  assert.deepEqual([...POLICY_DENIED_REASONS], Object.keys(ERROR_REASONS.POLICY_DENIED));
});

describe('the gate', () => {
  const call = egressCall('web_search', { query: 'tides' }, {});

  test('checks run in order; the first denial wins and releases what earlier checks hold', async () => {
    const ran: string[] = [];
    let released = 0;
    const named = (name: string, verdict: () => EgressVerdict): EgressCheck => ({
      name,
      checkCall: () => {
        ran.push(name);
        return verdict();
      },
    });
    const gate = createEgressGate([
      named('holder', () => ({ release: async () => void released++ })),
      named('refuser', () => ({ reason: 'budget', message: 'no more' })),
      named('never', () => undefined),
    ]);
    await assert.rejects(gate.admit(call), (error) => {
      assert.ok(isPeriscopeError(error));
      assert.equal(error.code, 'POLICY_DENIED');
      assert.equal(error.retryable, false);
      assert.deepEqual(error.details, { reason: 'budget', check: 'refuser' });
      return true;
    });
    assert.deepEqual(ran, ['holder', 'refuser']);
    assert.equal(released, 1);
  });

  test('a pass releases its holds once, and settle reaches every check', async () => {
    let released = 0;
    const settled: string[] = [];
    const gate = createEgressGate([
      {
        name: 'holder',
        checkCall: () => ({ release: async () => void released++ }),
        afterCall: (_call, result) => void settled.push(`holder:${result.isError}`),
      },
      { name: 'broken', afterCall: () => Promise.reject(new Error('a recorder failed')) },
    ]);
    const pass = await gate.admit(call);
    await pass.release();
    await pass.release();
    assert.equal(released, 1);
    await pass.settle({ isError: false, output: '' }, { refundable: false });
    assert.deepEqual(settled, ['holder:false']);
  });

  test('the request check refuses with the checking rule named', async () => {
    const gate = createEgressGate([
      {
        name: 'no-redirects',
        checkRequest: (request) =>
          request.purpose === 'redirect' ? { reason: 'domain', message: 'not there' } : undefined,
      },
    ]);
    const check = gate.requestCheck(call);
    await check({ url: new URL('https://a.example/'), purpose: 'page' });
    await assert.rejects(check({ url: new URL('https://b.example/'), purpose: 'redirect' }), /not there/);
  });
});

describe('the gate in createPeriscope', () => {
  let origin: TestServer;
  before(async () => {
    origin = await startTestServer({
      '/start': (_request, response) => {
        response.writeHead(302, { location: `http://elsewhere.test:${origin.port}/target` }).end();
      },
      '/target': (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
      },
      '/tides': (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
      },
    });
  });
  after(() => origin.close());

  const lookup: LookupFunction = async (hostname) => {
    if (hostname.endsWith('.test')) return [{ address: '127.0.0.1', family: 4 }];
    throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  };
  let asked = 0;
  const provider: SearchProvider = {
    id: 'counted',
    keyEnv: [],
    minIntervalMs: 0,
    isConfigured: () => true,
    async search() {
      asked += 1;
      return { results: [{ title: 'Tides', url: 'https://tides.test/', snippet: 'tides' }] };
    },
  };
  const config = {
    network: { allowPrivateNetwork: ['127.0.0.1/32'] },
    fetch: { robots: 'ignore' as const, chain: ['local' as const] },
    search: { chain: ['counted'] },
    limits: { credits: { enabled: true } },
  };

  test('a refused call sends nothing, is not charged, and the model reads what to do instead', async () => {
    const refuser: EgressCheck = {
      name: 'refuser',
      checkCall: (call) =>
        call.tool === 'web_search'
          ? { reason: 'budget', message: 'this session has searched enough' }
          : undefined,
    };
    const periscope = createPeriscope(config, {
      env: {},
      lookup,
      providers: [provider],
      egressChecks: [refuser],
    });
    try {
      await periscope.credits.grant('a1', 10);
      const before = asked;
      const result = await periscope.search({ query: 'tides' }, { agentId: 'a1' });
      assert.equal(result.isError, true);
      assert.equal(errorOf(result).code, 'POLICY_DENIED');
      assert.equal(errorOf(result).details?.reason, 'budget');
      assert.match(result.output, /budget for this tool is used up; retrying will not help/);
      assert.equal(asked, before, 'the provider was not asked');
      assert.equal(await periscope.credits.balance('a1'), 10, 'nothing charged');
      const usage = await periscope.usage({ agentId: 'a1' });
      assert.equal(usage.totals.errors.POLICY_DENIED, 1);
    } finally {
      await periscope.close();
    }
  });

  test('what a check holds is given back when the rate limit refuses the call after it', async () => {
    let held = 0;
    const holder: EgressCheck = {
      name: 'holder',
      checkCall: () => {
        held += 1;
        return {
          release: async () => {
            held -= 1;
          },
        };
      },
    };
    const periscope = createPeriscope(
      { ...config, limits: { rate: { perAgent: { count: 1, windowMs: 60_000 } } } },
      { env: {}, lookup, providers: [provider], egressChecks: [holder] },
    );
    try {
      assert.equal((await periscope.search({ query: 'one' })).isError, false);
      const second = await periscope.search({ query: 'two' });
      assert.equal(errorOf(second).code, 'RATE_LIMITED');
      assert.equal(held, 1, 'the first call keeps its hold, the refused one gave it back');
    } finally {
      await periscope.close();
    }
  });

  test('a redirect hop the request check refuses is never sent, and the call is refunded', async () => {
    const seen: EgressRequest[] = [];
    const elsewhere: EgressCheck = {
      name: 'elsewhere',
      checkRequest: (request) => {
        seen.push(request);
        return request.url.hostname === 'elsewhere.test'
          ? { reason: 'domain', message: `elsewhere.test is not allowed` }
          : undefined;
      },
    };
    const periscope = createPeriscope(config, {
      env: {},
      lookup,
      providers: [provider],
      egressChecks: [elsewhere],
    });
    try {
      await periscope.credits.grant('a2', 10);
      const calls = origin.calls.length;
      const result = await periscope.fetch(
        { url: `http://start.test:${origin.port}/start` },
        { agentId: 'a2' },
      );
      const error = errorOf(result);
      assert.equal(error.code, 'POLICY_DENIED', result.output);
      assert.equal(error.details?.reason, 'domain');
      assert.match(String(error.details?.redirectFrom), /start\.test/);
      assert.deepEqual(
        origin.calls.slice(calls).map((call) => call.url.pathname),
        ['/start'],
        'the target was never requested',
      );
      assert.deepEqual(
        seen.map((request) => `${request.purpose} ${request.url.hostname}`),
        ['page start.test', 'redirect elsewhere.test'],
      );
      assert.equal(await periscope.credits.balance('a2'), 10, 'refunded');
      // The same page without the redirect passes.
      const fine = await periscope.fetch(
        { url: `http://start.test:${origin.port}/tides` },
        { agentId: 'a2' },
      );
      assert.equal(fine.isError, false, fine.output);
    } finally {
      await periscope.close();
    }
  });
});
