import { randomUUID } from 'node:crypto';
import type { CitationStatus, VerifyCitationResult } from '../citations/verify-citation.ts';
import type { ExtractMode } from '../content/types.ts';
import type { SessionBudget } from '../egress/egress-check.ts';
import { SEEN_URLS_PER_CALL } from '../egress/seen-urls.ts';
import { urlsInText } from '../egress/urls-in-text.ts';
import { PeriscopeError, type ToolErrorData, toPeriscopeError } from '../errors.ts';
import { createHttpClient } from '../net/http-client.ts';
import type { HttpFetch } from '../net/types.ts';
import type { ToolResult } from '../tool-call.ts';
import type { Tool } from '../tools/tool.ts';
import { runToolCalls, type ToolCall } from '../tools/tool-runner.ts';
import { type AnswerSource, markUnverifiedCitations, parseAnswerSources } from './answer-citations.ts';
import { hintFor, parseArguments, withheldHint } from './call-hint.ts';
import { callOutcome } from './call-outcome.ts';
import { type ChatEndpoint, type ChatMessage, completeChat } from './chat-completions.ts';
import { chatFunctionTools } from './chat-function-tools.ts';
import { AGENT_SYSTEM_PROMPT } from './system-prompt.ts';

export interface RunAgentOptions {
  /** The model endpoint (agent.baseUrl, agent.model, agent.apiKey). */
  endpoint: ChatEndpoint;
  /** The guarded client the model endpoint is reached through (default: one with the default network settings). */
  http?: HttpFetch | undefined;
  /** The tools the model may call (a Periscope's `tools`). */
  tools: readonly Tool[];
  question: string;
  /** The principal for limits and credits. */
  agentId?: string | undefined;
  /** Model turns before the loop stops; the last one is asked to answer without tools. Default 8. */
  maxTurns?: number | undefined;
  /** Tool calls of one model turn that run at once. Default 4. */
  concurrency?: number | undefined;
  /**
   * This task's budget (calls per tool, credits), for its one session: the tighter of it and `limits.session`
   * holds; over it a call is POLICY_DENIED `budget` and the model is told to answer with what it has.
   */
  budget?: SessionBudget | undefined;
  /** Stream the answer (default true). */
  stream?: boolean | undefined;
  signal?: AbortSignal | undefined;
  /** The answer as it streams. */
  onText?: ((text: string) => void) | undefined;
  /**
   * A model turn asked for tools, before any of them runs. Their inputs are not checked yet: not for display (a
   * query may carry a secret the egress checks will refuse).
   */
  onToolBatch?: ((calls: readonly ToolCall[]) => void) | undefined;
  /**
   * One line per tool call, when it starts: `search "python 3.13"`, `fetch docs.python.org/3.13/whatsnew`. Only once
   * the egress checks (the secret scan first) have let it through: a call they refuse never shows its query or URL.
   */
  onToolCall?: ((hint: string, call: ToolCall) => void) | undefined;
  /** Each tool call as soon as it ends, with its outcome (`record.outcome`); calls of one turn in the order they end. */
  onToolResult?: ((record: AgentToolCallRecord) => void) | undefined;
  /** Today's date for the system prompt (tests pin it). */
  now?: Date | undefined;
  /**
   * Checks each numbered source of the final answer before it is returned (the CLI: `periscope.verifyCitation`
   * with `cacheOnly`, so only pages the tools read can confirm a quote). Without it, sources are `unchecked`.
   */
  verifyCitation?: ((citation: CitationCheck) => Promise<VerifyCitationResult>) | undefined;
}

/** What runAgent asks `verifyCitation` about one source: the URL web_fetch was called with, the quote, the mode. */
export interface CitationCheck {
  url: string;
  quote: string;
  start?: number;
  end?: number;
  extractMode?: ExtractMode;
}

/** One numbered source of the answer and whether its quote is on its page. */
export interface AnswerCitation {
  n: number;
  /** The URL as the answer gives it. */
  url: string;
  quote?: string;
  /**
   * verifyCitation's verdict, or `unchecked`: the line gives no quote, or there was nothing to check it with, or
   * the check refused the citation (`error`).
   */
  status: CitationStatus | 'unchecked';
  /** The quote is on the page (found or moved). */
  verified: boolean;
  /** Where the quote is on the page (verified), or where the answer said it was. */
  start?: number;
  end?: number;
  /** `whitespace`: the quote differs from the page in whitespace only. */
  match?: 'exact' | 'whitespace';
  /** Why it could not be checked (unreachable, or a check that refused the citation). */
  error?: ToolErrorData;
}

