import { fileURLToPath } from 'node:url';

/**
 * What `periscope serve` prints on start: where it listens, and MCP client configurations to paste, one for HTTP
 * (this server) and one for stdio (the client starts its own `periscope mcp`).
 */
export function startBanner(options: {
  url: string;
  tools: readonly string[];
  keysRequired: boolean;
  /** The operator console is served (gateway.console.enabled). */
  console?: boolean;
  configPath?: string | undefined;
}): string {
  const { url, tools } = options;
  const http = {
    mcpServers: {
      periscope: {
        type: 'http',
        url: `${url}/mcp`,
        ...(options.keysRequired
          ? { headers: { Authorization: 'Bearer <key from periscope keys create>' } }
          : {}),
      },
    },
  };
  const bin = fileURLToPath(new URL('../../../bin/periscope.js', import.meta.url));
  const stdio = {
    mcpServers: {
      periscope: {
        command: process.execPath,
        args: [bin, 'mcp', ...(options.configPath ? ['--config', options.configPath] : [])],
      },
    },
  };
  const toolList = tools.length === 1 ? tools[0] : `{${tools.join(',')}}`;
  return [
    `Periscope gateway on ${url}`,
    `  tools    POST ${url}/v1/tools/${toolList}   (GET /v1/tools, /openapi.json)`,
    `  MCP      ${url}/mcp   (Streamable HTTP)`,
    ...(options.console === false
      ? []
      : [
          `  console  ${url}/console   (${options.keysRequired ? 'an admin key signs in' : 'open: no keys yet'})`,
        ]),
    '  ops      /v1/status  /healthz  /metrics',
    '',
    'MCP client configuration, over HTTP (this server):',
    JSON.stringify(http, null, 2),
    '',
    'MCP client configuration, over stdio (the client starts its own Periscope):',
    JSON.stringify(stdio, null, 2),
    '',
    'Ctrl-C stops it; calls in flight finish first.',
  ].join('\n');
}
