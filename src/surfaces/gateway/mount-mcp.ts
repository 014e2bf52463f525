import { createMcpHttpHandler } from '../mcp/http.ts';
import type { McpHandlerFactory } from './gateway.ts';

/**
 * /mcp under `periscope serve`: the MCP Streamable HTTP handler, each session acting as the agent of the key that
 * opened it (under that key's domains), with the gateway's Host and Origin lists (the gateway checks them too, before authentication).
 */
export const mountMcp: McpHandlerFactory = ({ periscope, hostPolicy, agentOf, egressOf, sessionIdPrefix }) =>
  createMcpHttpHandler(periscope, {
    ...(sessionIdPrefix ? { sessionIdPrefix } : {}),
    sessionAgent: agentOf,
    sessionEgress: egressOf,
    allowedHosts: hostPolicy.allowedHosts,
    allowedOrigins: hostPolicy.allowedOrigins,
  });