export interface AgentToolCallRecord {
  id: string;
  name: string;
  input: unknown;
  hint: string;
  isError: boolean;
  code?: string | undefined;
  /** How it ended, for people: `URL_BLOCKED in 3 ms`, `HTTP_STATUS 404 in 40 ms`, `ok, 5 results from brave in 412 ms`. */
  outcome: string;
  display?: string | undefined;
  /** Credits this call cost (after any refund), when credits are on. */
  creditsSpent?: number | undefined;
  /** From the start of its turn's calls to its own end (a call waiting for a free slot counts its wait). */
  ms: number;
}

export interface AgentTranscript {
  question: string;
  answer: string;
  /** URLs the answer rests on: pages read, and result URLs the answer cites. */
  sources: string[];
  messages: ChatMessage[];
  toolCalls: AgentToolCallRecord[];
  turns: number;
  timings: { totalMs: number; modelMs: number; toolMs: number };
  /** Credits spent by the tool calls (0 when credits are off). */
  creditsSpent: number;
  sessionId: string;
  /** The numbered sources the answer lists (`[n] URL "quote"`), each checked; absent when it lists none. */
  citations?: AnswerCitation[];
  /**
   * The answer without its sources section (the citations carry it), when it has one; once the citations are
   * checked (`verifyCitation`), each marker of an unverified one says so: `[2 unverified]`
   * (markUnverifiedCitations).
   */
  answerBody?: string;
}

