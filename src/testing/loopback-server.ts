import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import {
  type AddressInfo,
  createServer as createNetServer,
  type Server as NetServer,
  type Socket,
} from 'node:net';
import type { RecordedCall, TestHandler } from './test-server.ts';
import { TEST_TLS_CERT, TEST_TLS_KEY } from './tls-fixtures.ts';

/** A server on a chosen loopback address (127.0.0.1, 127.0.0.2, ::1…), port 0. */
export interface LoopbackServer {
  /** `http(s)://<host>:<port>` (IPv6 hosts in brackets). */
  url: string;
  host: string;
  port: number;
  /** TCP connections accepted: what a canary counts (a TLS or garbage connection is a hit too). */
  connections: number;
  calls: RecordedCall[];
  close(): Promise<void>;
}

function assertLoopback(host: string): void {
  if (!/^127\.\d+\.\d+\.\d+$/.test(host) && host !== '::1')
    throw new Error(`test servers bind loopback only, not ${host}`);
}

function urlFor(protocol: string, host: string, port: number): string {
  return `${protocol}//${host.includes(':') ? `[${host}]` : host}:${port}`;
}

async function listen(server: Server | NetServer, host: string, port = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

function closeServer(server: Server | NetServer, sockets: Set<Socket>): Promise<void> {
  for (const socket of sockets) socket.destroy();
  return new Promise((resolve) => server.close(() => resolve()));
}

export interface HttpServerOnOptions {
  /** HTTPS with the test certificate (tls-fixtures.ts). */
  tls?: boolean;
  /** A fixed port (e.g. the port of a canary on another loopback address); default 0. */
  port?: number;
}

/**
 * An HTTP (or HTTPS) server on `host`. Every request is recorded; the handler gets the buffered request body, as
 * with `startTestServer`.
 */
export async function startHttpServerOn(
  host: string,
  handler: TestHandler,
  options: HttpServerOnOptions = {},
): Promise<LoopbackServer> {
  assertLoopback(host);
  const calls: RecordedCall[] = [];
  const sockets = new Set<Socket>();
  const onRequest: Parameters<typeof createHttpServer>[1] = async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(request.url ?? '/', `http://${request.headers.host ?? host}`);
    calls.push({ method: request.method ?? 'GET', url, headers: request.headers, body });
    try {
      await handler(request, response, body);
    } catch (error) {
      if (!response.headersSent) response.writeHead(500);
      response.end(String(error));
    }
  };
  const server = options.tls
    ? createHttpsServer({ cert: TEST_TLS_CERT, key: TEST_TLS_KEY }, onRequest)
    : createHttpServer(onRequest);
  const state = { connections: 0 };
  server.on('connection', (socket: Socket) => {
    state.connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const port = await listen(server, host, options.port);
  return {
    url: urlFor(options.tls ? 'https:' : 'http:', host, port),
    host,
    port,
    get connections() {
      return state.connections;
    },
    calls,
    close: () => closeServer(server, sockets),
  };
}

/**
 * A raw TCP server for hostile behaviour: `onRequest` gets the socket once the request head has arrived (or at
 * once with `waitForHead: false`) and writes whatever bytes it likes.
 */
export async function startRawServer(
  host: string,
  onRequest: (socket: Socket, head: string) => void,
  options: { waitForHead?: boolean } = {},
): Promise<LoopbackServer> {
  assertLoopback(host);
  const sockets = new Set<Socket>();
  const state = { connections: 0 };
  const server = createNetServer((socket) => {
    state.connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    if (options.waitForHead === false) return onRequest(socket, '');
    let head = '';
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) return;
      socket.off('data', onData);
      onRequest(socket, head.slice(0, end));
    };
    socket.on('data', onData);
  });
  const port = await listen(server, host);
  return {
    url: urlFor('http:', host, port),
    host,
    port,
    get connections() {
      return state.connections;
    },
    calls: [],
    close: () => closeServer(server, sockets),
  };
}

/** A canary: any TCP connection to it is a hit. SSRF tests aim at it and expect `connections === 0`. */
export function startCanaryServer(host = '127.0.0.1'): Promise<LoopbackServer> {
  return startRawServer(host, (socket) => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\ncanary'));
}
