import { type CliIo, writeLine } from './io.ts';

/** How often the progress line is redrawn; also how long a call runs before it is first drawn (no flicker). */
export const PROGRESS_INTERVAL_MS = 200;

const ERASE_TO_END_OF_LINE = '\x1b[K';
const DEFAULT_COLUMNS = 80;

/**
 * Whether a call's progress is redrawn on stderr: only for a terminal that understands erase-line. A pipe or a
 * file (logs, CI) gets no redraws; neither does TERM=dumb. No colour is used, so NO_COLOR changes nothing.
 */
export function showsProgress(io: CliIo): boolean {
  return io.stderrIsTerminal && io.env.TERM !== 'dumb';
}

/** The calls running now, shown on one stderr line redrawn in place: `fetch example.com/page · 3.2 s`. */
export interface CallProgress {
  /** A call started. */
  begin(id: string, label: string): void;
  /** A call ended: the line is erased at once, so the caller's own line can follow on a clean line. */
  end(id: string): void;
  /** Stop redrawing and erase the line. */
  close(): void;
}

const QUIET: CallProgress = { begin() {}, end() {}, close() {} };

/**
 * One progress line for the calls in flight: the oldest with its seconds, then how many more. Redrawn every
 * PROGRESS_INTERVAL_MS with a carriage return and erase-to-end-of-line, cut to the terminal's width so it never
 * wraps. Without a terminal (`showsProgress`), it does nothing.
 */
export function createCallProgress(io: CliIo, intervalMs = PROGRESS_INTERVAL_MS): CallProgress {
  if (!showsProgress(io)) return QUIET;
  const running = new Map<string, { label: string; startedMs: number }>();
  let timer: NodeJS.Timeout | undefined;
  let drawn = false;

  const erase = () => {
    if (drawn) io.stderr.write(`\r${ERASE_TO_END_OF_LINE}`);
    drawn = false;
  };
  const draw = () => {
    const [oldest] = running.values();
    if (!oldest) return;
    const seconds = ((performance.now() - oldest.startedMs) / 1000).toFixed(1);
    const more = running.size > 1 ? ` (+${running.size - 1} more)` : '';
    const tail = ` · ${seconds} s${more}`;
    io.stderr.write(`\r${fit(oldest.label, columnsOf(io) - 1 - tail.length)}${tail}${ERASE_TO_END_OF_LINE}`);
    drawn = true;
  };
  const stopTimer = () => {
    clearInterval(timer);
    timer = undefined;
  };

  return {
    begin(id, label) {
      running.set(id, { label, startedMs: performance.now() });
      if (timer) return;
      timer = setInterval(draw, intervalMs);
      timer.unref();
    },
    end(id) {
      running.delete(id);
      erase();
      if (running.size === 0) stopTimer();
    },
    close() {
      running.clear();
      stopTimer();
      erase();
    },
  };
}

/**
 * Run one call with its progress line. `startLine`: the label is also a line of its own (search's start line):
 * written as the call starts without a terminal, and in place of the erased progress line with one, so what stays
 * on screen is the same either way. Nothing is shown until the call is admitted (`run` is handed the
 * `onAdmitted` to pass on as the call's option): the label holds the query or URL, which must not reach the
 * terminal or a captured log before the egress checks (the secret scan) have let it through.
 */
export async function withProgress<T>(
  io: CliIo,
  label: string,
  run: (onAdmitted: () => void) => Promise<T>,
  options: { startLine?: boolean } = {},
): Promise<T> {
  const live = showsProgress(io);
  const progress = createCallProgress(io);
  let admitted = false;
  const onAdmitted = () => {
    if (admitted) return;
    admitted = true;
    if (options.startLine && !live) writeLine(io.stderr, label);
    progress.begin('call', label);
  };
  try {
    return await run(onAdmitted);
  } finally {
    progress.close();
    if (admitted && options.startLine && live) writeLine(io.stderr, label);
  }
}

function columnsOf(io: CliIo): number {
  const columns = (io.stderr as { columns?: unknown }).columns;
  return typeof columns === 'number' && columns > 0 ? columns : DEFAULT_COLUMNS;
}

function fit(text: string, width: number): string {
  if (text.length <= width) return text;
  return width <= 1 ? '' : `${text.slice(0, width - 1)}…`;
}
