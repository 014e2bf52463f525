import { spawn } from 'node:child_process';

/** The `periscope` binary of this checkout, run as a user runs it. */
export const BIN = new URL('../../bin/periscope.js', import.meta.url).pathname;

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunCliOptions {
  cwd: string;
  env?: Record<string, string>;
  stdin?: string;
  /** Close the reading end of stdout at once, as `periscope … | head -0` does: the child's writes fail (EPIPE). */
  closeStdout?: boolean;
}

/**
 * Runs `periscope <args>` in a child process with a bare environment (PATH, and HOME = `cwd` so the default
 * state directory is the test's own), and collects what it printed.
 */
export function runCli(args: readonly string[], options: RunCliOptions): Promise<CliRun> {
  return runNode([BIN, ...args], {
    ...options,
    env: { PATH: process.env.PATH ?? '', HOME: options.cwd, ...options.env },
  });
}

/** Runs `node <args>` (this Node) with exactly `options.env`, stdin given then closed, and collects what it printed. */
export function runNode(args: readonly string[], options: RunCliOptions): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: options.cwd,
      env: options.env ?? {},
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    if (options.closeStdout) child.stdout.destroy();
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}
