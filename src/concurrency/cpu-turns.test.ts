import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CPU_TURN_BUDGET_MS, inCpuTurn } from './cpu-turns.ts';

function busy(ms: number): void {
  const started = performance.now();
  while (performance.now() - started < ms) {}
}

test('steps run in order, each resolving with its own result or rejecting with its own error', async () => {
  const order: number[] = [];
  const results = await Promise.allSettled([
    inCpuTurn(() => {
      order.push(1);
      return 'one';
    }),
    inCpuTurn(() => {
      order.push(2);
      throw new Error('two broke');
    }),
    inCpuTurn(async () => {
      order.push(3);
      return 'three';
    }),
  ]);
  assert.deepEqual(order, [1, 2, 3]);
  assert.deepEqual(
    results.map((result) =>
      result.status === 'fulfilled' ? result.value : (result.reason as Error).message,
    ),
    ['one', 'two broke', 'three'],
  );
});

test('a burst of steps is cut into turns of about the budget, and the loop polls between them', async () => {
  // 12 steps of 2 ms: in one turn they would hold the loop 24 ms; in turns of 5 ms, other work (here a chain of
  // immediates standing for sockets being read and connections accepted) runs between them.
  const stepMs = 2;
  let between = 0;
  let done = false;
  const tick = () => {
    if (done) return;
    between++;
    setImmediate(tick);
  };
  const ends: number[] = [];
  const steps = Array.from({ length: 12 }, () =>
    inCpuTurn(() => {
      busy(stepMs);
      ends.push(between);
    }),
  );
  setImmediate(tick);
  await Promise.all(steps);
  done = true;
  const turns = new Set(ends).size;
  const perTurn = Math.ceil(CPU_TURN_BUDGET_MS / stepMs) + 1;
  assert.ok(turns >= Math.ceil(12 / perTurn), `all 12 steps ran in ${turns} turn(s): ${ends.join(' ')}`);
  assert.ok(between >= 2, `the loop came round ${between} time(s) while the steps ran`);
});
