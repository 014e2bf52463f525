import cluster, { type Worker } from 'node:cluster';
import type { SharedCalls, SharedMetrics } from '../../gateway/gateway.ts';
import type { MetricsSnapshot } from '../../gateway/metrics.ts';
import type { FinishedCall, RecentCall } from '../../gateway/recent-calls.ts';
import { type CliIo, writeLine } from '../io.ts';

/** What the banner says of a listening gateway (a worker tells it to the primary). */
export interface Announced {
  url: string;
  host: string;
  keysRequired: boolean;
  tools: string[];
  /** The operator console is served (gateway.console.enabled). */
  console: boolean;
}

/** What a worker tells the primary (node:cluster IPC). */
export type WorkerReport =
  | (Announced & { type: 'periscope:listening'; port: number; peerPort: number })
  /** A worker started beside the first is ready to hear its go (see workerListening). */
  | { type: 'periscope:waiting' }
  | { type: 'periscope:stopping'; inFlight: number }
  | { type: 'periscope:stopped'; drained: boolean }
  /** Calls this worker ran (in batches, in brief), for the other workers' consoles. */
  | { type: 'periscope:calls'; calls: FinishedCall[] }
  /** Another worker's call `id` is opened here: that worker's whole call, please (`ask`: this worker's count). */
  | { type: 'periscope:call-ask'; ask: number; id: number }
  /** This worker's call for the primary's lookup `ask` (null: not held here). */
  | { type: 'periscope:call-found'; ask: number; call: RecentCall | null }
  /** A scrape of /metrics here: the others' values, please (`ask`: this worker's count). */
  | { type: 'periscope:metrics-ask'; ask: number }
  /** This worker's values, for the primary's gathering `ask`. */
  | { type: 'periscope:metrics-snapshot'; ask: number; snapshot: MetricsSnapshot };

/** What the primary tells a worker. */
export type PrimaryOrder =
  | { type: 'periscope:stop' }
  /** A worker started beside the first: its turn to open the store and listen (on `port`, with own sockets). */
  | { type: 'periscope:go'; port?: number }
  /** Where each worker's MCP sessions are: session id prefix (`w1.`) → its loopback port. */
  | { type: 'periscope:peers'; peers: Record<string, number> }
  /** Calls another worker ran (see SharedCalls). */
  | { type: 'periscope:calls'; calls: FinishedCall[] }
  /** Another worker opens call `id`: this worker's own, if it holds it (`ask`: the primary's lookup). */
  | { type: 'periscope:call-ask'; ask: number; id: number }
  /** The answer to this worker's `call-ask` (null: no worker had it in time). */
  | { type: 'periscope:call-found'; ask: number; call: RecentCall | null }
  /** Another worker is scraped: this worker's values, please (`ask`: the primary's gathering). */
  | { type: 'periscope:metrics-ask'; ask: number }
  /** The other workers' values, for this worker's `ask`. */
  | { type: 'periscope:metrics-answer'; ask: number; snapshots: MetricsSnapshot[] };

export interface PrimaryOptions {
  workers: number;
  /** `serve` and its arguments, as the workers run them (each is a `periscope serve` of its own). */
  args: readonly string[];
  /** Added to the workers' environment (which is the primary's). */
  env: Record<string, string>;
  /**
   * Each worker listens on sockets of its own with SO_REUSEPORT (ownSockets()), not on the primary's: the
   * first worker's port is given to the others, so that `--port 0` is one port for all.
   */
  ownSockets: boolean;
  io: CliIo;
  /** Called once every worker listens (the banner). */
  onListening(listening: Announced): void;
}

/** A worker sends its finished calls to the others at most this often (the console's tail is a second behind at most). */
const CALLS_BATCH_MS = 100;

/** How long the primary waits for the workers' metrics for one scrape; a worker that has not answered is left out. */
const METRICS_GATHER_MS = 500;

