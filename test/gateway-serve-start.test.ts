// `periscope serve --workers 2` as a user starts it: it says at once that it is starting the workers (rather than
// nothing until all of them listen), starts both together (the second no longer waits for the first to listen: that
// made the start-up three processes' module loading, one after the other), and its banner names the console.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { BIN } from './support/run-cli.ts';

const folder = mkdtempSync(join(tmpdir(), 'periscope-serve-start-'));
after(() => rmSync(folder, { recursive: true, force: true }));

/** A port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ host: '127.0.0.1', port: 0 }, () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** The child processes of `pid` (Linux). */
const childrenOf = (pid: number): string[] =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);

/** Whether something listens on 127.0.0.1:`port` (Linux: the kernel's socket table, no connection made). */
function listening(port: number): boolean {
  const hex = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .some((line) => line.trim().split(/\s+/)[1] === hex && line.trim().split(/\s+/)[3] === '0A');
}

test('serve --workers 2: "starting 2 workers" at once, both started before either listens, the banner names /console', {
  skip: process.platform === 'linux' ? false : 'reads /proc (Linux)',
}, async () => {
  const config = join(folder, 'periscope.config.json');
  writeFileSync(config, JSON.stringify({ store: { url: `sqlite://${join(folder, 'state.db')}` } }));
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [BIN, 'serve', '--workers', '2', '--port', String(port), '--config', config],
    {
      cwd: folder,
      env: { PATH: process.env.PATH ?? '', HOME: folder, XDG_STATE_HOME: folder },
    },
  );
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let stdout = '';
  let stderr = '';
  /** What had been printed when the starting line came. */
  let bannerBeforeStarting: boolean | undefined;
  const starting = new Promise<void>((resolve) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (bannerBeforeStarting === undefined && /starting 2 workers/.test(stderr)) {
        bannerBeforeStarting = stdout.includes('Periscope gateway on');
        resolve();
      }
    });
  });
  const banner = new Promise<void>((resolve) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (/Ctrl-C stops it/.test(stdout)) resolve();
    });
  });
  let stopped = false;
  try {
    // Rejects if serve ends before the test stops it.
    const ended = exited.then((code) => {
      if (!stopped) throw new Error(`serve exited with ${code}: ${stderr}`);
    });
    ended.catch(() => {});
    const bannerFirst = banner.then(() => {
      if (bannerBeforeStarting === undefined)
        throw new Error(`the banner came with no starting line before it: ${stderr}`);
    });
    await Promise.race([starting, bannerFirst, ended]);
    assert.equal(bannerBeforeStarting, false, 'the starting line comes before the banner');
    // Both workers are forked together: the second is there while the first is still loading (seconds), before
    // anything listens on the port. One after the other, the second was forked only once the first listened.
    const primary = child.pid as number;
    let workers = childrenOf(primary);
    while (workers.length < 2) {
      await Promise.race([new Promise((resolve) => setTimeout(resolve, 10)), ended]);
      workers = childrenOf(primary);
    }
    assert.equal(listening(port), false, 'two workers started before either listens');
    await Promise.race([banner, ended]);
    const url = `http://127.0.0.1:${port}`;
    assert.match(stdout, new RegExp(`^  console  ${url}/console `, 'm'), stdout);
    const answer = await fetch(`${url}/console`);
    assert.equal(answer.status, 200, 'the console the banner names is served');
    await answer.text();
  } finally {
    stopped = true;
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0, stderr);
  assert.match(stderr, /^periscope: starting 2 workers…$/m);
});
