import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';

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
  /** Kill it (SIGTERM) if it has not exited by then: a command that should fail at once must not hang the test. */
  timeoutMs?: number;
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
  return runProgram(process.execPath, args, options);
}

/** Runs `command <args>` with exactly `options.env`, stdin given then closed, and collects what it printed. */
export function runProgram(
  command: string,
  args: readonly string[],
  options: RunCliOptions,
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
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
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => child.kill('SIGTERM'), options.timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? '');
  });
}

/** A `periscope serve` child process that has printed its URL. */
export interface Served {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** `periscope serve --port 0 <args>` as a child process, resolved once it prints its URL (rejected if it exits first). */
export function startServe(
  args: readonly string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    cwd: options.cwd,
    env: options.env,
  });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const url = /Periscope gateway on (http:\/\/\S+)/.exec(stdout)?.[1];
      if (url) resolve({ child, url, stdout: () => stdout, stderr: () => stderr, exited });
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    exited.then((code) => reject(new Error(`serve exited with ${code} before listening: ${stderr}`)));
  });
}

export interface InProcessOptions {
  cwd: string;
  env?: Record<string, string>;
  /** What the CLI is told about stderr: a terminal (progress lines) or a pipe or file. */
  stderrIsTerminal?: boolean;
}

/**
 * Runs `periscope <args>` inside this process through the CLI's io layer (the same `main` the binary calls), with
 * a bare environment like `runCli`'s, and collects what it printed: for checks that need to tell the CLI what
 * stderr is (a terminal or not) without a pseudo-terminal.
 */
export async function runCliInProcess(args: readonly string[], options: InProcessOptions): Promise<CliRun> {
  const { main } = await import('../../src/surfaces/cli/main.ts');
  const stdout = collector();
  const stderr = collector();
  const code = await main([...args], {
    stdout: stdout.stream,
    stderr: stderr.stream,
    stdin: Readable.from([]),
    env: { PATH: process.env.PATH ?? '', HOME: options.cwd, ...options.env },
    cwd: options.cwd,
    stderrIsTerminal: options.stderrIsTerminal ?? false,
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

function collector(): { stream: Writable; text(): string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      chunks.push(String(chunk));
      callback();
    },
  });
  return { stream, text: () => chunks.join('') };
}
