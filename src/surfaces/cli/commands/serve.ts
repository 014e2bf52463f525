import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { loadConfig } from '../../../config/load-config.ts';
import { startBanner } from '../../gateway/banner.ts';
import { ACCEPT_SOCKETS, canListen, portFree } from '../../gateway/listeners.ts';
import { EXIT_OK, UsageError } from '../cli-error.ts';
import { EGRESS_FLAGS, EGRESS_FLAGS_HELP, egressOverrides } from '../egress-flags.ts';
import {
  COMMON_FLAGS,
  integerFlag,
  NETWORK_FLAGS,
  NETWORK_FLAGS_HELP,
  networkOverrides,
  parseFlags,
} from '../flags.ts';
import { type CliIo, writeLine } from '../io.ts';
import {
  type Announced,
  ownSockets,
  report,
  runPrimary,
  stopOrdered,
  workerCalls,
  workerListening,
  workerMetrics,
  workerPeers,
} from './serve-workers.ts';

export const SERVE_HELP = `Usage: periscope serve [--port N] [--host H] [--workers N] [--config FILE]

Run the HTTP gateway and the MCP endpoint (Streamable HTTP) in one server:

  POST /v1/tools/{name}   tool input JSON in, ToolResult JSON out (200 for tool errors too)
  GET  /v1/tools          the tools with their JSON Schemas      GET /openapi.json   OpenAPI 3.1
  /mcp                    MCP Streamable HTTP
  GET  /v1/status         your agent's credits, provider health  GET /healthz, /metrics (Prometheus)

With no API key in the store it serves 127.0.0.1 only, without authentication, and refuses other hosts. Once
a key exists ('periscope keys create'), every request needs Authorization: Bearer <key>, and the key's agent is
the one its calls are counted and limited as. SIGTERM or Ctrl-C drains calls in flight, then exits 0.

Options:
  --port N                TCP port (default 7800; config gateway.port; 0 picks a free one)
  --host H                interface (default 127.0.0.1; config gateway.host); needs a key unless loopback
  --workers N             processes sharing the port (node:cluster; default: one per CPU core, 'auto' too;
                          1 with a memory: store, which --workers 2+ refuses). Keys, credits, limits, usage and
                          the page cache live in the store and are exact across workers; an MCP session lives
                          in the worker that opened it and the others hand its requests on; the console and
                          /metrics show every worker's calls. On Linux each worker accepts its own connections
                          (SO_REUSEPORT). --workers 1: one process, no cluster
  --config FILE           config file
  -h, --help              this help

${NETWORK_FLAGS_HELP}

${EGRESS_FLAGS_HELP}`;

const FLAGS = {
  ...COMMON_FLAGS,
  ...NETWORK_FLAGS,
  ...EGRESS_FLAGS,
  port: { type: 'string' },
  host: { type: 'string' },
  workers: { type: 'string' },
} as const;

export async function serveCommand(argv: string[], io: CliIo): Promise<number> {
  if (!(cluster.isWorker && process.env.PERISCOPE_SERVE_WORKER === '1')) return serve(argv, io, false);
  try {
    return await serve(argv, io, true);
  } finally {
    // The IPC channel would keep the worker alive: its work is done (or it could not start). Through the cluster
    // worker, so the process then exits with the code the CLI sets (a bare disconnect would exit 0).
    if (process.connected) cluster.worker?.disconnect();
  }
}

/**
 * What serving takes besides the config: the gateway, MCP and the whole toolkit, seconds of module loading on a
 * busy machine. Loaded only by a process that serves — not by the primary of `--workers N`, which prints at once
 * that it is starting them and then only watches them.
 */
async function loadServing() {
  const [{ createGateway }, { mountMcp }, { openPeriscope }] = await Promise.all([
    import('../../gateway/gateway.ts'),
    import('../../gateway/mount-mcp.ts'),
    import('../open-periscope.ts'),
  ]);
  return { createGateway, mountMcp, openPeriscope };
}

