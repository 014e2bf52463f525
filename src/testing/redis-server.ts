import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A real `redis-server` on 127.0.0.1, started by a test and stopped by it. */
export interface RedisTestServer {
  /** `redis://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Its working directory (AOF files live here). */
  dir: string;
  /** The server process's id (changes on restart): for SIGSTOP/SIGCONT. */
  readonly pid: number;
  /** kill -9, as a crash. */
  kill(): Promise<void>;
  /** Starts it again on the same port and directory (after `kill`), reloading its append-only file if any. */
  restart(): Promise<void>;
  /** Stops it and removes its directory. */
  stop(): Promise<void>;
}

export interface RedisTestServerOptions {
  /** Append-only file with `appendfsync always`, so a kill -9 of the server loses no acknowledged write. */
  appendOnly?: boolean;
}

/**
 * Why Redis tests cannot run here, or false when they can. With PERISCOPE_REQUIRE_SERVICES=1 the caller must turn
 * a reason into a failure (see `redisTestGate`).
 */
export function redisUnavailableReason(): string | false {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0)
    return 'redis-server is not on PATH (Debian: apt-get install redis-server)';
  return false;
}

/**
 * `{ skip }` for `describe`/`test`: the reason to skip, or false. Throws instead when the environment requires
 * services (PERISCOPE_REQUIRE_SERVICES=1, as CI sets), so a missing redis-server fails the run.
 */
export function redisTestGate(): { skip: string | false } {
  const reason = redisUnavailableReason();
  if (reason !== false && process.env.PERISCOPE_REQUIRE_SERVICES === '1')
    throw new Error(`PERISCOPE_REQUIRE_SERVICES=1 but ${reason}`);
  return { skip: reason };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function launch(port: number, dir: string, appendOnly: boolean): Promise<ChildProcess> {
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--dir',
    dir,
    '--daemonize',
    'no',
  ];
  args.push('--appendonly', appendOnly ? 'yes' : 'no');
  if (appendOnly) args.push('--appendfsync', 'always');
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  guard(child);
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => fail(new Error(`redis-server did not start in 10 s:\n${output}`)), 10_000);
    const fail = (error: Error): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`redis-server exited with ${code}:\n${output}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.stdout.removeAllListeners('data');
        child.stdout.resume();
        resolve(child);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
  });
}

/**
 * A watchdog that kills the server when this process dies without stopping it (a crashed or killed test run):
 * `sh` waits for end of file on a pipe only this process holds open.
 */
function guard(child: ChildProcess): void {
  if (child.pid === undefined) return;
  const watchdog = spawn('sh', ['-c', `read _; kill -9 ${child.pid} 2>/dev/null`], {
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  watchdog.unref();
  (watchdog.stdin as unknown as { unref?: () => void }).unref?.();
  child.once('exit', () => watchdog.stdin.end());
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startRedisServer(options: RedisTestServerOptions = {}): Promise<RedisTestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'periscope-redis-'));
  const appendOnly = options.appendOnly ?? false;
  let port = 0;
  let child: ChildProcess | undefined;
  for (let attempt = 0; child === undefined; attempt++) {
    port = await freePort();
    try {
      child = await launch(port, dir, appendOnly);
    } catch (error) {
      if (attempt >= 2) throw error; // the port may have been taken between probe and bind: try another
    }
  }
  let current: ChildProcess = child;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    get pid() {
      return current.pid ?? 0;
    },
    async kill() {
      current.kill('SIGKILL');
      await exited(current);
    },
    async restart() {
      current = await launch(port, dir, appendOnly);
    },
    async stop() {
      current.kill('SIGKILL');
      await exited(current);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
