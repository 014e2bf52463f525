import { searchStartLine } from '../../../tools/search-summary.ts';
import type { ToolResult } from '../../../tools/tool-result.ts';
import { EXIT_OK, UsageError } from '../cli-error.ts';
import {
  AGENT_FLAG,
  AGENT_FLAG_HELP,
  agentFlag,
  COMMON_FLAGS,
  integerFlag,
  NETWORK_FLAGS,
  NETWORK_FLAGS_HELP,
  networkOverrides,
  type ParsedFlags,
  parseFlags,
} from '../flags.ts';
import { type CliIo, writeLine } from '../io.ts';
import { openPeriscope } from '../open-periscope.ts';
import { printToolResult } from '../print-tool-result.ts';
import { withProgress } from '../progress.ts';

export const SEARCH_HELP = `Usage: periscope search <query…> [options]

Search the web through the provider chain (search.chain in the config; default: every provider with a key,
then duckduckgo, then wikipedia) and print the results. A provider that fails hands over to the next one.

Options:
  --count N               results to print, 1–20 (default 5; config search.maxResults)
  --provider ID           ask only this provider, no fallback (e.g. brave, duckduckgo, wikipedia)
  --freshness day|week|month|year   only recent results
  --region CC             two-letter country code, e.g. us, de
  --language LL           language code, e.g. en, de
${AGENT_FLAG_HELP}
  --json                  print the whole ToolResult as JSON
  --config FILE           config file (default: ./periscope.config.{json,yaml}, ~/.config/periscope/)
  -h, --help              this help

${NETWORK_FLAGS_HELP}

'periscope status' shows which providers are in the chain and which have keys.
Exit codes: 0 ok (also when there are no results), 1 every provider failed (each reason is printed), 2 usage or
config error.`;

export const IMAGES_HELP = `Usage: periscope images <query…> [options]

Search for images through the provider chain and print image URLs with their source pages. Results that point at
private or local addresses are dropped.

Options:
  --count N               images to print, 1–20 (default 5; config search.maxResults)
  --provider ID           ask only this provider, no fallback (e.g. duckduckgo, brave, serper)
  --size small|medium|large|wallpaper
  --type photo|clipart|gif|transparent|line
  --layout square|tall|wide
${AGENT_FLAG_HELP}
  --json                  print the whole ToolResult as JSON
  --config FILE           config file
  -h, --help              this help

${NETWORK_FLAGS_HELP}

Exit codes: 0 ok, 1 every provider failed (each reason is printed), 2 usage or config error.`;

const SHARED_FLAGS = {
  ...COMMON_FLAGS,
  ...NETWORK_FLAGS,
  ...AGENT_FLAG,
  count: { type: 'string' },
  provider: { type: 'string' },
} as const;

const SEARCH_FLAGS = {
  ...SHARED_FLAGS,
  freshness: { type: 'string' },
  region: { type: 'string' },
  language: { type: 'string' },
} as const;

const IMAGES_FLAGS = {
  ...SHARED_FLAGS,
  size: { type: 'string' },
  type: { type: 'string' },
  layout: { type: 'string' },
} as const;

function choice<T extends string>(values: ParsedFlags, name: string, allowed: readonly T[]): T | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (!allowed.includes(value as T)) {
    throw new UsageError(`--${name} must be one of ${allowed.join(', ')}, got '${String(value)}'`);
  }
  return value as T;
}

function text(values: ParsedFlags, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

export function searchCommand(argv: string[], io: CliIo): Promise<number> {
  return runSearch('search', argv, io);
}

export function imagesCommand(argv: string[], io: CliIo): Promise<number> {
  return runSearch('images', argv, io);
}

async function runSearch(command: 'search' | 'images', argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(
    command,
    argv,
    command === 'search' ? SEARCH_FLAGS : IMAGES_FLAGS,
  );
  if (values.help) {
    writeLine(io.stdout, command === 'search' ? SEARCH_HELP : IMAGES_HELP);
    return EXIT_OK;
  }
  const query = positionals.join(' ').trim();
  if (query === '') {
    throw new UsageError(
      `missing query; usage: periscope ${command} <query…> (see 'periscope ${command} --help')`,
    );
  }
  const count = integerFlag(values, 'count', 1);
  if (count !== undefined && count > 20) throw new UsageError(`--count must be 20 or less, got ${count}`);
  const { periscope } = openPeriscope(io, values, { network: networkOverrides(values) });
  const provider = text(values, 'provider');
  const options = { agentId: agentFlag(values), ...(provider === undefined ? {} : { provider }) };
  let call: () => Promise<ToolResult>;
  if (command === 'search') {
    const freshness = choice(values, 'freshness', ['day', 'week', 'month', 'year'] as const);
    const region = text(values, 'region');
    const language = text(values, 'language');
    const input = {
      query,
      ...(count === undefined ? {} : { count }),
      ...(freshness ? { freshness } : {}),
      ...(region ? { region } : {}),
      ...(language ? { language } : {}),
    };
    call = () => periscope.search(input, options);
  } else {
    const size = choice(values, 'size', ['small', 'medium', 'large', 'wallpaper'] as const);
    const type = choice(values, 'type', ['photo', 'clipart', 'gif', 'transparent', 'line'] as const);
    const layout = choice(values, 'layout', ['square', 'tall', 'wide'] as const);
    const input = {
      query,
      ...(count === undefined ? {} : { count }),
      ...(size ? { size } : {}),
      ...(type ? { type } : {}),
      ...(layout ? { layout } : {}),
    };
    call = () => periscope.imageSearch(input, options);
  }
  const result = await withProgress(io, searchStartLine(command, query), call, { startLine: true });
  await periscope.close();
  return printToolResult(io, result, { json: Boolean(values.json) });
}
