import {
  describeVerification,
  type VerifyCitationInput,
  verifyCitationInputSchema,
} from '../../../citations/verify-citation.ts';
import { shortUrl } from '../../../tools/validate-input.ts';
import { checkToolInput } from '../check-tool-input.ts';
import { EXIT_OK, EXIT_TOOL_ERROR, UsageError } from '../cli-error.ts';
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
  parseFlags,
} from '../flags.ts';
import { type CliIo, writeLine } from '../io.ts';
import { openPeriscope } from '../open-periscope.ts';
import { withProgress } from '../progress.ts';

export const VERIFY_HELP = `Usage: periscope verify <url> --quote TEXT [options]

Check that a quoted passage is on the page a citation names, and say one of:
  found        the quote is where the citation says (at --start/--end; anywhere without them), and the page is the
               one cited (same --hash, when given)
  moved        the quote is on the page, but at other offsets (printed), or the page changed around it (hash differs)
  changed      the quote is not on the page
  unreachable  the page could not be read (the error code is printed)
The quote matches exactly, or else differing in whitespace only (then the line says so). Offsets are characters
into the whole extracted text, as 'periscope fetch --start' counts them.

The page is read from the cache a recent fetch left (the store, for cache.ttlMs) when it is there; otherwise, or with
--refetch, it is fetched: a web_fetch call, under the same limits, credits and network rules.

Options:
  --quote TEXT            the quoted text, verbatim (required)
  --hash sha256:HEX       the citation's contentHash (sha256 of the whole extracted text)
  --start N               the citation's start offset (give --end too)
  --end N                 the citation's end offset (exclusive)
  --mode markdown|text    the extract mode the offsets count in (default markdown; config fetch.extractMode)
  --refetch               fetch the page again even when it is cached
  --cache-only            never fetch: a page not in the cache is unreachable
${AGENT_FLAG_HELP}
  --json                  print the result as JSON
  --config FILE           config file (default: ./periscope.config.{json,yaml}, ~/.config/periscope/)
  -h, --help              this help

${NETWORK_FLAGS_HELP}

${EGRESS_FLAGS_HELP}

Exit codes: 0 found or moved (the quote is on the page), 1 changed or unreachable, 2 usage or config error.`;

/** The flag that sets each input field, for usage messages. */
const INPUT_FLAGS = {
  quote: '--quote',
  contentHash: '--hash',
  start: '--start',
  end: '--end',
  extractMode: '--mode',
  refetch: '--refetch',
  cacheOnly: '--cache-only',
};

const FLAGS = {
  ...COMMON_FLAGS,
  ...NETWORK_FLAGS,
  ...EGRESS_FLAGS,
  ...AGENT_FLAG,
  quote: { type: 'string' },
  hash: { type: 'string' },
  start: { type: 'string' },
  end: { type: 'string' },
  mode: { type: 'string' },
  refetch: { type: 'boolean' },
  'cache-only': { type: 'boolean' },
} as const;

export async function verifyCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags('verify', argv, FLAGS);
  if (values.help) {
    writeLine(io.stdout, VERIFY_HELP);
    return EXIT_OK;
  }
  const url = oneUrl(
    positionals,
    'verify',
    'periscope verify <url> --quote TEXT',
    'quote the --quote text and URLs that contain spaces',
  );
  if (values.quote === undefined) {
    throw new UsageError("missing --quote TEXT: the passage to look for (see 'periscope verify --help')");
  }
  const start = numberFlag(values, 'start');
  const end = numberFlag(values, 'end');
  const input = {
    url,
    quote: values.quote,
    ...(values.hash === undefined ? {} : { contentHash: values.hash }),
    ...(start === undefined ? {} : { start }),
    ...(end === undefined ? {} : { end }),
    ...(values.mode === undefined ? {} : { extractMode: values.mode }),
    ...(values.refetch ? { refetch: true } : {}),
    ...(values['cache-only'] ? { cacheOnly: true } : {}),
  };
  checkToolInput(verifyCitationInputSchema, input, 'verify', INPUT_FLAGS, values);
  const agentId = agentFlag(values);
  const { periscope } = openPeriscope(io, values, {
    network: networkOverrides(values),
    ...egressOverrides(values),
  });
  try {
    // The progress line waits for the egress checks of the page's fetch (a page read from the cache shows none).
    const result = await withProgress(io, `verify ${shortUrl(input.url)}`, (onAdmitted) =>
      // The person at the command line gave the URL: it is the task's own (egress.seenUrlsOnly).
      periscope.verifyCitation(input as VerifyCitationInput, {
        agentId,
        egress: { seenUrls: [input.url] },
        onAdmitted,
      }),
    );
    if (values.json) writeLine(io.stdout, JSON.stringify(result, null, 2));
    else {
      // The same hint fetch gives (a flag to raise, a network to open): the page was read as a web_fetch call.
      const hint = result.status === 'unreachable' && result.error ? errorHint(result.error) : '';
      writeLine(io.stdout, `${describeVerification(result)}${hint}`);
    }
    return result.status === 'found' || result.status === 'moved' ? EXIT_OK : EXIT_TOOL_ERROR;
  } finally {
    await periscope.close();
  }
}
