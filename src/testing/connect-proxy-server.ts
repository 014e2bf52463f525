import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { TEST_TLS_CERT, TEST_TLS_KEY } from './tls-fixtures.ts';

export interface ConnectProxyServer {
  /** `http://127.0.0.1:<port>` (`https://` with `tls: true`) */
  url: string;
  port: number;
  /** Every CONNECT request-target received, e.g. `127.0.0.1:8080` or `[::1]:443`. */
  connects: string[];
  /** CONNECT targets refused because they are not loopback (the test proxy never dials out). */
  refused: string[];
  /** Absolute-form requests (`GET http://…`), which this proxy does not serve. */
  plainRequests: string[];
  close(): Promise<void>;
}

export interface ConnectProxyOptions {
  /** Require `Proxy-Authorization: Basic …` with these credentials (407 otherwise). */
  auth?: { username: string; password: string };
  /** Accept the TCP connection but never answer CONNECT (for connect-timeout tests). */
  stall?: boolean;
  /** Speak TLS to the client (an `https://` proxy) with the test certificate. */
  tls?: boolean;
  /**
   * Tunnel CONNECTs to a non-loopback target to this loopback server instead of refusing them: a site on
   * 127.0.0.1 stands in for a public address the test's resolver gave (the proxy still never dials out).
   */
  publicTargetsTo?: { host: string; port: number };
}

function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^\[([^\]]+)\]:(\d+)$/.exec(authority) ?? /^([^:]+):(\d+)$/.exec(authority);
  return match?.[1] && match[2] ? { host: match[1], port: Number(match[2]) } : undefined;
}

function isLoopbackLiteral(host: string): boolean {
  return /^127\.\d+\.\d+\.\d+$/.test(host) || host === '::1';
}

/** A real HTTP CONNECT proxy on 127.0.0.1 that only ever tunnels to loopback addresses, recording every target. */
export async function startConnectProxyServer(
  options: ConnectProxyOptions = {},
): Promise<ConnectProxyServer> {
  const connects: string[] = [];
  const refused: string[] = [];
  const plainRequests: string[] = [];
  const sockets = new Set<Socket>();
  const onRequest: Parameters<typeof createServer>[1] = (request, response) => {
    plainRequests.push(`${request.method} ${request.url}`);
    response.writeHead(405, { connection: 'close' }).end('CONNECT only');
  };
  const server = options.tls
    ? createHttpsServer({ cert: TEST_TLS_CERT, key: TEST_TLS_KEY }, onRequest)
    : createServer(onRequest);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('connect', (request, clientSocket: Socket, head: Buffer) => {
    clientSocket.on('error', () => {});
    const authority = request.url ?? '';
    connects.push(authority);
    if (options.stall) return;
    if (options.auth) {
      const expected = Buffer.from(`${options.auth.username}:${options.auth.password}`).toString('base64');
      if (request.headers['proxy-authorization'] !== `Basic ${expected}`) {
        clientSocket.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\n');
        return;
      }
    }
    const asked = parseAuthority(authority);
    const standIn = options.publicTargetsTo;
    const target =
      asked && standIn && !isLoopbackLiteral(asked.host) && isLoopbackLiteral(standIn.host) ? standIn : asked;
    if (!target || !isLoopbackLiteral(target.host)) {
      refused.push(authority);
      clientSocket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = connect(target.port, target.host);
    sockets.add(upstream);
    upstream.on('error', () => clientSocket.destroy());
    upstream.on('close', () => sockets.delete(upstream));
    upstream.once('connect', () => {
      clientSocket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(clientSocket);
      clientSocket.pipe(upstream);
    });
    clientSocket.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    connects,
    refused,
    plainRequests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
