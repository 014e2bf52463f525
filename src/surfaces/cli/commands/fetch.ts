import { hintFor as callHint } from '../../../agent/call-hint.ts';
import type { FetchBackendId } from '../../../config/fetch-schema.ts';
import { loadConfig } from '../../../config/load-config.ts';
import type { ToolErrorData } from '../../../errors.ts';
import type { ToolResult } from '../../../tool-call.ts';
import { bestPassageStart, openingEnd, passagesHint } from '../../../tools/fetch-output.ts';
import {
  listsSectionsAfter,
  readOnHint,
  type WebFetchData,
  type WebFetchInput,
  webFetchInputSchema,
} from '../../../tools/web-fetch.ts';
import { checkToolInput } from '../check-tool-input.ts';
import { EXIT_OK } from '../cli-error.ts';
import { EGRESS_FLAGS, EGRESS_FLAGS_HELP, egressOverrides } from '../egress-flags.ts';
import { errorHint } from '../error-hint.ts';
import {
  AGENT_FLAG,
  AGENT_FLAG_HELP,
  agentFlag,
  COMMON_FLAGS,
  NETWORK_FLAGS,
  NETWORK_FLAGS_HELP,
  networkOverrides,
  numberFlag,
  oneUrl,
  type ParsedFlags,
  parseFlags,
} from '../flags.ts';
import { type CliIo, writeLine } from '../io.ts';
import { openPeriscope } from '../open-periscope.ts';
import { printToolResult } from '../print-tool-result.ts';
import { withProgress } from '../progress.ts';

export const FETCH_HELP = `Usage: periscope fetch <url> [<url>…] [options]

Read a web page and print its main content as markdown (or text), wrapped as untrusted content. Several URLs
(at most 20) are read in parallel, one section each in the order given, sharing --max-chars; one that fails
never fails the others.
Private, loopback and link-local addresses are refused unless opened with --allow-private-network.

Options:
  --mode markdown|text    output format (default markdown; config fetch.extractMode)
  --max-chars N           characters to print (default 50000; config fetch.maxChars)
  --start N               continue reading at this character offset (the nextStartIndex of a previous call)
  --query TEXT            print only the passages that answer this question, each under its heading with its
                          character offsets (a --start value), within --max-chars; not with --start
  --max-age SECONDS       accept a cached copy at most this old; 0 fetches the page live
  --browser               render pages in the system's Chromium too: adds browser to fetch.chain after local, so
                          a JavaScript app or bot check local cannot read is handed to it (config fetch.chain)
${AGENT_FLAG_HELP}
  --json                  print the whole ToolResult as JSON
  --config FILE           config file (default: ./periscope.config.{json,yaml}, ~/.config/periscope/)
  -h, --help              this help

${NETWORK_FLAGS_HELP}

${EGRESS_FLAGS_HELP}

Exit codes: 0 ok, 1 the fetch failed (the reason is printed), 2 usage or config error.`;

/** What a person at a terminal can do about a fetch's error: what every command says, and `--browser`. */
function fetchErrorHint(error: ToolErrorData): string {
  // A JavaScript shell and no browser in the chain (fetch-chain.ts names the config key; this is the flag).
  if (error.details?.browser === 'not-in-chain') return ' (or pass --browser)';
  return errorHint(error);
}

/** The flag that sets each input field, for usage messages. */
const INPUT_FLAGS = {
  extractMode: '--mode',
  maxChars: '--max-chars',
  startIndex: '--start',
  query: '--query',
  maxAgeSeconds: '--max-age',
};

const FLAGS = {
  ...COMMON_FLAGS,
  ...NETWORK_FLAGS,
  ...EGRESS_FLAGS,
  ...AGENT_FLAG,
  mode: { type: 'string' },
  'max-chars': { type: 'string' },
  start: { type: 'string' },
  query: { type: 'string' },
  'max-age': { type: 'string' },
  browser: { type: 'boolean' },
} as const;

