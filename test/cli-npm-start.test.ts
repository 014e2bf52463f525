// `npm start`, then a signal to npm's pid, as a process manager sends it: the signal must reach `periscope serve`,
// which drains and exits, and the port must be free once npm has exited. npm 11 runs a script through `sh -c`;
// without `exec` in the script the shell is npm's child, dies of the signal, and leaves the server running.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Bound for the start and for the drain; the server takes a few seconds on a quiet machine, far less than this. */
const BOUND_MS = 90_000;

/** Whether something accepts connections on 127.0.0.1:port. */
async function listening(port: number): Promise<boolean> {
  const socket = connect(port, '127.0.0.1');
  try {
    await once(socket, 'connect');
    return true;
  } catch {
    return false;
  } finally {
    socket.destroy();
  }
}

/** Pids of processes whose command line names `marker` (the test's own config file): a server left behind. */
function processesNaming(marker: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`npm start, then ${signal} to npm's pid: the server drains and exits, and the port is free`, async (t) => {
    const folder = mkdtempSync(join(tmpdir(), 'periscope-npm-start-'));
    const config = join(folder, 'periscope-npm-start.json');
    writeFileSync(config, '{}\n');
    t.after(() => {
      for (const pid of processesNaming(config)) process.kill(pid, 'SIGKILL'); // only what this test started
    });
    const npm = spawn('npm', ['start', '--', '--port', '0', '--workers', '1', '--config', config], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: folder, XDG_STATE_HOME: join(folder, 'state') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    npm.stdout.on('data', (chunk) => {
      output += chunk;
    });
    npm.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const exited = once(npm, 'exit');
    const started = AbortSignal.timeout(BOUND_MS);
    let port: number | undefined;
    while (port === undefined) {
      port = Number(/gateway on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1]) || undefined;
      if (started.aborted) assert.fail(`no banner within ${BOUND_MS} ms:\n${output}`);
      if (npm.exitCode !== null) assert.fail(`npm start exited ${npm.exitCode}:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(await listening(port), 'the server listens once its banner is printed');

    npm.kill(signal);
    await Promise.race([
      exited,
      new Promise((_, reject) => AbortSignal.timeout(BOUND_MS).addEventListener('abort', reject)),
    ]);
    assert.equal(await listening(port), false, `port ${port} still held after npm exited:\n${output}`);
    assert.deepEqual(processesNaming(config), [], 'no periscope serve left running');
    assert.match(output, new RegExp(`${signal}: stopping`));
  });
}