/** Where a worker learns how to listen (set by the primary, see workerListening). */
const OWN_SOCKET_ENV = 'PERISCOPE_SERVE_OWN_SOCKET';
const PORT_ENV = 'PERISCOPE_SERVE_PORT';
/** Set for the workers started beside the first: they load, then wait for the primary's `periscope:go`. */
const WAIT_ENV = 'PERISCOPE_SERVE_WAIT';

/**
 * Whether the workers listen on sockets of their own (SO_REUSEPORT) rather than node:cluster's default, where
 * the primary accepts every connection and hands it to a worker over IPC: one handle in flight per worker, each
 * waiting for that worker's busy loop to take it, so a thousand new connections took seconds to reach the
 * workers and their first calls waited that long (decision 0010). Linux only: it is where the kernel deals new
 * connections among the sockets of one port (and only among sockets of the same user); elsewhere the primary
 * deals them.
 */
export function ownSockets(): boolean {
  return process.platform === 'linux';
}

/**
 * In a worker: whether it listens on sockets of its own on the port it shares with the others, and the port the
 * first worker got (if not the first). A worker started beside the first waits here for the primary's go, which
 * comes once the first listens (undefined: the primary ordered a stop, or is gone, before it came).
 */
export async function workerListening(): Promise<{ shared: boolean; port?: number } | undefined> {
  const shared = process.env[OWN_SOCKET_ENV] === '1';
  if (process.env[WAIT_ENV] === '1') {
    const go = await new Promise<PrimaryOrder | undefined>((resolve) => {
      const heard = (order: PrimaryOrder) => {
        if (order?.type !== 'periscope:go' && order?.type !== 'periscope:stop') return;
        process.off('message', heard);
        resolve(order);
      };
      process.on('message', heard);
      process.once('disconnect', () => resolve(undefined));
      report({ type: 'periscope:waiting' });
    });
    if (go?.type !== 'periscope:go') return undefined;
    return { shared, ...(go.port === undefined ? {} : { port: go.port }) };
  }
  const port = process.env[PORT_ENV];
  return { shared, ...(port !== undefined && /^\d+$/.test(port) ? { port: Number(port) } : {}) };
}

/** A worker that exits this soon after it was started, before listening, is not started again. */
const CRASH_LOOP_MS = 5_000;
const BIN = new URL('../../../../bin/periscope.js', import.meta.url).pathname;

/**
 * `periscope serve --workers N`: the primary process of node:cluster. It starts every worker at once: the first
 * opens the store and listens while the others load their modules (seconds each on a busy machine: one after the
 * other, two workers took three processes' start-up before the banner) and wait; once the first listens (a mistake —
 * a port in use, no key on a public host — is then told once, with that worker's exit code), the others are told to
 * go, on the same port — on Linux each on a socket of its own that the kernel deals new connections to
 * (ownSockets), elsewhere on the primary's, which deals them out in turn; the banner comes once all of them listen. Each worker is a whole gateway on the shared store: keys, credits, rate limits, usage and the page cache are exact
 * across them; what lives in a process (the console's recent calls, /metrics, robots.txt and in-process
 * document caches) is per worker. MCP sessions live in the worker that opened them (their ids start `w<id>.`); each
 * worker also listens on a loopback port of its own, which the primary tells the others, so a session's request
 * that reaches another worker is handed on to its holder (GatewayPeers). SIGTERM or SIGINT: every worker drains its calls in flight and
 * exits; a second signal cuts them. A worker that dies is started again. Resolves with the exit code.
 */
