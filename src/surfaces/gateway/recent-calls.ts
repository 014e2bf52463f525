/** A call that ran, as the gateway's metrics wrapper reports it at its end (`onCall`). */
import type { ToolResult } from '../../tool-call.ts';
export interface FinishedCall {
  tool: string;
  surface: string;
  agent: string | undefined;
  session: string | undefined;
  input: unknown;
  result: ToolResult;
  ms: number;
  /**
   * Under `serve --workers N`: the id the worker that ran it gave it (`sharedCallId`), the same in every worker's
   * console. Otherwise the console numbers its calls from 1.
   */
  id?: number;
  /** Its input or result was cut before it came here (a call from another worker: `compactCall`). */
  cut?: boolean;
  /** Another worker ran it (`serve --workers N`) and told of it in brief: that worker's console holds it whole. */
  elsewhere?: boolean;
}

/** One tool call as the console shows it: who, what, how it ended, and what the model saw (trimmed). */
export interface RecentCall {
  /** Increasing from 1 for the life of the gateway. */
  id: number;
  /** When the call ended, Unix ms. */
  time: number;
  agent: string;
  session: string | null;
  tool: string;
  /** `rest`, `mcp`, or `console` (the playground). */
  surface: string;
  /** The result's one line for people. */
  display: string;
  /** `ok`, or the error result's code. */
  outcome: string;
  ms: number;
  credits: number;
  cached: boolean;
  input: unknown;
  /** What the model read, cut at `MAX_TEXT_CHARS`, and the result's data with long strings cut likewise. */
  result: { isError: boolean; output: string; data: unknown; display: string | null; truncated: boolean };
  /**
   * Another worker ran it (`serve --workers N`): this is its brief (texts cut at a few hundred characters); the
   * console asks that worker for the call whole when it is opened.
   */
  elsewhere?: true;
}

export interface RecentCallsOptions {
  /** Calls kept at most (a ring buffer); 0 keeps none. */
  capacity: number;
  /** Calls older than this are dropped. */
  maxAgeMs: number;
  now?: () => number;
}

/** Longest string kept from a result (its `output`, and each string in its data, one level deep). */
export const MAX_TEXT_CHARS = 16_384;

/**
 * The console's recent calls: a fixed-size ring buffer in memory, written once per call at its end (no I/O, no
 * copying beyond cutting long strings), read by the console's tail, snapshot and overview. Listeners (the
 * console's event streams) are told of each call as it is added.
 */
