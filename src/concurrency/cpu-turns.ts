/**
 * CPU-heavy steps (rendering a page: parsing, extraction, Markdown) run in budgeted turns of the event loop: a step
 * starts only while its turn has used under `CPU_TURN_BUDGET_MS` (a step is never cut, so one long page still takes
 * its time), the rest wait for the next turn, after the loop has polled its sockets.
 *
 * Why: Node accepts one new connection per turn of its loop. A gateway serving a burst on its open connections ran
 * every page that came back in the same turn (tens of milliseconds), so a client's new connections were accepted
 * ~30 ms apart and the last of a hundred waited two seconds before its request was even read (measured: p99 2.1 s
 * with every handler under 200 ms). With turns bounded, the loop comes round to the listening socket and to the
 * other sockets every few milliseconds; the work done per second is the same.
 *
 * One queue per process, first in first out; a step that throws rejects its own promise only.
 */
export const CPU_TURN_BUDGET_MS = 5;

const waiting: Array<() => void> = [];
let pumping = false;

function pump(): void {
  const started = performance.now();
  while (waiting.length > 0 && performance.now() - started < CPU_TURN_BUDGET_MS) waiting.shift()?.();
  if (waiting.length > 0) setImmediate(pump);
  else pumping = false;
}

/** Runs `step` in a CPU turn; resolves with what it returns (awaited, when it is a promise). */
export function inCpuTurn<RESULT>(step: () => RESULT | Promise<RESULT>): Promise<RESULT> {
  return new Promise<RESULT>((resolve, reject) => {
    waiting.push(() => {
      try {
        resolve(step());
      } catch (error) {
        reject(error);
      }
    });
    if (!pumping) {
      pumping = true;
      setImmediate(pump);
    }
  });
}
