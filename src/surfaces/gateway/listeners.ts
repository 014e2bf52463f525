// The gateway's listening sockets. Node's event loop (libuv) takes one new connection from a listening socket per
// turn, and a turn of a busy gateway answers every request that is ready: a thousand clients connecting at once to
// a gateway already serving were accepted a few a second, and the last waited seconds before their first request
// was read (cached web_fetch, one process, 1 000 connections: p99 3.9–4.0 s). On Linux the gateway listens on
// several sockets of the one port (SO_REUSEPORT): the kernel deals new connections among them, each turn takes one
// from each, and all of them feed the one HTTP server. Measured on the same load: 8 sockets p99 6.0–6.7 s, 16:
// 5.1–5.5 s, 32: 3.6–3.8 s, 64: 0.5–1.1 s, 128 and 256 no better (docs/decisions/0010-gateway.md).
import cluster from 'node:cluster';
import type { Server } from 'node:http';
import { type AddressInfo, createServer, type Server as NetServer } from 'node:net';

/** Sockets per process where the kernel deals connections among the sockets of one port. */
export const ACCEPT_SOCKETS = 64;

/**
 * How many sockets a gateway listens on by default: ACCEPT_SOCKETS on Linux, one elsewhere — and one in a
 * node:cluster worker, where listening goes through the primary so that the workers share the port (an
 * application that runs the gateway in workers of its own; `serve --workers` gives its workers sockets of their
 * own explicitly).
 */
export function acceptSockets(): number {
  return process.platform === 'linux' && !cluster.isWorker ? ACCEPT_SOCKETS : 1;
}

export interface ListenPlan {
  host: string;
  /** 0: any free port (the first socket's, which the others then share). */
  port: number;
  backlog: number;
  /** Sockets on the port in this process; more than one: SO_REUSEPORT (Linux). */
  sockets: number;
  /**
   * The port is shared on purpose with the other workers of one `serve` (each on sockets of its own, SO_REUSEPORT):
   * the primary has already checked that nothing else holds it.
   */
  shared: boolean;
  /** Open connections at most, over all the sockets. */
  maxConnections: number;
}

export interface Listening {
  port: number;
  /** Stops accepting on the sockets besides the server's own; resolves once their connections have closed. */
  close(): Promise<void>;
}

/**
 * Listens `server` on `plan.port`, and on Linux `plan.sockets - 1` more sockets of that port whose connections
 * are handed to `server` (its timeouts, connection tracking and shutdown hold for them as for its own).
 */
export async function listenOn(server: Server, plan: ListenPlan): Promise<Listening> {
  const reuse = plan.sockets > 1 || plan.shared;
  if (reuse && !plan.shared) await portFree(plan.host, plan.port);
  const options = {
    host: plan.host,
    backlog: plan.backlog,
    ...(reuse ? { reusePort: true, exclusive: true } : {}),
  };
  await listening(server, plan.port, options);
  const { port } = server.address() as AddressInfo;
  // Node refuses a connection over `maxConnections` counting only the sockets its own listener accepted: the
  // server's limit is what the other sockets' connections leave, and they check the total themselves.
  let open = 0;
  let fromOthers = 0;
  server.maxConnections = plan.maxConnections;
  if (plan.sockets > 1) {
    server.on('connection', (socket) => {
      open += 1;
      socket.once('close', () => {
        open -= 1;
      });
    });
  }
  const others: NetServer[] = [];
  const closeOthers = () =>
    Promise.all(others.map((other) => new Promise<void>((resolve) => other.close(() => resolve()))));
  try {
    for (let index = 1; index < plan.sockets; index++) {
      const other = createServer((socket) => {
        if (open >= plan.maxConnections) return void socket.destroy();
        fromOthers += 1;
        server.maxConnections = plan.maxConnections - fromOthers;
        socket.once('close', () => {
          fromOthers -= 1;
          server.maxConnections = plan.maxConnections - fromOthers;
        });
        server.emit('connection', socket);
      });
      others.push(other);
      await listening(other, port, options);
    }
  } catch (error) {
    await closeOthers();
    await new Promise((resolve) => server.close(resolve));
    throw error;
  }
  return {
    port,
    close: async () => {
      await closeOthers();
    },
  };
}

function listening(
  server: NetServer,
  port: number,
  options: { host: string; backlog: number; reusePort?: boolean; exclusive?: boolean },
): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, ...options }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * Fails with EADDRINUSE when something listens on host:port. Sockets with SO_REUSEPORT share a port with any other
 * such socket of the same user, so a second gateway on the same port would take part of the first one's
 * connections instead of failing: this plain bind, before listening, is refused by the first one's sockets.
 */
export function portFree(host: string, port: number): Promise<void> {
  if (port === 0) return Promise.resolve();
  return canListen(host, port);
}

/**
 * Fails as listening on host:port would (EADDRNOTAVAIL: not an address of this machine; EADDRINUSE; EACCES), by
 * listening there a moment (`port` 0: any free port, so only the host is tried).
 */
export function canListen(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}