export function createRecentCalls(options: RecentCallsOptions) {
  const { capacity, maxAgeMs } = options;
  const now = options.now ?? Date.now;
  const ring: Array<RecentCall | undefined> = new Array(capacity);
  let next = 0;
  let lastId = 0;
  const listeners = new Set<(call: RecentCall) => void>();

  return {
    capacity,
    /** Records a finished call; a no-op when the capacity is 0. */
    add(entry: FinishedCall): void {
      if (capacity === 0) return;
      const { result } = entry;
      const output = typeof result.output === 'string' ? result.output : '';
      const trimmed = trimData(result.data);
      lastId = entry.id ?? lastId + 1;
      const call: RecentCall = {
        id: lastId,
        time: now(),
        agent: entry.agent ?? 'default',
        session: entry.session ?? null,
        tool: entry.tool,
        surface: entry.surface,
        display: result.display ?? '',
        ...outcomeOf(result),
        ms: Math.round(entry.ms),
        input: trimData(entry.input).value,
        result: {
          isError: result.isError,
          output: cutCopy(output),
          data: trimmed.value,
          display: result.display ?? null,
          truncated: output.length > MAX_TEXT_CHARS || trimmed.cut || entry.cut === true,
        },
        ...(entry.elsewhere ? { elsewhere: true as const } : {}),
      };
      ring[next] = call;
      next = (next + 1) % capacity;
      for (const listener of listeners) {
        try {
          listener(call);
        } catch {
          // a broken stream never fails a call
        }
      }
    },
    /** The calls still within `maxAgeMs`, oldest first; `after`: only those with a larger id. */
    list(after = 0): RecentCall[] {
      const cutoff = now() - maxAgeMs;
      const calls: RecentCall[] = [];
      for (let index = 0; index < capacity; index += 1) {
        const call = ring[(next + index) % capacity];
        if (call && call.time >= cutoff && call.id > after) calls.push(call);
      }
      return calls;
    },
    get(id: number): RecentCall | undefined {
      return this.list().find((call) => call.id === id);
    },
    /** Called with each new call until the returned function is called. */
    subscribe(listener: (call: RecentCall) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    get listeners() {
      return listeners.size;
    },
  };
}

export type RecentCalls = ReturnType<typeof createRecentCalls>;

/**
 * A call's id under `serve --workers N`, unique across the workers and increasing with time: the end time in ms,
 * the worker (0–9) and a count (0–99) within the millisecond — a worker ends far fewer than 100 calls a millisecond.
 * Below 2^53 until the year 2255.
 */
export function sharedCallId(worker: number, count: number, now = Date.now()): number {
  return now * 1000 + (worker % 10) * 100 + (count % 100);
}

/**
 * A finished call in brief, as `serve --workers N` tells the other workers of it: their consoles list it, count it
 * and read its fetch attempts from it, and ask this worker for it whole when it is opened (SharedCalls.lookup).
 * Long strings of its input, output and data are cut at `SHARED_TEXT_CHARS`, so no page crosses the IPC channel.
 */
export function compactCall(call: FinishedCall): FinishedCall {
  const { result } = call;
  const input = trimData(call.input, SHARED_TEXT_CHARS);
  const data = trimData(result.data, SHARED_TEXT_CHARS);
  const output = typeof result.output === 'string' ? result.output : '';
  const cut = input.cut || data.cut || output.length > SHARED_TEXT_CHARS;
  return {
    ...call,
    input: input.value,
    result: {
      ...result,
      output: cutCopy(output, SHARED_TEXT_CHARS),
      data: data.value as ToolResult['data'],
    },
    ...(cut ? { cut } : {}),
    elsewhere: true,
  };
}

/**
 * Longest string of a call sent to the other workers. Each call is relayed through the primary to every other
 * worker, so this is paid per call per worker. Measured with bench/gateway.bench.ts (cached, 2 workers): at 100
 * connections, 16 KB cuts sent one message a call, 0.70× the plain proxy; 4 KB cuts in batches, 0.82×; no sharing,
 * 0.91×. At 1 000 connections, 4 KB cuts: the primary grew to ~500 MB and each worker to ~900 MB against one
 * process's ~450 MB; the console now asks the worker that ran a call for it whole when it is opened, and the brief
 * needs only its first lines.
 */
const SHARED_TEXT_CHARS = 256;

/** How a call ended, read from its result: `ok` or the error's code, the credits it cost, whether it was cached. */
export function outcomeOf(result: ToolResult): { outcome: string; credits: number; cached: boolean } {
  const data = result.data as
    | { cached?: unknown; creditsSpent?: unknown; error?: { code?: unknown } }
    | undefined;
  return {
    outcome: result.isError ? String(data?.error?.code ?? 'UNKNOWN') : 'ok',
    credits: typeof data?.creditsSpent === 'number' ? data.creditsSpent : 0,
    cached: data?.cached === true,
  };
}

/**
 * The first `MAX_TEXT_CHARS` of a string, as a string of its own: V8's `slice` of a long string keeps the whole
 * string alive behind it (a sliced string), which would let a few cut pages hold hundreds of MB.
 */
function cutCopy(text: string, max = MAX_TEXT_CHARS): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 1)) ? max - 1 : max;
  // Joined then sliced: the join is flattened into a new string, and the slice keeps only that.
  return `${text.slice(0, end)} `.slice(0, -1);
}

/** A shallow copy with long strings cut (one level into objects and arrays): bounds what one entry holds. */
function trimData(value: unknown, max = MAX_TEXT_CHARS): { value: unknown; cut: boolean } {
  let cut = false;
  const trim = (item: unknown): unknown => {
    if (typeof item === 'string' && item.length > max) {
      cut = true;
      return `${cutCopy(item, max)}…`;
    }
    return item;
  };
  if (typeof value === 'string') return { value: trim(value), cut };
  if (Array.isArray(value)) return { value: value.slice(0, 200).map(trim), cut: cut || value.length > 200 };
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) copy[key] = trim(item);
    return { value: copy, cut };
  }
  return { value, cut };
}
