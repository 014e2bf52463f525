import { subscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';

/** The machine-wide monotonic clock (CLOCK_MONOTONIC: one clock for every process), in nanoseconds. */
export const monotonicNs = (): number => Number(process.hrtime.bigint());

/**
 * One request as it left a process: `[label, endNs, finishNs]`. It left between the two: not before `end()` was
 * called (head and body are written to the socket inside it), not after its 'finish' (the write's completion
 * callback, which runs a loop turn later, or a stall later on a loaded machine: up to 97 ms was seen).
 */
export type RequestLeave = [label: string, endNs: number, finishNs: number];

/** What the stand-in saw: `[label, readNs]`, when it read the request (on the same monotonic clock). */
export type RequestArrival = [label: string, readNs: number];

/**
 * Calls `onLeave` for every HTTP request this process makes from now on (Node's `http.client.request.created`
 * channel, before the request is written), labelled by `label(path)`. The 'finish' listener added here comes before
 * the HTTP client's own (the one that reports the request sent to the pacer, src/net/send-hop.ts), so `finishNs` is
 * read no later than that report.
 */
export function recordRequestLeaves(
  onLeave: (leave: RequestLeave) => void,
  label: (path: string) => string = (path) => path,
): void {
  subscribe('http.client.request.created', (message) => {
    const request = (message as { request: ClientRequest }).request;
    const end = request.end;
    let endNs = 0;
    request.end = function (this: ClientRequest, ...args: Parameters<ClientRequest['end']>) {
      endNs = monotonicNs();
      return end.apply(this, args);
    } as ClientRequest['end'];
    request.once('finish', () => onLeave([label(request.path), endNs, monotonicNs()]));
  });
}

/** The search query of a request path (`?q=`), the label the pacing tests match leaves and arrivals by. */
export const queryOf = (path: string): string => new URL(path, 'http://x').searchParams.get('q') ?? path;

export interface PacedSpacing {
  /** Requests, in the order they left. */
  count: number;
  /** The smallest certain gap between two consecutive departures: the later `end` less the earlier `finish` (ms). */
  minLeaveGapMs: number;
  /** The smallest gap between consecutive arrivals as the stand-in read them, in departure order (ms). */
  minArrivalGapMs: number;
  /** The longest time from a request's certain departure (`finish`) to its reading at the stand-in (ms). */
  maxReadDelayMs: number;
}

const ms = (ns: number) => ns / 1e6;

/**
 * Checks the pacing promise on requests sent by several processes: every request that arrived at the stand-in was
 * seen leaving (and read after it left: one clock), and each left at least `intervalMs` after the one before had
 * certainly left (its `end` at least an interval after the previous one's `finish`: a bound on the true gap that
 * holds however loaded the machine is). At the stand-in, each arrival came at least an interval after the previous
 * one, less how late the stand-in read that previous one (from its certain departure to its reading: the socket and
 * the stand-in's own scheduling, measured per request rather than guessed). Throws naming the first breach.
 */
export function checkPacedSpacing(
  leaves: RequestLeave[],
  arrivals: RequestArrival[],
  intervalMs: number,
): PacedSpacing {
  const left = [...leaves].sort((a, b) => a[1] - b[1]);
  const arrived = new Map(arrivals);
  if (arrived.size !== arrivals.length) throw new Error('a request arrived twice');
  if (left.length !== arrivals.length)
    throw new Error(`${arrivals.length} requests arrived but ${left.length} were seen leaving`);
  const readAt = left.map(([label, endNs]) => {
    const at = arrived.get(label);
    if (at === undefined) throw new Error(`request ${label} left but never arrived`);
    if (at < endNs) throw new Error(`request ${label} was read ${ms(endNs - at)} ms before it was sent`);
    return at;
  });
  let minLeaveGapMs = Number.POSITIVE_INFINITY;
  let minArrivalGapMs = Number.POSITIVE_INFINITY;
  let maxReadDelayMs = 0;
  left.forEach(([label, endNs, finishNs], index) => {
    const readNs = readAt[index] as number;
    maxReadDelayMs = Math.max(maxReadDelayMs, ms(readNs - finishNs));
    if (index === 0) return;
    const [previous, , previousFinishNs] = left[index - 1] as RequestLeave;
    const previousReadNs = readAt[index - 1] as number;
    const leaveGapMs = ms(endNs - previousFinishNs);
    minLeaveGapMs = Math.min(minLeaveGapMs, leaveGapMs);
    if (leaveGapMs < intervalMs)
      throw new Error(
        `${label} left at most ${leaveGapMs.toFixed(2)} ms after ${previous}, under ${intervalMs} ms`,
      );
    const arrivalGapMs = ms(readNs - previousReadNs);
    minArrivalGapMs = Math.min(minArrivalGapMs, arrivalGapMs);
    const toleranceMs = Math.max(0, ms(previousReadNs - previousFinishNs));
    if (arrivalGapMs < intervalMs - toleranceMs)
      throw new Error(
        `${label} arrived ${arrivalGapMs.toFixed(2)} ms after ${previous}, under ${intervalMs} ms less the ${toleranceMs.toFixed(2)} ms ${previous} took to be read`,
      );
  });
  return { count: left.length, minLeaveGapMs, minArrivalGapMs, maxReadDelayMs };
}