/**
 * The whole loop the tools are built for: the model searches, reads and answers with sources. Tool calls of
 * one turn run concurrently through the tool runner; the repeat throttle is scoped to this question (one
 * session id); every tool error reaches the model as its sentence so it can change course.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentTranscript> {
  const started = performance.now();
  const question = options.question.trim();
  if (!question)
    throw new PeriscopeError(
      'INVALID_INPUT',
      'the question is empty; ask something, e.g. periscope ask "what is new in Python 3.13?"',
    );
  const maxTurns = Math.max(1, options.maxTurns ?? 8);
  const sessionId = randomUUID();
  // The question's own URLs are the task's: web_fetch may read them under egress.seenUrlsOnly.
  const questionUrls = urlsInText(question, SEEN_URLS_PER_CALL);
  const http = options.http ?? createHttpClient();
  const tools = chatFunctionTools(options.tools);
  const messages: ChatMessage[] = [
    { role: 'system', content: AGENT_SYSTEM_PROMPT(options.now ?? new Date()) },
    { role: 'user', content: question },
  ];
  const records: AgentToolCallRecord[] = [];
  const seenUrls = new Set<string>();
  const readUrls: string[] = [];
  /** Pages web_fetch read: any URL it was given or ended at → the URL it was called with, and the mode. */
  const readAs = new Map<string, PageRead>();
  let modelMs = 0;
  let toolMs = 0;

  for (let turn = 1; turn <= maxTurns + 1; turn++) {
    const lastChance = turn > maxTurns;
    if (lastChance) {
      messages.push({
        role: 'user',
        content: `You have used ${maxTurns} turns of tool calls. Answer now from what you have, citing your sources as asked.`,
      });
    }
    const modelStarted = performance.now();
    const { message } = await completeChat(http, options.endpoint, messages, {
      tools: lastChance ? undefined : tools,
      stream: options.stream ?? true,
      onText: options.onText,
      signal: options.signal,
    });
    modelMs += performance.now() - modelStarted;
    messages.push(message);
    const calls = message.tool_calls ?? [];
    if (calls.length === 0 || lastChance) {
      const answer = (message.content ?? '').trim();
      if (!answer) {
        throw new PeriscopeError(
          'ALL_FAILED',
          lastChance
            ? `the model kept calling tools for ${maxTurns} turns without answering (agent.maxTurns)`
            : 'the model returned an empty answer',
        );
      }
      const listed = parseAnswerSources(answer);
      const citations =
        listed.sources.length > 0
          ? await checkCitations(listed.sources, readAs, options.verifyCitation)
          : undefined;
      return {
        question,
        answer,
        ...(citations
          ? {
              citations,
              answerBody: options.verifyCitation
                ? markUnverifiedCitations(listed.body, citations)
                : listed.body,
            }
          : {}),
        sources: sourcesOf(answer, readUrls, seenUrls),
        messages: withholdArguments(messages, records),
        toolCalls: records,
        turns: turn,
        timings: {
          totalMs: Math.round(performance.now() - started),
          modelMs: Math.round(modelMs),
          toolMs: Math.round(toolMs),
        },
        creditsSpent: records.reduce((sum, record) => sum + (record.creditsSpent ?? 0), 0),
        sessionId,
      };
    }
    const batch: ToolCall[] = calls.map((call) => ({
      id: call.id,
      name: call.function.name,
      input: call.function.arguments,
    }));
    const hints = batch.map((call) => hintFor(call));
    options.onToolBatch?.(batch);
    const toolsStarted = performance.now();
    const batchRecords = new Array<AgentToolCallRecord | undefined>(batch.length);
    const results = await runToolCalls(batch, {
      tools: options.tools,
      session: sessionId,
      agentId: options.agentId ?? 'cli',
      egress: { seenUrls: questionUrls, ...(options.budget ? { budget: options.budget } : {}) },
      concurrency: options.concurrency ?? 4,
      ...(options.signal ? { signal: options.signal } : {}),
      onAdmitted: (index) => options.onToolCall?.(hints[index] as string, batch[index] as ToolCall),
      onResult: (index, result) => {
        const call = batch[index] as ToolCall;
        const ms = performance.now() - toolsStarted;
        const record: AgentToolCallRecord = {
          id: call.id,
          name: call.name,
          // A query or URL refused for carrying a secret is not repeated in the line people and logs see,
          // nor in the transcript.
          input: isSecretRefusal(result) ? WITHHELD_INPUT : parseArguments(call.input),
          hint: isSecretRefusal(result) ? withheldHint(call.name) : (hints[index] as string),
          isError: result.isError,
          code: errorCodeOf(result),
          outcome: callOutcome(call.name, result, ms),
          display: result.display,
          creditsSpent: creditsOf(result),
          ms: Math.round(ms),
        };
        batchRecords[index] = record;
        options.onToolResult?.(record);
      },
    });
    toolMs += performance.now() - toolsStarted;
    results.forEach(({ id, name, result }, index) => {
      collectUrls(name, result, seenUrls, readUrls);
      notePageRead(name, batch[index]?.input, result, readAs);
      const record = batchRecords[index];
      if (record) records.push(record);
      messages.push({ role: 'tool', tool_call_id: id, content: result.output });
    });
  }
  throw new PeriscopeError('ALL_FAILED', 'the agent loop ended without an answer');
}

interface PageRead {
  url: string;
  extractMode?: ExtractMode;
}

function notePageRead(
  name: string,
  rawInput: unknown,
  result: ToolResult,
  readAs: Map<string, PageRead>,
): void {
  if (name !== 'web_fetch' || result.isError) return;
  const input = parseArguments(rawInput) as { url?: unknown; urls?: unknown; extractMode?: unknown };
  const mode: { extractMode?: ExtractMode } =
    input.extractMode === 'markdown' || input.extractMode === 'text'
      ? { extractMode: input.extractMode }
      : {};
  // Many URLs: each page read (its result `ok`) counts as a read of its own URL.
  const results = (result.data as { results?: unknown }).results;
  const pages: Array<{ asked: unknown; data: { url?: unknown; finalUrl?: unknown; ok?: unknown } }> =
    Array.isArray(input.urls) && Array.isArray(results)
      ? results.map((data, index) => ({ asked: (input.urls as unknown[])[index], data }))
      : [{ asked: input.url, data: result.data as { url?: unknown; finalUrl?: unknown } }];
  for (const { asked, data } of pages) {
    if (typeof asked !== 'string' || data?.ok === false) continue;
    const read: PageRead = { url: asked, ...mode };
    for (const alias of [data.finalUrl, data.url, asked])
      if (typeof alias === 'string' && !readAs.has(alias)) readAs.set(alias, read);
  }
}

