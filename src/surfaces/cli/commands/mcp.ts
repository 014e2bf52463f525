import type { Readable, Writable } from 'node:stream';
import { format } from 'node:util';
import { selectTools, splitToolList } from '../../mcp/select-tools.ts';
import { EXIT_OK } from '../cli-error.ts';
import { EGRESS_FLAGS, EGRESS_FLAGS_HELP, egressOverrides } from '../egress-flags.ts';
import { COMMON_FLAGS, NETWORK_FLAGS, NETWORK_FLAGS_HELP, networkOverrides, parseFlags } from '../flags.ts';
import { type CliIo, writeLine } from '../io.ts';
import { openPeriscope } from '../open-periscope.ts';

export const MCP_HELP = `Usage: periscope mcp [options]

Serve the tools to an MCP client over stdio: JSON-RPC on stdin/stdout, logs on stderr. The process is one MCP
session; it ends when the client closes stdin.

Options:
  --tools LIST            tools to offer, comma-separated, e.g. web_search,web_fetch (default: every enabled tool;
                          config mcp.tools)
  --agent ID              the agent id limits and credits apply to (default mcp; config mcp.agentId)
  --config FILE           config file (default: ./periscope.config.{json,yaml}, ~/.config/periscope/)
  -h, --help              this help

${NETWORK_FLAGS_HELP}

${EGRESS_FLAGS_HELP}

A client configuration (Claude Desktop, Cursor, …):
  { "mcpServers": { "periscope": { "command": "npx", "args": ["periscope", "mcp"] } } }

Exit codes: 0 the client closed the session, 2 usage or config error.`;

const FLAGS = {
  ...COMMON_FLAGS,
  ...NETWORK_FLAGS,
  ...EGRESS_FLAGS,
  tools: { type: 'string' },
  agent: { type: 'string' },
} as const;

export async function mcpCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags('mcp', argv, FLAGS);
  if (values.help) {
    writeLine(io.stdout, MCP_HELP);
    return EXIT_OK;
  }
  const { periscope } = openPeriscope(
    io,
    values,
    { network: networkOverrides(values), ...egressOverrides(values) },
    true,
  );
  const names = typeof values.tools === 'string' ? splitToolList(values.tools) : periscope.config.mcp.tools;
  const { tools, switchedOff } = selectTools(periscope.tools, names, values.tools ? '--tools' : 'mcp.tools');
  for (const name of switchedOff) {
    writeLine(io.stderr, `periscope mcp: ${name} is switched off in this deployment (tools.${name}.enabled)`);
  }
  const agentId = typeof values.agent === 'string' ? values.agent : periscope.config.mcp.agentId;
  keepStdoutForProtocol(io);
  const { serveMcpStdio } = await import('../../mcp/stdio.ts');
  const server = await serveMcpStdio({
    tools,
    agentId,
    input: io.stdin as Readable,
    output: io.stdout as Writable,
    onResult: ({ result }) => {
      if (result.display) writeLine(io.stderr, result.display);
    },
  });
  const offered = tools.map((tool) => tool.name).join(', ') || 'no tools';
  writeLine(io.stderr, `periscope mcp: serving ${offered} on stdio as agent ${agentId}`);
  const stop = () => void server.close();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await server.closed;
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  await periscope.close();
  return EXIT_OK;
}

/** Anything a library prints with console.log goes to stderr: stdout carries nothing but the protocol. */
function keepStdoutForProtocol(io: CliIo): void {
  const toStderr = (...args: unknown[]) => {
    io.stderr.write(`${format(...args)}\n`);
  };
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}