export function runPrimary(options: PrimaryOptions): Promise<number> {
  const { io } = options;
  cluster.setupPrimary({ exec: BIN, args: [...options.args], silent: false });
  const workers = new Set<Worker>();
  let listening = false;
  let ready = 0;
  let stopping: NodeJS.Signals | undefined;
  let undrained = false;
  let failure: number | undefined;
  const reports = new Map<Worker, number>();
  /** With own sockets: the first worker's port, for the others. */
  let port: number | undefined;
  /** Each listening worker's loopback port for MCP requests handed on by the others. */
  const peerPorts = new Map<Worker, number>();
  /** Scrapes of /metrics being answered: the answers so far, who is still due, and how to finish. */
  const gatherings = new Map<number, { snapshots: MetricsSnapshot[]; due: Set<Worker>; done: () => void }>();
  let lastGathering = 0;

  /** Worker `from` is scraped: ask the others, and send it what came within METRICS_GATHER_MS. */
  function gatherMetrics(from: Worker, ask: number): void {
    const id = ++lastGathering;
    const due = new Set([...peerPorts.keys()].filter((worker) => worker !== from && worker.isConnected()));
    const snapshots: MetricsSnapshot[] = [];
    const timer = setTimeout(() => done(), METRICS_GATHER_MS);
    function done(): void {
      if (!gatherings.delete(id)) return;
      clearTimeout(timer);
      if (from.isConnected())
        from.send({ type: 'periscope:metrics-answer', ask, snapshots } satisfies PrimaryOrder);
    }
    gatherings.set(id, { snapshots, due, done });
    if (due.size === 0) done();
    for (const worker of due) worker.send({ type: 'periscope:metrics-ask', ask: id } satisfies PrimaryOrder);
  }

  /** Calls being looked up for a worker's console: who is still due, and how to finish. */
  const lookups = new Map<number, { due: Set<Worker>; done: (call: RecentCall | null) => void }>();
  let lastLookup = 0;

  /** Worker `from` opens call `id` that another worker ran: ask the others; the first that holds it answers. */
  function lookUpCall(from: Worker, ask: number, callId: number): void {
    const id = ++lastLookup;
    const due = new Set([...peerPorts.keys()].filter((worker) => worker !== from && worker.isConnected()));
    const timer = setTimeout(() => done(null), METRICS_GATHER_MS);
    function done(call: RecentCall | null): void {
      if (!lookups.delete(id)) return;
      clearTimeout(timer);
      if (from.isConnected()) from.send({ type: 'periscope:call-found', ask, call } satisfies PrimaryOrder);
    }
    lookups.set(id, { due, done });
    if (due.size === 0) done(null);
    for (const worker of due)
      worker.send({ type: 'periscope:call-ask', ask: id, id: callId } satisfies PrimaryOrder);
  }

  function callFound(worker: Worker, id: number, call: RecentCall | null): void {
    const lookup = lookups.get(id);
    if (!lookup?.due.delete(worker)) return;
    if (call !== null || lookup.due.size === 0) lookup.done(call);
  }

  function metricsAnswered(worker: Worker, id: number, snapshot: MetricsSnapshot): void {
    const gathering = gatherings.get(id);
    if (!gathering?.due.delete(worker)) return;
    gathering.snapshots.push(snapshot);
    if (gathering.due.size === 0) gathering.done();
  }

  function tellPeers(): void {
    const peers = Object.fromEntries([...peerPorts].map(([worker, port]) => [`w${worker.id}.`, port]));
    for (const worker of peerPorts.keys())
      if (worker.isConnected()) worker.send({ type: 'periscope:peers', peers } satisfies PrimaryOrder);
  }

  return new Promise((resolve) => {
    const finish = () => {
      if (workers.size > 0) return;
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      if (failure !== undefined) return resolve(failure);
      writeLine(
        io.stderr,
        undrained ? 'periscope: stopped; calls still running were cut' : 'periscope: stopped',
      );
      resolve(0);
    };

    /** Workers started beside the first that are ready for their go, which they get once the first listens. */
    const waiting = new Set<Worker>();
    const go = (worker: Worker) => {
      const order: PrimaryOrder = {
        type: 'periscope:go',
        ...(options.ownSockets && port !== undefined ? { port } : {}),
      };
      if (worker.isConnected() && !stopping) worker.send(order);
    };

    function start(wait = false): Worker {
      const worker = cluster.fork({
        ...options.env,
        ...(options.ownSockets ? { [OWN_SOCKET_ENV]: '1' } : {}),
        ...(options.ownSockets && port !== undefined ? { [PORT_ENV]: String(port) } : {}),
        ...(wait ? { [WAIT_ENV]: '1' } : {}),
      });
      const startedAt = Date.now();
      let workerListening = false;
      workers.add(worker);
      worker.on('message', (report: WorkerReport) => {
        if (report.type === 'periscope:listening') {
          workerListening = true;
          port ??= report.port;
          peerPorts.set(worker, report.peerPort);
          tellPeers();
          if (!listening) {
            listening = true;
            for (const other of waiting) go(other);
            waiting.clear();
          }
          ready += 1;
          if (ready === options.workers) options.onListening(report);
          if (stopping) order(worker);
        } else if (report.type === 'periscope:waiting') {
          if (listening) go(worker);
          else waiting.add(worker);
        } else if (report.type === 'periscope:stopping') {
          reports.set(worker, report.inFlight);
          if (reports.size === workers.size) {
            const inFlight = [...reports.values()].reduce((sum, count) => sum + count, 0);
            const calls = `${inFlight} call${inFlight === 1 ? '' : 's'} in flight`;
            writeLine(
              io.stderr,
              `periscope: ${stopping}: ${inFlight === 0 ? 'stopping' : `finishing ${calls}`}`,
            );
          }
        } else if (report.type === 'periscope:metrics-ask') {
          gatherMetrics(worker, report.ask);
        } else if (report.type === 'periscope:metrics-snapshot') {
          metricsAnswered(worker, report.ask, report.snapshot);
        } else if (report.type === 'periscope:call-ask') {
          lookUpCall(worker, report.ask, report.id);
        } else if (report.type === 'periscope:call-found') {
          callFound(worker, report.ask, report.call);
        } else if (report.type === 'periscope:calls') {
          // To every other worker's console: each shows the calls of all.
          for (const other of peerPorts.keys())
            if (other !== worker && other.isConnected()) other.send(report satisfies PrimaryOrder);
        } else if (report.type === 'periscope:stopped' && !report.drained) undrained = true;
      });
      worker.on('exit', (code) => {
        workers.delete(worker);
        waiting.delete(worker);
        reports.delete(worker);
        if (peerPorts.delete(worker) && !stopping) tellPeers();
        if (stopping || failure !== undefined) return finish();
        if (!workerListening && (!listening || Date.now() - startedAt < CRASH_LOOP_MS)) {
          // It could not start (its message is on stderr): stop the others, exit as it did.
          failure = code === 0 ? 1 : (code ?? 1);
          for (const other of workers) other.kill('SIGTERM');
          return finish();
        }
        writeLine(io.stderr, `periscope: a worker exited (${code ?? 'signal'}); starting another`);
        start();
      });
      return worker;
    }

    function order(worker: Worker): void {
      if (worker.isConnected()) worker.send({ type: 'periscope:stop' } satisfies PrimaryOrder);
      else worker.kill('SIGTERM');
    }

    function onSignal(signal: NodeJS.Signals): void {
      if (stopping) {
        // A second signal while draining stops at once.
        for (const worker of workers) worker.kill('SIGKILL');
        undrained = true;
        return;
      }
      stopping = signal;
      for (const worker of workers) order(worker);
    }
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    start();
    for (let index = 1; index < options.workers; index++) start(true);
  });
}

