import type { Periscope } from '../../../index.ts';
import type { ToolResult } from '../../../tool-call.ts';
import { type ImageSearchInput, imageSearchInputSchema } from '../../../tools/image-search.ts';
import { readTopNote } from '../../../tools/read-top.ts';
import { searchStartLine } from '../../../tools/search-summary.ts';
import { type WebSearchData, type WebSearchInput, webSearchInputSchema } from '../../../tools/web-search.ts';
import { checkToolInput } from '../check-tool-input.ts';
import { EXIT_OK, UsageError } from '../cli-error.ts';
import { EGRESS_FLAGS, EGRESS_FLAGS_HELP, egressOverrides } from '../egress-flags.ts';
import {
  AGENT_FLAG,
  AGENT_FLAG_HELP,
  agentFlag,
  COMMON_FLAGS,
  NETWORK_FLAGS,
  NETWORK_FLAGS_HELP,
  networkOverrides,
  numberFlag,
  type ParsedFlags,
  parseFlags,
} from '../flags.ts';
import { type CliIo, writeLine } from '../io.ts';
import { openPeriscope } from '../open-periscope.ts';
import { printToolResult } from '../print-tool-result.ts';
import { withProgress } from '../progress.ts';

export const SEARCH_HELP = `Usage: periscope search <query…> [options]

Search the web through the provider chain (search.chain in the config; default: every provider with a key,
then duckduckgo, marginalia and wikipedia) and print the results. A provider that fails hands over to the next one.

Options:
  --count N               results to print, 1–20 (default 5; config search.maxResults)
  --provider ID           ask only this provider, no fallback (e.g. brave, duckduckgo, wikipedia)
  --freshness day|week|month|year   only recent results
  --region CC             two-letter country code, e.g. us, de
  --language LL           language code, e.g. en, de
  --topic general|news    news: news articles, each with its date and publication
  --after YYYY-MM-DD      only results published on or after this date
  --before YYYY-MM-DD     only results published on or before this date
  --keep-undated          with --after/--before: keep results that have no date
  --safe off|moderate|strict   adult-content filter (default moderate; config search.safeSearch)
  --offset N              skip N results: the next page (e.g. --offset 5 after --count 5)
  --read-top N            also read the top N results (0–5) and print under each the passages of its page that
                          answer the query, with their offsets; each page read is a fetch (credits, limits)
  --read-max-chars N      characters of passages from all pages read together (default 2000 per page)
  --max-age SECONDS       accept a cached answer (and page reads) at most this old; 0 searches live
${AGENT_FLAG_HELP}
  --json                  print the whole ToolResult as JSON
  --config FILE           config file (default: ./periscope.config.{json,yaml}, ~/.config/periscope/)
  -h, --help              this help

${NETWORK_FLAGS_HELP}

${EGRESS_FLAGS_HELP}

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
  --max-age SECONDS       accept a cached answer at most this old; 0 searches live
  --safe off|moderate|strict   adult-content filter (default moderate; config search.safeSearch)
${AGENT_FLAG_HELP}
  --json                  print the whole ToolResult as JSON
  --config FILE           config file
  -h, --help              this help

${NETWORK_FLAGS_HELP}

${EGRESS_FLAGS_HELP}

Exit codes: 0 ok, 1 every provider failed (each reason is printed), 2 usage or config error.`;

const SHARED_FLAGS = {
  ...COMMON_FLAGS,
  ...NETWORK_FLAGS,
  ...EGRESS_FLAGS,
  ...AGENT_FLAG,
  count: { type: 'string' },
  provider: { type: 'string' },
  'max-age': { type: 'string' },
  safe: { type: 'string' },
} as const;

const SEARCH_FLAGS = {
  ...SHARED_FLAGS,
  freshness: { type: 'string' },
  region: { type: 'string' },
  language: { type: 'string' },
  topic: { type: 'string' },
  after: { type: 'string' },
  before: { type: 'string' },
  'keep-undated': { type: 'boolean' },
  offset: { type: 'string' },
  'read-top': { type: 'string' },
  'read-max-chars': { type: 'string' },
} as const;

