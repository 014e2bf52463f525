import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** What one store-worker.ts child does. */
export interface WorkerSpec {
  store: { kind: 'sqlite'; path: string } | { kind: 'redis'; url: string; keyPrefix: string };
  task:
    | {
        kind: 'hammer';
        name: string;
        key: string;
        limit: number;
        windowMs: number;
        agent: string;
        attempts: number;
        lanes: number;
      }
    | { kind: 'debit-forever'; agent: string }
    | {
        kind: 'turns';
        key: string;
        intervalMs: number;
        maxConcurrent: number;
        /** Turns to take, over `lanes` concurrent lanes; each holds its turn `holdMs`. */
        turns: number;
        lanes: number;
        holdMs: number;
      };
}

/** What a `turns` worker prints: each turn's [start, end] in epoch ms (fractional). */
export interface TurnSpans {
  spans: Array<[number, number]>;
}

/**
 * Checks turns taken by several processes together, after `goMs` (epoch ms): the k-th start is at least k intervals
 * after `goMs` (a bound that holds however late a process wakes; a gap between two starts does not, as one late
 * start shortens the next gap), and never more than `maxConcurrent` turns overlap. Returns the smallest gap seen
 * between the starts as the workers noticed their grants: not when any request left (a worker can notice its grant
 * late), which is what the pacing promise is about (src/search/shared-pacer.test.ts measures that).
 */
export function checkSharedTurns(
  results: TurnSpans[],
  goMs: number,
  intervalMs: number,
  maxConcurrent: number,
): { count: number; minGapMs: number; mostAtOnce: number } {
  const spans = results.flatMap((result) => result.spans).sort((a, b) => a[0] - b[0]);
  spans.forEach(([start], index) => {
    // 1 ms: the stores count whole milliseconds.
    if (start < goMs + index * intervalMs - 1)
      throw new Error(`turn ${index} started ${start - goMs} ms after go, before ${index} intervals`);
  });
  const events = spans.flatMap(([start, end]) => [
    [start, 1],
    [end, -1],
  ]);
  events.sort((a, b) => (a[0] as number) - (b[0] as number) || (a[1] as number) - (b[1] as number));
  let atOnce = 0;
  let mostAtOnce = 0;
  for (const [, change] of events) {
    atOnce += change as number;
    mostAtOnce = Math.max(mostAtOnce, atOnce);
  }
  if (mostAtOnce > maxConcurrent) throw new Error(`${mostAtOnce} turns at once, over ${maxConcurrent}`);
  const gaps = spans.slice(1).map(([start], index) => start - (spans[index] as [number, number])[0]);
  return { count: spans.length, minGapMs: Math.min(...gaps), mostAtOnce };
}

/** A running worker: its stdout lines so far, and ways to wait on it. */
export interface StoreWorker {
  child: ChildProcessWithoutNullStreams;
  lines: string[];
  /** Resolves when a line matching `predicate` has been printed (or rejects when the child exits first). */
  waitFor(predicate: (lines: string[]) => boolean, timeoutMs?: number): Promise<void>;
  go(): void;
  /** Resolves with the exit code (null when killed) once the child is gone and its output read. */
  exited: Promise<number | null>;
}

const WORKER = fileURLToPath(new URL('./store-worker.ts', import.meta.url));

export function spawnStoreWorker(spec: WorkerSpec): StoreWorker {
  return spawnWorker(WORKER, spec);
}

/** Spawns `script` (a worker that prints `ready`, waits for `go`, works, prints its result) with `spec` as JSON. */
export function spawnWorker(script: string, spec: unknown): StoreWorker {
  const child = spawn(process.execPath, [script, JSON.stringify(spec)], { stdio: 'pipe' });
  const lines: string[] = [];
  let stderr = '';
  let pending = '';
  const listeners = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    lines.push(...parts);
    for (const listener of listeners) listener();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => {
    child.on('close', (code) => {
      if (pending !== '') lines.push(pending);
      for (const listener of listeners) listener();
      resolve(code);
    });
  });
  let closed = false;
  void exited.then(() => {
    closed = true;
  });
  return {
    child,
    lines,
    exited,
    go: () => child.stdin.write('go\n'),
    waitFor(predicate, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => finish(new Error(`worker timed out; stdout:\n${lines.join('\n')}\n${stderr}`)),
          timeoutMs,
        );
        const finish = (error?: Error): void => {
          clearTimeout(timer);
          listeners.delete(check);
          if (error) reject(error);
          else resolve();
        };
        const check = (): void => {
          if (predicate(lines)) finish();
          else if (closed || child.exitCode !== null || child.signalCode !== null)
            finish(
              new Error(
                `worker exited (${child.exitCode ?? child.signalCode}):\n${lines.join('\n')}\n${stderr}`,
              ),
            );
        };
        listeners.add(check);
        check();
      });
    },
  };
}

/** Starts `specs` together (all ready, then all told to go) and returns each one's last stdout line as JSON. */
export async function runWorkersTogether<RESULT>(specs: WorkerSpec[], onGo?: () => void): Promise<RESULT[]> {
  return runScriptsTogether(WORKER, specs, onGo);
}

/** `runWorkersTogether` for any worker script. */
export async function runScriptsTogether<RESULT>(
  script: string,
  specs: unknown[],
  /** Called just before the workers are told to go. */
  onGo?: () => void,
): Promise<RESULT[]> {
  const workers = specs.map((spec) => spawnWorker(script, spec));
  await Promise.all(workers.map((worker) => worker.waitFor((lines) => lines.includes('ready'))));
  onGo?.();
  for (const worker of workers) worker.go();
  return Promise.all(
    workers.map(async (worker) => {
      const code = await worker.exited;
      const last = worker.lines.filter((line) => line !== '').at(-1) ?? '';
      if (code !== 0) throw new Error(`worker exited with ${code}: ${worker.lines.join('\n')}`);
      return JSON.parse(last) as RESULT;
    }),
  );
}
