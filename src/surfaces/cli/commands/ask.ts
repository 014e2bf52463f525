import { markUnverifiedCitations, parseAnswerSources } from '../../../agent/answer-citations.ts';
import { resolveAgentEndpoint } from '../../../agent/resolve-endpoint.ts';
import { type AgentTranscript, type AnswerCitation, runAgent } from '../../../agent/run-agent.ts';
import { toHttpClientOptions } from '../../../config/network-options.ts';
import { isPeriscopeError } from '../../../errors.ts';
import { createHttpClient } from '../../../net/http-client.ts';
import { createAnswerStream } from '../answer-stream.ts';
import { EXIT_OK, EXIT_USAGE, UsageError } from '../cli-error.ts';
import { EGRESS_FLAGS, EGRESS_FLAGS_HELP, egressOverrides } from '../egress-flags.ts';
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
import { openPeriscope } from '../open-periscope.ts';
import { createCallProgress, showsProgress } from '../progress.ts';

export const ASK_HELP = `Usage: periscope ask <question…> [options]

An agent that searches, reads and answers with sources, over any OpenAI-compatible Chat Completions endpoint
(agent.baseUrl, agent.model, agent.apiKey in the config; or OPENAI_BASE_URL, PERISCOPE_MODEL / OPENAI_MODEL,
OPENAI_API_KEY). Works with Ollama, vLLM, LM Studio and hosted APIs.

Each tool call gets one line on stderr when it ends, with its outcome (\`fetch example.com/x → HTTP_STATUS 404 in
40 ms\`, \`search "tides" → ok, 5 results from brave in 412 ms\`); on a terminal the calls still running and their
seconds are shown in place meanwhile. The answer streams to stdout, then the sources; a last stderr line counts the
tool calls, the failed ones and the credits spent.

The model is asked to cite with numbers ([1], [2]) and to end with a sources list giving, for each number, the page
and a passage copied from it. Before a citation is printed, its passage is checked against the page as the tools
read it (the document cache; nothing is fetched again), so the answer streams up to its first citation and the
rest follows once checked. In the answer, a citation whose passage is not verified reads [2 unverified] (a group
is split: [1][2 unverified]; a number with no source listed is unverified too). Each source is printed with ✓
when its passage is on the page, or marked "unverified" with the reason (not on the page; page not read by the
tools; no passage given). In --json, \`answerBody\` is the answer so marked, without its sources, and
\`citations\` holds each one: { n, url, quote, status, verified, start, end }, status one of found, moved, changed,
unreachable (the verdicts of 'periscope verify') or unchecked.

Options:
  --model NAME            the model (overrides agent.model)
  --base-url URL          the endpoint (overrides agent.baseUrl), e.g. http://127.0.0.1:11434/v1
  --max-turns N           model turns with tool calls before it must answer (default 8)
  --no-stream             wait for whole answers instead of streaming
${AGENT_FLAG_HELP}
  --json                  print the transcript (messages, tool calls, results, timings, citations) as JSON
  --config FILE           config file
  -h, --help              this help

${NETWORK_FLAGS_HELP}

${EGRESS_FLAGS_HELP}

Exit codes: 0 answered (also when some tool calls failed: the model was told why, and each outcome is on stderr),
1 the model endpoint or the loop failed, 2 usage or config error (e.g. no model).`;

const FLAGS = {
  ...COMMON_FLAGS,
  ...NETWORK_FLAGS,
  ...EGRESS_FLAGS,
  ...AGENT_FLAG,
  model: { type: 'string' },
  'base-url': { type: 'string' },
  'max-turns': { type: 'string' },
  'no-stream': { type: 'boolean' },
} as const;

