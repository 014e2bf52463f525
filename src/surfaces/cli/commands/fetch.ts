import { loadConfig } from '../../../config/load-config.ts';
import type { ErrorCode, ToolErrorData } from '../../../errors.ts';
import { createPeriscope } from '../../../index.ts';
import { EXIT_OK, EXIT_TOOL_ERROR, EXIT_USAGE, UsageError } from '../cli-error.ts';
import {
  AGENT_FLAG,
  AGENT_FLAG_HELP,
  agentFlag,
  COMMON_FLAGS,
  integerFlag,
  NETWORK_FLAGS,
  NETWORK_FLAGS_HELP,
  networkOverrides,
  parseFlags,
} from '../flags.ts';
import { type CliIo, writeLine } from '../io.ts';

export const FETCH_HELP = `Usage: periscope fetch <url> [options]

Read a web page and print its main content as markdown (or text), wrapped as untrusted content.
Private, loopback and link-local addresses are refused unless opened with --allow-private-network.

Options:
  --mode markdown|text    output format (default markdown; config fetch.extractMode)
  --max-chars N           characters to print (default 50000; config fetch.maxChars)
  --start N               continue reading at this character offset (the nextStartIndex of a previous call)
${AGENT_FLAG_HELP}
  --json                  print the whole ToolResult as JSON
  --config FILE           config file (default: ./periscope.config.{json,yaml}, ~/.config/periscope/)
  -h, --help              this help

${NETWORK_FLAGS_HELP}

Exit codes: 0 ok, 1 the fetch failed (the reason is printed), 2 usage or config error.`;

/** What a person at a terminal can do about an error (the model gets its own sentence). */
const HINTS: Partial<Record<ErrorCode, string>> = {
  URL_BLOCKED: ' (if you trust that network, open it with --allow-private-network <cidr|host>)',
  TIMEOUT: ' (raise the limit with the flag it names, e.g. --timeout-ms)',
  BODY_TOO_LARGE: ' (raise the limit with the flag it names, e.g. --max-bytes)',
};

const FLAGS = {
  ...COMMON_FLAGS,
  ...NETWORK_FLAGS,
  ...AGENT_FLAG,
  mode: { type: 'string' },
  'max-chars': { type: 'string' },
  start: { type: 'string' },
} as const;

export async function fetchCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags('fetch', argv, FLAGS);
  if (values.help) {
    writeLine(io.stdout, FETCH_HELP);
    return EXIT_OK;
  }
  if (positionals.length !== 1) {
    throw new UsageError(
      positionals.length === 0
        ? "missing URL; usage: periscope fetch <url> (see 'periscope fetch --help')"
        : `expected one URL, got ${positionals.length}; quote URLs that contain spaces`,
    );
  }
  const mode = values.mode;
  if (mode !== undefined && mode !== 'markdown' && mode !== 'text') {
    throw new UsageError(`--mode must be markdown or text, got '${mode}'`);
  }
  const agentId = agentFlag(values);
  const { config } = loadConfig({
    configPath: values.config as string | undefined,
    env: io.env,
    cwd: io.cwd,
    overrides: { network: networkOverrides(values) },
  });
  const periscope = createPeriscope(config, { env: io.env });
  const maxChars = integerFlag(values, 'max-chars', 100);
  const startIndex = integerFlag(values, 'start', 0);
  const result = await periscope.fetch(
    {
      url: positionals[0] as string,
      ...(mode ? { extractMode: mode } : {}),
      ...(maxChars === undefined ? {} : { maxChars }),
      ...(startIndex === undefined ? {} : { startIndex }),
    },
    { agentId },
  );
  await periscope.close();
  if (values.json) writeLine(io.stdout, JSON.stringify(result, null, 2));
  if (!result.isError) {
    if (!values.json) writeLine(io.stdout, result.output);
    if (result.display) writeLine(io.stderr, result.display);
    return EXIT_OK;
  }
  const { error } = result.data as { error: ToolErrorData };
  if (!values.json) writeLine(io.stderr, `periscope: ${error.message}${HINTS[error.code] ?? ''}`);
  return error.code === 'INVALID_INPUT' ? EXIT_USAGE : EXIT_TOOL_ERROR;
}
