// A child process for the multi-process store tests (spawned by store-processes.ts, never imported).
// Usage: node store-worker.ts '<WorkerSpec JSON>'. It prints `ready`, waits for a `go` line on stdin, then works.
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { isPeriscopeError } from '../errors.ts';
import { openStore } from '../store/open-store.ts';
import { createRedisStore } from '../store/redis-store.ts';
import type { Store } from '../store/store.ts';
import type { WorkerSpec } from './store-processes.ts';

const spec = JSON.parse(process.argv[2] ?? '{}') as WorkerSpec;

function open(): Promise<Store> {
  if (spec.store.kind === 'sqlite') return openStore(`sqlite://${spec.store.path}`);
  return createRedisStore({ url: spec.store.url, keyPrefix: spec.store.keyPrefix });
}

function print(line: string): void {
  process.stdout.write(`${line}\n`); // synchronous for pipes on Linux: once printed, it happened before
}

async function waitForGo(): Promise<void> {
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    if (line.trim() === 'go') break;
  }
  lines.close();
  process.stdin.destroy();
}

/** Consumes one unit and debits one credit per attempt, in a few concurrent lanes; reports the totals. */
async function hammer(store: Store, task: Extract<WorkerSpec['task'], { kind: 'hammer' }>): Promise<void> {
  let allowed = 0;
  const ids: string[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next++ < task.attempts) {
      if ((await store.consume(task.key, 1, task.limit, task.windowMs)).allowed) allowed++;
      const debit = await store.ledgerApply(task.agent, {
        delta: -1,
        tool: 'web_fetch',
        reason: `reserve by ${task.name}`,
        requireNonNegative: true,
      });
      if (debit.applied) ids.push(debit.entry.id);
    }
  };
  await Promise.all(Array.from({ length: task.lanes }, lane));
  print(JSON.stringify({ allowed, ids }));
}

/** Debits one credit at a time until killed, printing each committed entry's id. */
async function debitForever(store: Store, agent: string): Promise<void> {
  for (;;) {
    const debit = await store.ledgerApply(agent, { delta: -1, reason: 'reserve', requireNonNegative: true });
    if (!debit.applied) {
      print('exhausted');
      return;
    }
    print(`committed ${debit.entry.id}`);
  }
}

/** Takes turns in a few lanes (reserve until granted, hold, release); reports each turn's span. */
async function turns(store: Store, task: Extract<WorkerSpec['task'], { kind: 'turns' }>): Promise<void> {
  const spans: Array<[number, number]> = [];
  const clock = () => performance.timeOrigin + performance.now();
  let next = 0;
  const reserve = { intervalMs: task.intervalMs, maxConcurrent: task.maxConcurrent, leaseMs: 30_000 };
  const lane = async (): Promise<void> => {
    while (next++ < task.turns) {
      for (;;) {
        const outcome = await store.turn(task.key, { reserve });
        if (outcome.outcome !== 'granted') {
          // wait: until the next start is due; busy: poll.
          const waitMs = 'waitMs' in outcome ? outcome.waitMs : 5;
          await sleep(outcome.outcome === 'busy' ? Math.min(waitMs, 5) : waitMs);
          continue;
        }
        const start = clock();
        await sleep(task.holdMs);
        spans.push([start, clock()]);
        await store.turn(task.key, { release: outcome.lease });
        break;
      }
    }
  };
  await Promise.all(Array.from({ length: task.lanes }, lane));
  print(JSON.stringify({ spans }));
}

try {
  const store = await open();
  print('ready');
  await waitForGo();
  if (spec.task.kind === 'hammer') await hammer(store, spec.task);
  else if (spec.task.kind === 'turns') await turns(store, spec.task);
  else await debitForever(store, spec.task.agent);
  await store.close();
} catch (error) {
  const code = isPeriscopeError(error) ? error.code : 'UNEXPECTED';
  print(`error ${code} ${error instanceof Error ? error.message : String(error)}`);
  process.exit(3); // a Redis client would otherwise keep reconnecting
}
