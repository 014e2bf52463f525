import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { GatewayPeers } from './gateway-types.ts';
import { sendJson } from './http-io.ts';

/**
 * Under `serve --workers N` MCP sessions live in the worker that opened them: the loopback port of another worker
 * holding the request's session, if one does.
 */
export function peerHolding(request: IncomingMessage, peers: GatewayPeers | undefined): number | undefined {
  const session = request.headers['mcp-session-id'];
  if (!peers || typeof session !== 'string') return undefined;
  const prefix = /^w\d+\./.exec(session)?.[0];
  if (prefix === undefined || prefix === peers.self) return undefined;
  return peers.portOf(prefix);
}

/** Relays the request to the worker holding its session, and its answer (an event stream too) back. */
export function handOn(request: IncomingMessage, response: ServerResponse, port: number): Promise<void> {
  return new Promise((resolve) => {
    // A connection of its own each time (loopback, cheap): no pooled socket the holder may be closing.
    const { connection: _connection, 'keep-alive': _keepAlive, ...headers } = request.headers;
    const upstream = httpRequest(
      { host: '127.0.0.1', port, method: request.method, path: request.url, headers, agent: false },
      (answer) => {
        const { connection: _closing, 'keep-alive': _alive, ...answered } = answer.headers;
        response.writeHead(answer.statusCode ?? 502, answered);
        answer.pipe(response);
        answer.on('end', resolve);
        answer.on('error', () => resolve());
      },
    );
    upstream.on('error', (error) => {
      // The holder is gone (and its sessions with it): the client starts a new session, as MCP says on 404.
      if (!response.headersSent) {
        const gone = { code: -32001, message: `Session not found (its worker is gone: ${error.message})` };
        sendJson(response, 404, { jsonrpc: '2.0', error: gone, id: null });
      } else response.destroy();
      resolve();
    });
    response.on('close', () => {
      if (!response.writableFinished) upstream.destroy();
      resolve();
    });
    request.pipe(upstream);
  });
}