/** Each listed source checked (all at once): its quote against the page web_fetch read for its URL. */
async function checkCitations(
  sources: readonly AnswerSource[],
  readAs: ReadonlyMap<string, PageRead>,
  verify: RunAgentOptions['verifyCitation'],
): Promise<AnswerCitation[]> {
  return Promise.all(
    sources.map(async (source): Promise<AnswerCitation> => {
      const stated = {
        n: source.n,
        url: source.url,
        ...(source.quote === undefined ? {} : { quote: source.quote }),
        ...(source.start === undefined ? {} : { start: source.start, end: source.end }),
      };
      if (!verify || source.quote === undefined) return { ...stated, status: 'unchecked', verified: false };
      const read = readAs.get(source.url) ?? { url: source.url };
      try {
        const result = await verify({
          url: read.url,
          quote: source.quote,
          ...(source.start === undefined ? {} : { start: source.start, end: source.end }),
          ...(read.extractMode ? { extractMode: read.extractMode } : {}),
        });
        const verified = result.status === 'found' || result.status === 'moved';
        return {
          ...stated,
          status: result.status,
          verified,
          ...(verified ? { start: result.start, end: result.end, match: result.match } : {}),
          ...(result.error ? { error: result.error } : {}),
        };
      } catch (error) {
        return { ...stated, status: 'unchecked', verified: false, error: toPeriscopeError(error).toJSON() };
      }
    }),
  );
}

function creditsOf(result: ToolResult): number | undefined {
  const spent = (result.data as { creditsSpent?: unknown } | undefined)?.creditsSpent;
  return typeof spent === 'number' ? spent : undefined;
}

/** What the transcript shows in place of the arguments of a call refused for carrying a secret. */
const WITHHELD_INPUT = { withheld: 'it held a secret' };

/**
 * The conversation as the transcript shows it: the model's arguments for a call refused for carrying a secret are
 * replaced, so printing the transcript does not print the secret. The model's own copy is left as it was.
 */
function withholdArguments(messages: ChatMessage[], records: AgentToolCallRecord[]): ChatMessage[] {
  const withheld = new Set(
    records.filter((record) => record.input === WITHHELD_INPUT).map((record) => record.id),
  );
  if (withheld.size === 0) return messages;
  const shown = JSON.stringify(WITHHELD_INPUT);
  return messages.map((message) =>
    message.tool_calls?.some((call) => withheld.has(call.id))
      ? {
          ...message,
          tool_calls: message.tool_calls.map((call) =>
            withheld.has(call.id) ? { ...call, function: { ...call.function, arguments: shown } } : call,
          ),
        }
      : message,
  );
}

function isSecretRefusal(result: ToolResult): boolean {
  const error = (result.data as { error?: { code?: string; details?: { reason?: unknown } } } | undefined)
    ?.error;
  return error?.code === 'POLICY_DENIED' && error.details?.reason === 'secret';
}

function errorCodeOf(result: ToolResult): string | undefined {
  if (!result.isError) return undefined;
  return (result.data as { error?: { code?: string } } | undefined)?.error?.code;
}

function collectUrls(name: string, result: ToolResult, seen: Set<string>, read: string[]): void {
  if (result.isError) return;
  const data = result.data as { finalUrl?: unknown; results?: Array<{ url?: unknown; sourceUrl?: unknown }> };
  if (name === 'web_fetch' && typeof data.finalUrl === 'string') {
    seen.add(data.finalUrl);
    if (!read.includes(data.finalUrl)) read.push(data.finalUrl);
  }
  for (const item of data.results ?? []) {
    if (typeof item.url === 'string') seen.add(item.url);
    if (typeof item.sourceUrl === 'string') seen.add(item.sourceUrl);
  }
}

const URL_IN_TEXT = /https?:\/\/[^\s<>()"'\]]+/g;

/** Pages read, then URLs the answer cites that the tools actually returned, in order, without duplicates. */
function sourcesOf(answer: string, read: readonly string[], seen: ReadonlySet<string>): string[] {
  const cited = (answer.match(URL_IN_TEXT) ?? []).map((url) => url.replace(/[.,;:!?]+$/, ''));
  const sources: string[] = [];
  for (const url of [...read, ...cited.filter((url) => seen.has(url))]) {
    if (!sources.includes(url)) sources.push(url);
  }
  return sources;
}
