import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedCall {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: string;
}

export type TestHandler = (request: IncomingMessage, response: ServerResponse, body: string) => unknown;

export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  calls: RecordedCall[];
  server: Server;
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1, port 0. `routes` maps `"GET /path"` (or `"/path"` for any method) to a handler;
 * unmatched requests get 404. Every request is recorded in `calls`.
 */
export async function startTestServer(
  routes: Record<string, TestHandler> | TestHandler,
): Promise<TestServer> {
  const calls: RecordedCall[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(request.url ?? '/', `http://${request.headers.host ?? '127.0.0.1'}`);
    calls.push({ method: request.method ?? 'GET', url, headers: request.headers, body });
    const handler =
      typeof routes === 'function'
        ? routes
        : (routes[`${request.method} ${url.pathname}`] ?? routes[url.pathname]);
    if (!handler) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    try {
      await handler(request, response, body);
    } catch (error) {
      if (!response.headersSent) response.writeHead(500);
      response.end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    calls,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
