import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer, type McpServerOptions } from './server.ts';

export interface McpStdioOptions extends McpServerOptions {
  input: Readable;
  output: Writable;
}

export interface McpStdioServer {
  /** Settles when the client goes away (stdin ends) or `close()` is called. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** MCP on stdio: one server, one session (the process), protocol only on `output`. */
export async function serveMcpStdio(options: McpStdioOptions): Promise<McpStdioServer> {
  const { input, output, ...serverOptions } = options;
  const server = createMcpServer(serverOptions);
  const transport = new StdioServerTransport(input, output);
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  const close = async () => {
    await server.close();
  };
  input.once('end', () => void close());
  input.once('close', () => void close());
  await server.connect(transport);
  return { closed, close };
}
