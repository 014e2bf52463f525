/** What a command reads and writes; the real process by default, replaceable in tests. */
export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Whether stderr is a terminal a person watches: a call's progress line is redrawn there (progress.ts). */
  stderrIsTerminal: boolean;
}

export function processIo(): CliIo {
  exitQuietlyOnClosedPipe(process.stdout);
  exitQuietlyOnClosedPipe(process.stderr);
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    stderrIsTerminal: process.stderr.isTTY === true,
  };
}

const guarded = new WeakSet<NodeJS.WritableStream>();

/**
 * The reader went away (`periscope extract page.html | head -1`): stop at once, without a stack trace, as
 * other command-line tools do. Exit code 0 unless the command already failed: nobody is left to read a message.
 */
function exitQuietlyOnClosedPipe(stream: NodeJS.WritableStream): void {
  if (guarded.has(stream)) return;
  guarded.add(stream);
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}

export function writeLine(stream: NodeJS.WritableStream, text: string): void {
  stream.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** Rows as columns padded to their widest cell, two spaces apart. */
export function writeTable(stream: NodeJS.WritableStream, rows: readonly (readonly string[])[]): void {
  const widths = (rows[0] ?? []).map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0)));
  for (const row of rows) {
    writeLine(
      stream,
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    );
  }
}
