import { readFileSync } from 'node:fs';
import { isPeriscopeError } from '../../errors.ts';
import { EXIT_OK, EXIT_TOOL_ERROR, EXIT_USAGE, UsageError } from './cli-error.ts';
import { type CliIo, processIo, writeLine } from './io.ts';

const HELP = `periscope — safe web access for LLM agents

Usage: periscope <command> [options]

Commands:
  ask <question…>     an agent that searches, reads and answers with sources (any OpenAI-compatible model)
  search <query…>     search the web through the provider chain (fallback on failure)
  images <query…>     search for images
  fetch <url>         read a web page as markdown or text (guarded against private addresses)
  verify <url> --quote TEXT   is a quoted passage on that page? found / moved / changed / unreachable
  extract [file|-]    offline: HTML from a file or stdin → main content
  config show|schema  print the effective configuration (secrets redacted), or its JSON Schema for editors
  status              search providers (chain, keys, health, quota) and today's usage
  credits show|grant|ledger   credit balances per agent (limits.credits)
  mcp                 MCP server on stdio (--tools web_search,web_fetch to offer fewer tools)
  serve               HTTP gateway and MCP over HTTP (/mcp) on 127.0.0.1:7800 (--port N, --host H)
  keys create|list|revoke   API keys for serve (each key acts as its --agent)

Options:
  -h, --help          help (also 'periscope <command> --help')
  -v, --version       version

Exit codes: 0 ok, 1 tool error, 2 usage or config error.`;

// Each command loads its own modules when it runs, so `extract` or `config show` does not pay for the search
// providers, the store or the gateway (cold start: bench/cold-start.bench.ts).
const COMMANDS: Record<string, (argv: string[], io: CliIo) => Promise<number>> = {
  search: async (argv, io) => (await import('./commands/search.ts')).searchCommand(argv, io),
  images: async (argv, io) => (await import('./commands/search.ts')).imagesCommand(argv, io),
  fetch: async (argv, io) => (await import('./commands/fetch.ts')).fetchCommand(argv, io),
  verify: async (argv, io) => (await import('./commands/verify.ts')).verifyCommand(argv, io),
  extract: async (argv, io) => (await import('./commands/extract.ts')).extractCommand(argv, io),
  config: async (argv, io) => (await import('./commands/config-show.ts')).configCommand(argv, io),
  status: async (argv, io) => (await import('./commands/status.ts')).statusCommand(argv, io),
  credits: async (argv, io) => (await import('./commands/credits.ts')).creditsCommand(argv, io),
  mcp: async (argv, io) => (await import('./commands/mcp.ts')).mcpCommand(argv, io),
  serve: async (argv, io) => (await import('./commands/serve.ts')).serveCommand(argv, io),
  keys: async (argv, io) => (await import('./commands/keys.ts')).keysCommand(argv, io),
  ask: async (argv, io) => (await import('./commands/ask.ts')).askCommand(argv, io),
};

/** Run the CLI; returns the exit code. Never throws for a user mistake. */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      writeLine(command === undefined ? io.stderr : io.stdout, HELP);
      return command === undefined ? EXIT_USAGE : EXIT_OK;
    }
    if (command === '--version' || command === '-v') {
      writeLine(io.stdout, version());
      return EXIT_OK;
    }
    const run = COMMANDS[command];
    if (!run) {
      throw new UsageError(
        `unknown command '${command}'; commands are ${Object.keys(COMMANDS).join(', ')} (see 'periscope --help')`,
      );
    }
    return await run(rest, io);
  } catch (error) {
    return reportError(error, io);
  }
}

function reportError(error: unknown, io: CliIo): number {
  if (error instanceof UsageError) {
    writeLine(io.stderr, `periscope: ${error.message}`);
    return EXIT_USAGE;
  }
  if (isPeriscopeError(error)) {
    writeLine(io.stderr, `periscope: ${error.message}`);
    const problems = error.details.problems;
    if (Array.isArray(problems)) for (const problem of problems) writeLine(io.stderr, `  - ${problem}`);
    return error.code === 'CONFIG_INVALID' || error.code === 'INVALID_INPUT' ? EXIT_USAGE : EXIT_TOOL_ERROR;
  }
  const message = error instanceof Error ? error.message : String(error);
  writeLine(
    io.stderr,
    `periscope: internal error: ${message} (this is a bug; PERISCOPE_DEBUG=1 prints the stack)`,
  );
  if (io.env.PERISCOPE_DEBUG) writeLine(io.stderr, (error as Error).stack ?? '');
  return EXIT_TOOL_ERROR;
}

function version(): string {
  return (
    JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
  ).version;
}