export async function askCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags('ask', argv, FLAGS);
  if (values.help) {
    writeLine(io.stdout, ASK_HELP);
    return EXIT_OK;
  }
  const question = positionals.join(' ').trim();
  if (!question)
    throw new UsageError(`missing question; usage: periscope ask <question…> (see 'periscope ask --help')`);
  const maxTurns = integerFlag(values, 'max-turns', 1);
  const baseUrl = values['base-url'] as string | undefined;
  if (baseUrl !== undefined && !/^https?:\/\/\S+$/i.test(baseUrl)) {
    throw new UsageError(`--base-url must be an http(s) URL, got '${baseUrl}'`);
  }
  const { periscope } = openPeriscope(io, values, {
    network: networkOverrides(values),
    ...egressOverrides(values),
  });
  const { config } = periscope;
  let endpoint: ReturnType<typeof resolveAgentEndpoint>;
  try {
    endpoint = resolveAgentEndpoint(
      {
        ...config.agent,
        ...(values.model ? { model: values.model as string } : {}),
        ...(baseUrl ? { baseUrl } : {}),
      },
      io.env,
    );
  } catch (error) {
    await periscope.close();
    if (isPeriscopeError(error) && error.code === 'NOT_CONFIGURED') {
      // The library's message names the config and the variables; a person at the command line has a flag first.
      writeLine(
        io.stderr,
        'periscope ask: no model configured: give --model NAME (with --base-url URL for a local server such as Ollama), or set agent.model in the config, or PERISCOPE_MODEL / OPENAI_MODEL',
      );
      return EXIT_USAGE;
    }
    throw error;
  }
  const http = createHttpClient(toHttpClientOptions(config.network, { env: io.env }));
  const json = Boolean(values.json);
  const agentId = agentFlag(values);
  const progress = createCallProgress(io);
  let streamed = false;
  let lineOpen = false;
  let turnWritten = ''; // what this model turn has written to stdout
  // From the first citation marker on, the answer waits until its quotes are checked; the rest streams as it comes.
  const answerStream = createAnswerStream((text) => {
    lineOpen = !text.endsWith('\n');
    turnWritten += text;
    io.stdout.write(text);
  });
  try {
    const transcript = await runAgent({
      endpoint,
      http,
      tools: periscope.tools,
      question,
      agentId,
      maxTurns: maxTurns ?? config.agent.maxTurns,
      concurrency: config.agent.concurrency,
      stream: !values['no-stream'] && config.agent.stream,
      verifyCitation: (citation) => periscope.verifyCitation({ ...citation, cacheOnly: true }, { agentId }),
      onToolBatch: () => {
        answerStream.endTurn();
        turnWritten = '';
        // Text the model streamed before calling tools leaves the terminal's cursor mid-line: move on first.
        if (lineOpen && showsProgress(io)) io.stderr.write('\n');
        lineOpen = false;
      },
      // Only a call the egress checks let through: a query or URL refused for a secret is never shown.
      onToolCall: (hint, call) => progress.begin(call.id, hint),
      onToolResult: (record) => {
        progress.end(record.id);
        writeLine(io.stderr, `${record.hint} → ${record.outcome}`);
      },
      onText: json
        ? undefined
        : (text) => {
            streamed = true;
            answerStream.push(text);
          },
    });
    progress.close();
    const held = answerStream.finish();
    if (json) writeLine(io.stdout, JSON.stringify(transcript, null, 2));
    else if (transcript.citations) {
      // Text streamed during a turn that then called tools was thinking aloud; the answer is the last turn's.
      // Streamed, it was written up to its first citation marker: the rest, checked and marked, follows.
      const body = transcript.answerBody ?? transcript.answer;
      const rest = streamed ? unwritten(body, turnWritten, held, transcript.citations) : body;
      if (rest) {
        io.stdout.write(rest);
        lineOpen = !rest.endsWith('\n');
      }
      if (!streamed || lineOpen) writeLine(io.stdout, '');
      writeLine(io.stdout, `\nSources:\n${transcript.citations.map(citationLine).join('\n')}`);
    } else {
      if (!streamed) io.stdout.write(transcript.answer);
      else if (held) io.stdout.write(held);
      writeLine(io.stdout, '');
      if (transcript.sources.length > 0) {
        writeLine(
          io.stdout,
          `\nSources:\n${transcript.sources.map((url, index) => `${index + 1}. ${url}`).join('\n')}`,
        );
      }
    }
    const left = config.limits.credits.enabled ? await periscope.credits.balance(agentId) : undefined;
    writeLine(io.stderr, closingLine(transcript, left));
    return EXIT_OK;
  } finally {
    progress.close();
    await periscope.close();
  }
}

/**
 * The part of the answer's (marked) body the stream did not write: what follows the turn's written text, which
 * holds no citation marker, so marking left it as it was. Should the two not line up, the held text, marked.
 */
function unwritten(
  body: string,
  written: string,
  held: string,
  citations: readonly AnswerCitation[],
): string {
  const start = written.trimStart();
  if (body.startsWith(start)) return body.slice(start.length);
  if (start.startsWith(body)) return '';
  return markUnverifiedCitations(parseAnswerSources(held).body, citations);
}

/**
 * `[1] ✓ https://… — "passage"`, or `[2] unverified (not on the page) https://… — "passage"`: a source as its check
 * left it.
 */
function citationLine(citation: AnswerCitation): string {
  const quote = citation.quote === undefined ? '' : ` — "${citation.quote}"`;
  const mark = citation.verified ? '✓' : `unverified (${unverifiedReason(citation)})`;
  return `[${citation.n}] ${mark} ${citation.url}${quote}`;
}

function unverifiedReason(citation: AnswerCitation): string {
  if (citation.quote === undefined) return 'no passage given';
  if (citation.status === 'changed') return 'not on the page';
  if (citation.error?.details?.reason === 'not-cached') return 'page not read by the tools';
  return citation.error ? `page unreadable: ${citation.error.code}` : 'not checked';
}

/** `3 tool calls (1 failed) · 4 credits spent, 6 left · 5.2 s`; `credits off` when limits.credits is. */
function closingLine(transcript: AgentTranscript, creditsLeft: number | undefined): string {
  const calls = transcript.toolCalls.length;
  const failed = transcript.toolCalls.filter((call) => call.isError).length;
  const spent = transcript.creditsSpent;
  const credits =
    creditsLeft === undefined
      ? 'credits off'
      : `${spent} ${spent === 1 ? 'credit' : 'credits'} spent, ${creditsLeft} left`;
  const seconds = (transcript.timings.totalMs / 1000).toFixed(1);
  return `${calls} tool ${calls === 1 ? 'call' : 'calls'} (${failed} failed) · ${credits} · ${seconds} s`;
}
