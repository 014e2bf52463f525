import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError, readJsonBody, sendJson } from '../http-io.ts';
import type { Call, GatewayServices } from '../route.ts';

/** /mcp (GET, POST, DELETE): MCP Streamable HTTP, each request as the principal the router authenticated. */
export async function mcp(call: Call, gateway: GatewayServices): Promise<void> {
  if (!gateway.mcp) throw new GatewayError(503, 'UNAVAILABLE', 'the MCP endpoint is not available');
  gateway.principals.set(call.request, call.principal);
  await gateway.mcp(call.request, call.response, call.body);
}

/** How many `tools/call` requests a JSON-RPC message (or batch) holds: what a key's rate counts on /mcp. */
export function toolCallsIn(message: unknown): number {
  const messages = Array.isArray(message) ? message : [message];
  return messages.filter((item) => (item as { method?: unknown } | null)?.method === 'tools/call').length;
}

/**
 * A POST to /mcp: its JSON-RPC message, or undefined once a parse error has been answered (as JSON-RPC: 400 with
 * code -32700). The body limit holds here too: the gateway reads POST bodies and hands the parsed message on.
 */
export async function readMcpBody(
  request: IncomingMessage,
  response: ServerResponse,
  maxBytes: number,
): Promise<{ message: unknown } | undefined> {
  try {
    return { message: await readJsonBody(request, maxBytes) };
  } catch (error) {
    if (!(error instanceof GatewayError) || error.code !== 'BAD_REQUEST') throw error;
    const invalid = { code: -32700, message: `Parse error: ${error.message}` };
    sendJson(response, 400, { jsonrpc: '2.0', error: invalid, id: null });
    return undefined;
  }
}
