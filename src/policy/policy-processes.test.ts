// Two real processes on one SQLite file, and on one Redis, share one rate limit and one credit balance through the
// tools (createPeriscope in each child, calls to a search stand-in in this process).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openStore } from '../store/open-store.ts';
import type { PolicyWorkerSpec } from '../testing/policy-worker.ts';
import { type RedisTestServer, redisTestGate, startRedisServer } from '../testing/redis-server.ts';
import { startSearchStandIn } from '../testing/search-stand-in.ts';
import { runScriptsTogether } from '../testing/store-processes.ts';
import type { TestServer } from '../testing/test-server.ts';

const WORKER = fileURLToPath(new URL('../testing/policy-worker.ts', import.meta.url));

let searchServer: TestServer;
before(async () => {
  searchServer = await startSearchStandIn();
});
after(() => searchServer.close());

type Codes = { codes: Record<string, number> };

function sum(results: Codes[], code: string): number {
  return results.reduce((total, result) => total + (result.codes[code] ?? 0), 0);
}

/**
 * Agent `rated` makes 25 image searches per process against one rate limit of 30 an hour; agent `paying` makes 25
 * web searches per process against one balance of 30 credits at 1 each. Together: exactly 30 of each get through.
 */
async function sharedLimits(storeUrl: string): Promise<void> {
  const store = await openStore(storeUrl);
  await store.ledgerApply('paying', { delta: 30, reason: 'grant', requireNonNegative: false });
  const spec = (name: string): PolicyWorkerSpec => ({
    storeUrl,
    searchUrl: searchServer.url,
    name,
    limits: {
      rate: { perTool: { image_search: { count: 30, windowMs: 3_600_000 } } },
      credits: { enabled: true, cost: { web_search: 1, image_search: 0 } },
    },
    tasks: [
      { agentId: 'rated', tool: 'image_search', calls: 25 },
      { agentId: 'paying', tool: 'web_search', calls: 25 },
    ],
  });
  const before = searchServer.calls.length;
  const results = await runScriptsTogether<Codes>(WORKER, [spec('first'), spec('second')]);
  const shown = JSON.stringify(results);
  assert.equal(sum(results, 'rated ok'), 30, shown);
  assert.equal(sum(results, 'rated RATE_LIMITED'), 20, shown);
  assert.equal(sum(results, 'paying ok'), 30, shown);
  assert.equal(sum(results, 'paying CREDITS_EXHAUSTED'), 20, shown);
  assert.equal(searchServer.calls.length - before, 60);
  assert.equal(await store.balance('paying'), 0);
  const ledger = await store.ledger('paying');
  assert.equal(ledger.filter((entry) => entry.reason === 'charge').length, 30);
  assert.equal(await store.rebuildBalance('paying'), 0);
  await store.close();
}

describe('two processes share one rate limit and one balance', () => {
  test('on one SQLite file', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'periscope-processes-'));
    try {
      await sharedLimits(`sqlite://${join(folder, 'state.db')}`);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  const { skip } = redisTestGate();
  test('on one Redis', { skip }, async () => {
    const redis: RedisTestServer = await startRedisServer();
    try {
      await sharedLimits(redis.url);
    } finally {
      await redis.stop();
    }
  });
});
