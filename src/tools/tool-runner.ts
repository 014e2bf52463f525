import { randomUUID } from 'node:crypto';
import { createTurnQueue } from '../concurrency/turn-queue.ts';
import type { EgressOptions } from '../egress/egress-check.ts';
import { PeriscopeError } from '../errors.ts';
import type { ToolResult } from '../tool-call.ts';
import type { Tool, ToolExecuteOptions } from './tool.ts';
import { toErrorResult } from './tool-result.ts';

/** One tool call as a model asked for it. */
export interface ToolCall {
  /** The model's call id (OpenAI `tool_call.id`, Anthropic `tool_use.id`), echoed in the result. */
  id: string;
  name: string;
  /** The arguments object, or its JSON text (OpenAI's `arguments`). */
  input: unknown;
}

export interface ToolCallResult {
  id: string;
  name: string;
  result: ToolResult;
}

export interface RunToolCallsOptions {
  tools: readonly Tool[];
  /** The repeat-throttle scope every call in the batch shares (one agent turn or conversation). Default: one fresh id per batch. */
  session?: string;
  /** The principal limits and credits apply to. */
  agentId?: string;
  /** What the program (never the model) says about egress for every call of the batch: the task's own URLs
   * (`seenUrls`), a session budget (`budget: { maxCalls }`). */
  egress?: EgressOptions;
  /** Calls running at once. Default 4. */
  concurrency?: number;
  /** Aborts every call still running or waiting; each becomes an ABORTED result. */
  signal?: AbortSignal;
  /** Tool names that run alone: nothing else runs while one of them does. */
  exclusive?: ReadonlySet<string>;
  /** Each call's result as soon as it ends (`index` in `calls`), before the whole batch has. */
  onResult?: (index: number, result: ToolResult) => void;
  /** A call the egress checks let through, before it sends anything (`ToolExecuteOptions.onAdmitted`). */
  onAdmitted?: (index: number) => void;
}

/**
 * Run a model's batch of tool calls: concurrently up to `concurrency`, exclusive tools alone, in call order (a
 * call never starts before an earlier one). Resolves with one result per call, in call order; never rejects.
 * The order and the limit are the shared turn queue's (src/concurrency/turn-queue.ts): every call takes a turn,
 * an exclusive one all `concurrency` of them.
 */
export async function runToolCalls(
  calls: readonly ToolCall[],
  options: RunToolCallsOptions,
): Promise<ToolCallResult[]> {
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 4));
  const { signal, exclusive } = options;
  const session = options.session ?? randomUUID();
  const turns = createTurnQueue({ maxRunning: concurrency });
  const results = new Array<ToolResult | undefined>(calls.length);
  const done = (index: number, result: ToolResult) => {
    results[index] = result;
    options.onResult?.(index, result);
  };

  // On abort, every waiting turn is refused at once; running calls settle through their own signal.
  await Promise.all(
    calls.map((call, index) =>
      turns.acquire({ signal, weight: exclusive?.has(call.name) ? concurrency : 1 }).then(
        async (release) => {
          const result = signal?.aborted
            ? abortedResult(call.name)
            : await runOne(call, options, { session, signal, index });
          done(index, result);
          release();
        },
        () => done(index, abortedResult(call.name)),
      ),
    ),
  );
  return calls.map((call, index) => ({
    id: call.id,
    name: call.name,
    result: results[index] ?? abortedResult(call.name),
  }));
}

async function runOne(
  call: ToolCall,
  options: RunToolCallsOptions,
  scope: { session: string; signal: AbortSignal | undefined; index: number },
): Promise<ToolResult> {
  const tool = options.tools.find((candidate) => candidate.name === call.name);
  if (!tool) {
    const names = options.tools.map((candidate) => candidate.name).join(', ');
    return toErrorResult(
      new PeriscopeError('INVALID_INPUT', `there is no tool named ${call.name}; the tools are ${names}`),
      call.name,
    );
  }
  try {
    const executeOptions: ToolExecuteOptions = { sessionId: scope.session };
    if (scope.signal) executeOptions.signal = scope.signal;
    if (options.agentId !== undefined) executeOptions.agentId = options.agentId;
    if (options.egress !== undefined) executeOptions.egress = options.egress;
    const { onAdmitted } = options;
    if (onAdmitted) executeOptions.onAdmitted = () => onAdmitted(scope.index);
    const execution = tool.execute(parseArguments(call.input, call.name), executeOptions);
    return await (scope.signal ? untilAborted(execution, scope.signal, call.name) : execution);
  } catch (error) {
    return toErrorResult(error, call.name);
  }
}

/** JSON text is parsed; anything else is the input itself. */
function parseArguments(input: unknown, name: string): unknown {
  if (typeof input !== 'string') return input;
  if (input.trim() === '') return {};
  try {
    return JSON.parse(input);
  } catch {
    throw new PeriscopeError(
      'INVALID_INPUT',
      `the arguments of ${name} are not valid JSON: ${input.slice(0, 200)}`,
    );
  }
}

function abortedResult(name: string): ToolResult {
  return toErrorResult(new PeriscopeError('ABORTED', `${name} was cancelled before it started`), name);
}

/** The tool's result, or ABORTED as soon as the signal fires even if the tool has not noticed yet. */
function untilAborted(
  execution: Promise<ToolResult>,
  signal: AbortSignal,
  name: string,
): Promise<ToolResult> {
  if (signal.aborted)
    return Promise.resolve(toErrorResult(new PeriscopeError('ABORTED', `${name} was cancelled`), name));
  return new Promise((resolve) => {
    const onAbort = () =>
      resolve(toErrorResult(new PeriscopeError('ABORTED', `${name} was cancelled`), name));
    signal.addEventListener('abort', onAbort, { once: true });
    execution.then(
      (result) => {
        signal.removeEventListener('abort', onAbort);
        resolve(result);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        resolve(toErrorResult(error, name));
      },
    );
  });
}
