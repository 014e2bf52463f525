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
    | { kind: 'debit-forever'; agent: string };
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
export async function runWorkersTogether<RESULT>(specs: WorkerSpec[]): Promise<RESULT[]> {
  return runScriptsTogether(WORKER, specs);
}

/** `runWorkersTogether` for any worker script. */
export async function runScriptsTogether<RESULT>(script: string, specs: unknown[]): Promise<RESULT[]> {
  const workers = specs.map((spec) => spawnWorker(script, spec));
  await Promise.all(workers.map((worker) => worker.waitFor((lines) => lines.includes('ready'))));
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