const IMAGES_FLAGS = {
  ...SHARED_FLAGS,
  size: { type: 'string' },
  type: { type: 'string' },
  layout: { type: 'string' },
} as const;

/** The flag that sets each input field, for usage messages. */
const INPUT_FLAGS = {
  count: '--count',
  freshness: '--freshness',
  region: '--region',
  language: '--language',
  size: '--size',
  type: '--type',
  layout: '--layout',
  readTop: '--read-top',
  readMaxChars: '--read-max-chars',
  maxAgeSeconds: '--max-age',
  topic: '--topic',
  after: '--after',
  before: '--before',
  keepUndated: '--keep-undated',
  safeSearch: '--safe',
  offset: '--offset',
};

/** The input without the fields no flag set. */
function defined(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
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
  // The tool's schema judges the input the flags make; the CLI only names the flag in the message.
  const count = numberFlag(values, 'count');
  const maxAgeSeconds = numberFlag(values, 'max-age');
  const provider = text(values, 'provider');
  const options = { agentId: agentFlag(values), ...(provider === undefined ? {} : { provider }) };
  let call: (periscope: Periscope, onAdmitted: () => void) => Promise<ToolResult>;
  if (command === 'search') {
    const region = text(values, 'region');
    const language = text(values, 'language');
    const input = defined({
      query,
      count,
      freshness: values.freshness,
      ...(region ? { region } : {}),
      ...(language ? { language } : {}),
      readTop: numberFlag(values, 'read-top'),
      readMaxChars: numberFlag(values, 'read-max-chars'),
      maxAgeSeconds,
      topic: text(values, 'topic'),
      after: text(values, 'after'),
      before: text(values, 'before'),
      keepUndated: values['keep-undated'] ? true : undefined,
      safeSearch: text(values, 'safe'),
      offset: numberFlag(values, 'offset'),
    });
    checkToolInput(webSearchInputSchema, input, 'web_search', INPUT_FLAGS, values);
    call = (periscope, onAdmitted) => periscope.search(input as WebSearchInput, { ...options, onAdmitted });
  } else {
    const input = defined({
      query,
      count,
      size: values.size,
      type: values.type,
      layout: values.layout,
      maxAgeSeconds,
      safeSearch: text(values, 'safe'),
    });
    checkToolInput(imageSearchInputSchema, input, 'image_search', INPUT_FLAGS, values);
    call = (periscope, onAdmitted) =>
      periscope.imageSearch(input as ImageSearchInput, { ...options, onAdmitted });
  }
  const { periscope } = openPeriscope(io, values, {
    network: networkOverrides(values),
    ...egressOverrides(values),
  });
  // The start line waits for the egress checks: a query refused for a secret is never printed.
  const result = await withProgress(
    io,
    searchStartLine(command, query),
    (onAdmitted) => call(periscope, onAdmitted),
    { startLine: true },
  );
  await periscope.close();
  return printToolResult(io, result, {
    json: Boolean(values.json),
    ...(command === 'search' ? { render: forPeople } : {}),
  });
}

/** The model's closing note after read results ("call web_fetch with its url …") as the command to run. */
function forPeople(result: ToolResult): string {
  const { results } = result.data as WebSearchData;
  const note = readTopNote(results);
  if (note === undefined || !result.output.endsWith(`\n${note}`)) return result.output;
  const read = results.filter(
    (entry) => entry.passages !== undefined || entry.readError !== undefined,
  ).length;
  return (
    `${result.output.slice(0, -note.length)}` +
    `[The top ${read} result${read === 1 ? ' was' : 's were'} read for the passages that answer the query. ` +
    "To read one in full, run periscope fetch <its url> (with --start N to read on from a passage's offset).]"
  );
}