async function serve(argv: string[], io: CliIo, inWorker: boolean): Promise<number> {
  const { values, positionals } = parseFlags('serve', argv, FLAGS);
  if (values.help) {
    writeLine(io.stdout, SERVE_HELP);
    return EXIT_OK;
  }
  if (positionals.length > 0)
    throw new UsageError(`serve takes no arguments, got '${positionals.join(' ')}'`);
  // A worker hears for its turn from now (workerListening), loads what it serves with while the first worker
  // starts, then waits for that turn.
  const turn = inWorker ? workerListening() : undefined;
  const serving = inWorker ? await loadServing() : undefined;
  const listenHow = turn ? await turn : { shared: false };
  if (listenHow === undefined) return EXIT_OK; // stopped before its turn came
  // A worker after the first listens on the port the first one got (`--port 0`: one port for all).
  const port = listenHow.port ?? integerFlag(values, 'port', 0);
  const askedWorkers = values.workers === 'auto' ? availableParallelism() : integerFlag(values, 'workers', 1);
  if (askedWorkers !== undefined && askedWorkers > 256)
    throw new UsageError(`--workers must be 1–256, got ${askedWorkers}`);
  if (port !== undefined && port > 65_535) throw new UsageError(`--port must be 0–65535, got ${port}`);
  const gateway: Record<string, unknown> = {};
  if (port !== undefined) gateway.port = port;
  if (typeof values.host === 'string') gateway.host = values.host;
  const overrides = { network: networkOverrides(values), ...egressOverrides(values), gateway };
  /** The banner (and the open-mode note), once the gateway — or every worker — listens. */
  const announce = (listening: Announced, source: string | undefined) => {
    if (!listening.keysRequired) writeLine(io.stderr, noKeysNote(listening.host));
    writeLine(io.stdout, startBanner({ ...listening, configPath: source }));
  };
  if (!inWorker) {
    // The config only (the workers build the rest): the same file, environment and flags the workers read.
    const { config, source } = loadConfig({
      configPath: typeof values.config === 'string' ? values.config : undefined,
      env: io.env,
      cwd: io.cwd,
      overrides,
    });
    const memoryStore = config.store.url === undefined || config.store.url.startsWith('memory:');
    if (memoryStore && askedWorkers !== undefined && askedWorkers > 1) {
      throw new UsageError(
        `--workers ${askedWorkers} needs a store the workers share (store.url sqlite://… or redis://…); with memory: each would keep its own keys and credits — use --workers 1`,
      );
    }
    const workers = askedWorkers ?? (memoryStore ? 1 : availableParallelism());
    if (workers > 1) {
      const own = ownSockets();
      // The workers share the port on purpose: nothing else may hold it (with their own sockets); and a host that
      // is not this machine's is told here, once, before anything starts.
      const { host, port: asked } = config.gateway;
      const probe = own && asked !== 0 ? portFree(host, asked) : canListen(host, 0);
      await probe.catch((error: unknown) => {
        throw cannotListen(error, host, asked);
      });
      // The workers take seconds to load and open the store: say so now, not only once all of them listen.
      writeLine(io.stderr, `periscope: starting ${workers} workers…`);
      return runPrimary({
        workers,
        args: ['serve', ...argv],
        env: { PERISCOPE_SERVE_WORKER: '1' },
        ownSockets: own,
        io,
        onListening: (listening) => announce(listening, source),
      });
    }
  }
  const { createGateway, mountMcp, openPeriscope } = serving ?? (await loadServing());
  const { periscope, source } = openPeriscope(io, values, overrides, true);
  const { config } = periscope;
  const server = createGateway({
    periscope,
    mcp: mountMcp,
    version: packageVersion(),
    ...(listenHow.shared ? { listen: { shared: true, sockets: ACCEPT_SOCKETS } } : {}),
    ...(inWorker ? { peers: workerPeers(), sharedCalls: workerCalls(), sharedMetrics: workerMetrics() } : {}),
  });
  let listening: Awaited<ReturnType<typeof server.listen>>;
  try {
    listening = await server.listen();
  } catch (error) {
    await periscope.close();
    throw cannotListen(error, config.gateway.host, config.gateway.port);
  }
  if (inWorker) {
    // One of `--workers N`: the primary prints the banner and the stop lines, once for all. The other workers
    // hand MCP requests for sessions held here to this loopback port (exclusive: not the shared socket).
    const { maxHeaderBytes, headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs } = config.gateway;
    const peerServer = createServer(
      {
        maxHeaderSize: maxHeaderBytes,
        headersTimeout: headersTimeoutMs,
        requestTimeout: requestTimeoutMs,
        keepAliveTimeout: keepAliveTimeoutMs,
      },
      (request, response) => server.server.emit('request', request, response),
    );
    const peerPort = await new Promise<number>((resolve) => {
      peerServer.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () =>
        resolve((peerServer.address() as AddressInfo).port),
      );
    });
    report({
      type: 'periscope:listening',
      ...announced(listening, periscope.tools, config.gateway),
      port: listening.port,
      peerPort,
    });
    await stopOrdered();
    process.once('SIGTERM', () => process.exit(1)); // the primary's second signal: stop at once
    report({ type: 'periscope:stopping', inFlight: server.metrics.inFlight });
    const peerClosed = new Promise((resolve) => peerServer.close(resolve));
    const { drained } = await server.close();
    peerServer.closeAllConnections();
    await peerClosed;
    await periscope.close(); // usage held in memory, cache writes, the store
    report({ type: 'periscope:stopped', drained });
    return EXIT_OK;
  }
  announce(announced(listening, periscope.tools, config.gateway), source);
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  // A second signal while draining stops at once.
  const hurry = () => process.exit(1);
  process.once('SIGTERM', hurry);
  process.once('SIGINT', hurry);
  const inFlight = server.metrics.inFlight;
  writeLine(
    io.stderr,
    `periscope: ${signal}: ${inFlight === 0 ? 'stopping' : `finishing ${inFlight} call${inFlight === 1 ? '' : 's'} in flight`}`,
  );
  const { drained } = await server.close();
  await periscope.close(); // and the store
  writeLine(io.stderr, drained ? 'periscope: stopped' : 'periscope: stopped; calls still running were cut');
  return EXIT_OK;
}

/** A listening socket refused for a reason the user can fix, as the one-line error that names the fix. */
function cannotListen(error: unknown, host: string, port: number): unknown {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return new UsageError(`port ${port} is in use; pick another with --port N (0: any free port)`);
    case 'EADDRNOTAVAIL':
      return new UsageError(
        `${host} is not an address of this machine; pick one it has with --host H (127.0.0.1, or 0.0.0.0 for all)`,
      );
    case 'EACCES':
      return new UsageError(`port ${port} needs privileges to bind; pick one above 1023 with --port N`);
    default:
      return error;
  }
}

function announced(
  listening: { url: string; host: string; keysRequired: boolean },
  tools: readonly { name: string }[],
  gateway: { console?: { enabled: boolean } | undefined },
): Announced {
  const { url, host, keysRequired } = listening;
  return {
    url,
    host,
    keysRequired,
    tools: tools.map((tool) => tool.name),
    console: gateway.console?.enabled !== false,
  };
}

function noKeysNote(host: string): string {
  return `periscope: no API keys: serving ${host} only, without authentication (create one with 'periscope keys create --agent NAME')`;
}

function packageVersion(): string {
  const manifest = new URL('../../../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}