/** In a worker: the primary's stop order (or the primary gone) as a promise of the signal to report. */
export function stopOrdered(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.on('message', (order: PrimaryOrder) => {
      if (order?.type === 'periscope:stop') resolve('SIGTERM');
    });
    process.once('disconnect', () => resolve('SIGTERM'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
    // Ctrl-C reaches every process of the group: the primary orders the stop, once.
    process.on('SIGINT', () => {});
  });
}

/** In a worker: the other workers' MCP session holders, as the primary tells them (see GatewayPeers). */
export function workerPeers(): { self: string; portOf(prefix: string): number | undefined } {
  let peers: Record<string, number> = {};
  process.on('message', (order: PrimaryOrder) => {
    if (order?.type === 'periscope:peers') peers = order.peers;
  });
  return { self: `w${cluster.worker?.id ?? 0}.`, portOf: (prefix) => peers[prefix] };
}

/** In a worker: the other workers' calls, through the primary, for the console (GatewayOptions.sharedCalls). */
export function workerCalls(): SharedCalls {
  // Sent in batches, at most every CALLS_BATCH_MS: one IPC message per call costs the sender and the primary more
  // than the call's own envelope at a few thousand calls a second.
  let batch: FinishedCall[] = [];
  const flush = () => {
    const calls = batch;
    batch = [];
    if (process.connected) process.send?.({ type: 'periscope:calls', calls } satisfies WorkerReport);
  };
  const ask = askPrimary<RecentCall | null>(null, (order) =>
    order.type === 'periscope:call-found' ? { ask: order.ask, answer: order.call } : undefined,
  );
  return {
    worker: cluster.worker?.id ?? 0,
    publish(call) {
      if (batch.push(call) === 1) setTimeout(flush, CALLS_BATCH_MS).unref();
    },
    subscribe(listener) {
      process.on('message', (order: PrimaryOrder) => {
        if (order?.type === 'periscope:calls') for (const call of order.calls) listener(call);
      });
    },
    // A primary gone or stuck leaves the brief.
    lookup: async (id) =>
      (await ask((asked) => ({ type: 'periscope:call-ask', ask: asked, id }))) ?? undefined,
    answer(find) {
      process.on('message', (order: PrimaryOrder) => {
        if (order?.type === 'periscope:call-ask' && process.connected)
          process.send?.({
            type: 'periscope:call-found',
            ask: order.ask,
            call: find(order.id) ?? null,
          } satisfies WorkerReport);
      });
    },
  };
}