export async function fetchCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags('fetch', argv, FLAGS);
  if (values.help) {
    writeLine(io.stdout, FETCH_HELP);
    return EXIT_OK;
  }
  if (positionals.length === 0) oneUrl(positionals, 'fetch', 'periscope fetch <url> [<url>…]');
  const url = positionals[0] as string;
  const urls = positionals.length > 1 ? [...positionals] : undefined;
  const agentId = agentFlag(values);
  const mode = values.mode;
  const maxChars = numberFlag(values, 'max-chars');
  const startIndex = numberFlag(values, 'start');
  const query = values.query;
  const maxAgeSeconds = numberFlag(values, 'max-age');
  const input = {
    ...(urls === undefined ? { url } : { urls }),
    ...(mode === undefined ? {} : { extractMode: mode }),
    ...(maxChars === undefined ? {} : { maxChars }),
    ...(startIndex === undefined ? {} : { startIndex }),
    ...(query === undefined ? {} : { query }),
    ...(maxAgeSeconds === undefined ? {} : { maxAgeSeconds }),
  };
  // The tool's schema judges the input the flags make; the CLI only names the flag in the message.
  checkToolInput(webFetchInputSchema, input, 'web_fetch', INPUT_FLAGS, values);
  const overrides: Record<string, unknown> = {
    network: networkOverrides(values),
    ...egressOverrides(values),
  };
  if (values.browser) overrides.fetch = { chain: chainWithBrowser(configuredChain(io, values, overrides)) };
  const { periscope } = openPeriscope(io, values, overrides);
  // The progress line waits for the egress checks: a URL refused for a secret is never shown.
  const result = await withProgress(io, callHint({ name: 'web_fetch', input }), (onAdmitted) =>
    // The person at the command line gave the URL: it is the task's own (egress.seenUrlsOnly).
    periscope.fetch(input as WebFetchInput, { agentId, egress: { seenUrls: urls ?? [url] }, onAdmitted }),
  );
  await periscope.close();
  return printToolResult(io, result, { json: Boolean(values.json), render: forPeople, hint: fetchErrorHint });
}

/** `--browser`: the chain with browser right after local (last when there is no local), unless it is in it. */
export function chainWithBrowser(chain: readonly FetchBackendId[]): FetchBackendId[] {
  if (chain.includes('browser')) return [...chain];
  const local = chain.indexOf('local');
  if (local === -1) return [...chain, 'browser'];
  return [...chain.slice(0, local + 1), 'browser', ...chain.slice(local + 1)];
}

/** `fetch.chain` as the config file (and the other flags) make it. */
function configuredChain(
  io: CliIo,
  values: ParsedFlags,
  overrides: Record<string, unknown>,
): FetchBackendId[] {
  const configPath = typeof values.config === 'string' ? values.config : undefined;
  return loadConfig({ configPath, env: io.env, cwd: io.cwd, overrides }).config.fetch.chain;
}

/**
 * The page as a person reads it: the model's read-on sentence ("call web_fetch with … startIndex=N", the last
 * line of a truncated result, rebuilt from `data` by the tool's own `readOnHint`, or `passagesHint` after
 * passages) becomes the flag to pass.
 */
function forPeople(result: ToolResult): string {
  // Many URLs: the sections as the model reads them (each page's read-on note names its own url).
  if (Array.isArray((result.data as { results?: unknown }).results)) return result.output;
  const data = result.data as WebFetchData;
  if (data.passages && data.passages.length > 0) return passagesForPeople(result.output, data);
  if (!data.truncated || data.nextStartIndex === undefined) return result.output;
  const modelHint = `\n${readOnHint(data)}`;
  if (!result.output.endsWith(modelHint)) return result.output;
  const end = data.startIndex + data.length;
  const sections = listsSectionsAfter(data)
    ? ' The sections after this point are listed at the end of the content above, each startIndex a --start value.'
    : '';
  return (
    `${result.output.slice(0, -modelHint.length)}\n` +
    `[Showing characters ${data.startIndex}–${end} of ${data.totalLength}.${sections} ` +
    `To read on, run the same command with --start ${data.nextStartIndex}.]`
  );
}

/** After passages: how much was left out, and the `--start` that reads any part in full. */
function passagesForPeople(output: string, data: WebFetchData): string {
  const modelHint = `\n${passagesHint(data)}`;
  if (!data.truncated || !output.endsWith(modelHint)) return output;
  const count = data.passages?.length ?? 0;
  if (data.queryMatched === false) {
    return (
      `${output.slice(0, -modelHint.length)}\n` +
      `[${count} opening passage${count === 1 ? '' : 's'}, none matching the query: ${data.length} of ` +
      `${data.totalLength} characters. To read on, run the same command without --query and with ` +
      `--start ${openingEnd(data)}.]`
    );
  }
  const best = bestPassageStart(data) ?? 0;
  return (
    `${output.slice(0, -modelHint.length)}\n` +
    `[${count} passage${count === 1 ? '' : 's'} for the query: ${data.length} of ${data.totalLength} characters; ` +
    'the rest of the page was left out. To read any part in full, run the same command without --query and ' +
    `with --start N, N the offset to begin at (--start ${best} reads on from the best-matching passage).]`
  );
}
