import { type AddressInfo, createServer, type Socket } from 'node:net';

/** Where the browser's own network goes: nowhere, but counted. */
export interface NetworkSink {
  port: number;
  /** The first line of every connection that reached it (`CONNECT 10.0.0.1:443 HTTP/1.1`, …). */
  readonly escaped: readonly string[];
  close(): Promise<void>;
}

const MAX_RECORDED = 100;

/**
 * Chromium is started with this server as its only proxy (`--proxy-server`, loopback included), so a request
 * that slips past route interception — a WebSocket, a worker's socket, a prefetch, a request Playwright does not
 * surface — ends here instead of on the network: it is refused with 403, and its first line is recorded. Page
 * requests never get here: every one is fulfilled by the route handler through the guarded client.
 */
export async function startNetworkSink(): Promise<NetworkSink> {
  const escaped: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.setTimeout(2_000, () => socket.destroy());
    socket.once('data', (chunk: Buffer) => {
      const line = chunk.toString('latin1').split('\r\n', 1)[0] ?? '';
      if (escaped.length < MAX_RECORDED) escaped.push(line.slice(0, 300));
      socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  server.unref();
  return {
    port: (server.address() as AddressInfo).port,
    escaped,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