/** In a worker: the other workers' metrics, through the primary (GatewayOptions.sharedMetrics). */
export function workerMetrics(): SharedMetrics {
  const ask = askPrimary<MetricsSnapshot[]>([], (order) =>
    order.type === 'periscope:metrics-answer' ? { ask: order.ask, answer: order.snapshots } : undefined,
  );
  return {
    // A primary gone or stuck leaves this worker's own values.
    gather: () => ask((asked) => ({ type: 'periscope:metrics-ask', ask: asked })),
    answer(snapshot) {
      process.on('message', (order: PrimaryOrder) => {
        if (order?.type === 'periscope:metrics-ask' && process.connected)
          process.send?.({
            type: 'periscope:metrics-snapshot',
            ask: order.ask,
            snapshot: snapshot(),
          } satisfies WorkerReport);
      });
    },
  };
}

/**
 * In a worker: questions to the primary, each with a number of its own (`ask`) that its answer carries. The primary
 * answers within METRICS_GATHER_MS; after twice that (a primary gone or stuck), or with no primary, `fallback`.
 */
function askPrimary<ANSWER>(
  fallback: ANSWER,
  answerOf: (order: PrimaryOrder) => { ask: number; answer: ANSWER } | undefined,
): (question: (ask: number) => WorkerReport) => Promise<ANSWER> {
  let asks = 0;
  const waiting = new Map<number, (answer: ANSWER) => void>();
  process.on('message', (order: PrimaryOrder) => {
    const answered = order && answerOf(order);
    if (answered) waiting.get(answered.ask)?.(answered.answer);
  });
  return (question) => {
    if (!process.connected) return Promise.resolve(fallback);
    const ask = ++asks;
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(fallback), METRICS_GATHER_MS * 2);
      function finish(answer: ANSWER): void {
        clearTimeout(timer);
        waiting.delete(ask);
        resolve(answer);
      }
      waiting.set(ask, finish);
      process.send?.(question(ask));
    });
  };
}

/** In a worker: tells the primary. */
export function report(message: WorkerReport): void {
  process.send?.(message);
}
