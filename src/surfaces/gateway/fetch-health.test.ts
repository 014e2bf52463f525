// The fetch chain's health as the console tracks it from web_fetch results.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ToolResult } from '../../tool-call.ts';
import { createFetchHealth } from './fetch-health.ts';

const ok = (attempts: unknown[], extra: Record<string, unknown> = {}): ToolResult => ({
  isError: false,
  output: 'page',
  data: { attempts, ...extra },
});

test('counts each rung of fresh web_fetch results; cached answers and other tools count for none', () => {
  let now = Date.UTC(2026, 0, 1);
  const health = createFetchHealth({ now: () => now });
  health.add('web_fetch', ok([{ backend: 'local', outcome: 'ok', ms: 3 }]));
  now += 1000;
  health.add('web_fetch', {
    isError: true,
    output: 'failed',
    data: {
      error: {
        code: 'TIMEOUT',
        details: {
          attempts: [
            {
              backend: 'local',
              outcome: 'failed',
              code: 'TIMEOUT',
              message: `slow ${'x'.repeat(1000)}`,
              ms: 9,
            },
            { backend: 'jina-reader', outcome: 'skipped', code: 'NOT_CONFIGURED', message: 'no key', ms: 0 },
          ],
        },
      },
    },
  });
  health.add('web_fetch', ok([{ backend: 'local', outcome: 'ok', ms: 3 }], { cached: true }));
  health.add('web_search', ok([{ backend: 'local', outcome: 'ok', ms: 3 }]));
  const seen = health.snapshot();
  assert.deepEqual(Object.keys(seen), ['local', 'jina-reader']);
  assert.equal(seen.local?.ok, 1);
  assert.equal(seen.local?.failed, 1);
  assert.equal(seen.local?.lastOkAt, '2026-01-01T00:00:00.000Z');
  assert.equal(seen.local?.lastFailure?.at, '2026-01-01T00:00:01.000Z');
  assert.equal(seen.local?.lastFailure?.code, 'TIMEOUT');
  assert.equal(seen.local?.lastFailure?.message.length, 300, 'messages are cut');
  assert.deepEqual(seen['jina-reader'], { ok: 0, failed: 0, skipped: 1, lastOkAt: null, lastFailure: null });
});

test('at most 32 back-ends are tracked, whatever the results name', () => {
  const health = createFetchHealth();
  for (let index = 0; index < 100; index += 1) {
    health.add('web_fetch', ok([{ backend: `b${index}`, outcome: 'ok', ms: 1 }]));
  }
  assert.equal(Object.keys(health.snapshot()).length, 32);
});

test('web_fetch with urls: each page counts for the back-ends it met', () => {
  const health = createFetchHealth();
  health.add('web_fetch', {
    isError: false,
    output: '',
    data: {
      results: [
        { ok: true, attempts: [{ backend: 'local', outcome: 'ok', ms: 3 }] },
        {
          ok: false,
          url: 'https://example.com/gone',
          error: {
            code: 'HTTP_STATUS',
            message: 'gone',
            retryable: false,
            details: { attempts: [{ backend: 'local', outcome: 'failed', ms: 2, code: 'HTTP_STATUS' }] },
          },
        },
      ],
    },
  });
  const { local } = health.snapshot();
  assert.deepEqual([local?.ok, local?.failed], [1, 1]);
});
