// The console's per-minute counts: what the overview charts over the last hour and the last day.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CallFacts, createCallStats, MINUTES_KEPT } from './call-stats.ts';

const MINUTE = 60_000;
const START = 1_000_000 * MINUTE; // a minute boundary

function call(time: number, extra: Partial<CallFacts> = {}): CallFacts {
  return { time, outcome: 'ok', ms: 100, cached: false, credits: 1, ...extra };
}

test('the last hour by minute: calls, errors by code, p50/p95, cache hit rate and credits', () => {
  let now = START + 30_000;
  const stats = createCallStats({ now: () => now });
  for (let ms = 1; ms <= 20; ms += 1) stats.add(call(START + 1000, { ms: ms * 10, cached: ms % 4 === 0 }));
  stats.add(call(START + 2000, { outcome: 'TIMEOUT', ms: 5, credits: 0 }));
  now += 30_000; // the next minute has begun: the calls are in the minute before it
  const hour = stats.query('hour');
  assert.equal(hour.steps.length, 60);
  assert.equal(hour.stepMinutes, 1);
  assert.equal(hour.calls, 21);
  assert.equal(hour.errors, 1);
  assert.deepEqual(hour.errorsByCode, { TIMEOUT: 1 });
  assert.equal(hour.latencyMs.p50, 100, 'nearest rank, on a histogram bound');
  assert.equal(
    hour.latencyMs.p95,
    200,
    'the bucket (150, 200] holds the 20th of 21: its bound, the slowest call',
  );
  assert.equal(hour.cacheHitRate, 5 / 21);
  assert.equal(hour.credits, 20);
  assert.equal(hour.steps[58]?.calls, 21);
  assert.equal(hour.steps[58]?.start, START);
  assert.equal(hour.steps[59]?.calls, 0, 'the current minute');
  assert.equal(hour.steps[57]?.p50, null, 'no calls: no latency');
  assert.equal(hour.steps[58]?.errors, 1);
});

test('the last day by quarter hour, and counts older than a day are gone (the slots are reused)', () => {
  let now = START;
  const stats = createCallStats({ now: () => now });
  stats.add(call(START - 3 * 60 * MINUTE, { credits: 4, ms: 1234 })); // three hours ago
  stats.add(call(START, { credits: 2, ms: 7 }));
  const day = stats.query('day');
  assert.equal(day.steps.length, 96);
  assert.equal(day.stepMinutes, 15);
  assert.equal(day.calls, 2);
  assert.equal(day.credits, 6);
  assert.equal(day.steps.at(-1)?.calls, 1, 'the last quarter hour holds the current minute');
  assert.equal(
    day.steps.reduce((sum, step) => sum + step.calls, 0),
    2,
  );
  assert.equal(stats.query('hour').calls, 1, 'three hours ago is outside the hour');
  assert.equal(day.latencyMs.p95, 1234, 'held to the slowest call seen');
  now = START + MINUTES_KEPT * MINUTE; // a day later
  assert.equal(stats.query('day').calls, 0, 'a day old: not counted');
  stats.add(call(now)); // reuses the slot of START's minute
  assert.equal(stats.query('day').calls, 1);
  assert.equal(stats.query('day').credits, 1, 'the old minute was cleared, not added to');
});
