import { isPeriscopeError, PeriscopeError } from '../errors.ts';
import type { HttpFetch } from '../net/types.ts';

/** A Chat Completions message, as the protocol spells it. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
}

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

const DEFAULT_TIMEOUT_MS = 120_000;

export interface ChatEndpoint {
  /** e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1` (Ollama). */
  baseUrl: string;
  model: string;
  apiKey?: string | undefined;
  /** Longest wait for the model, per request (default 120 000). */
  timeoutMs?: number | undefined;
}

export interface CompleteChatOptions {
  tools?: readonly unknown[] | undefined;
  /** Stream the answer: `onText` sees each piece as it arrives. */
  stream: boolean;
  onText?: ((text: string) => void) | undefined;
  signal?: AbortSignal | undefined;
}

export interface ChatCompletion {
  message: ChatMessage;
  finishReason: string | undefined;
}

/**
 * One Chat Completions request to any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, LM Studio, …), through
 * the guarded client (the endpoint is configured, so trusted). Streaming reads server-sent events as they come.
 * Errors are PeriscopeErrors whose message is one line a person can act on.
 */
export async function completeChat(
  http: HttpFetch,
  endpoint: ChatEndpoint,
  messages: readonly ChatMessage[],
  options: CompleteChatOptions,
): Promise<ChatCompletion> {
  const url = `${endpoint.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const body: Record<string, unknown> = { model: endpoint.model, messages, stream: options.stream };
  if (options.tools && options.tools.length > 0) body.tools = options.tools;
  const stream = options.stream ? new EventStreamReader(options.onText) : undefined;
  let response: Awaited<ReturnType<HttpFetch>>;
  try {
    response = await http(url, {
      method: 'POST',
      trusted: true,
      headers: {
        'content-type': 'application/json',
        accept: options.stream ? 'text/event-stream' : 'application/json',
        ...(endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}),
      },
      body: JSON.stringify(body),
      ...(options.signal ? { signal: options.signal } : {}),
      limits: {
        totalTimeoutMs: endpoint.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        headersTimeoutMs: endpoint.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        bodyTimeoutMs: endpoint.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        maxBytes: 20_000_000,
      },
      ...(stream ? { onBodyChunk: (chunk: Buffer) => stream.push(chunk) } : {}),
    });
  } catch (error) {
    if (isPeriscopeError(error) && (error.code === 'NETWORK' || error.code === 'TIMEOUT')) {
      throw new PeriscopeError(
        error.code,
        `the model endpoint ${endpoint.baseUrl} is unreachable: ${error.message}`,
        {
          cause: error,
        },
      );
    }
    throw error;
  }
  if (response.status < 200 || response.status > 299)
    throw endpointError(endpoint, response.status, response.body);
  const contentType = response.headers['content-type'] ?? '';
  if (stream && contentType.includes('text/event-stream')) return stream.finish();
  return parseCompletion(response.body, endpoint);
}

function endpointError(endpoint: ChatEndpoint, status: number, body: Uint8Array): PeriscopeError {
  const detail = errorMessageOf(body);
  const suffix = detail ? `: ${detail}` : '';
  if (status === 401 || status === 403) {
    return new PeriscopeError(
      'HTTP_STATUS',
      `the model endpoint refused the API key (${status})${suffix}; set agent.apiKey or OPENAI_API_KEY`,
      { details: { status }, retryable: false },
    );
  }
  if (status === 404) {
    return new PeriscopeError(
      'HTTP_STATUS',
      `the model endpoint has no model '${endpoint.model}' or no /chat/completions (404)${suffix}; check agent.model and agent.baseUrl`,
      { details: { status }, retryable: false },
    );
  }
  return new PeriscopeError('HTTP_STATUS', `the model endpoint answered ${status}${suffix}`, {
    details: { status },
  });
}

function errorMessageOf(body: Uint8Array): string | undefined {
  const text = new TextDecoder().decode(body.subarray(0, 4096)).trim();
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message =
      typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.message);
    if (typeof message === 'string') return message.replace(/\s+/g, ' ').slice(0, 200);
  } catch {
    // not JSON: show the start of the text
  }
  return text ? text.replace(/\s+/g, ' ').slice(0, 200) : undefined;
}

function malformed(what: string): PeriscopeError {
  return new PeriscopeError('HTTP_STATUS', `the model endpoint sent a malformed response (${what})`, {
    details: { reason: 'malformed-response' },
    retryable: false,
  });
}

function parseCompletion(body: Uint8Array, endpoint: ChatEndpoint): ChatCompletion {
  let parsed: { choices?: Array<{ message?: ChatMessage; finish_reason?: string }> };
  try {
    parsed = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw malformed(`not JSON from ${endpoint.baseUrl}`);
  }
  const choice = parsed.choices?.[0];
  if (!choice?.message) throw malformed('no choices[0].message');
  const message = choice.message;
  return {
    message: {
      role: 'assistant',
      content: typeof message.content === 'string' ? message.content : null,
      ...(message.tool_calls?.length ? { tool_calls: message.tool_calls } : {}),
    },
    finishReason: choice.finish_reason,
  };
}

interface StreamDelta {
  content?: string | null;
  tool_calls?: Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }>;
}

/** Server-sent events of a streamed completion → the assembled message; text pieces go to `onText` as they come. */
class EventStreamReader {
  readonly #onText: ((text: string) => void) | undefined;
  readonly #decoder = new TextDecoder();
  #buffer = '';
  #content = '';
  #toolCalls: ChatToolCall[] = [];
  #finishReason: string | undefined;
  #done = false;
  #error: PeriscopeError | undefined;

  constructor(onText: ((text: string) => void) | undefined) {
    this.#onText = onText;
  }

  push(chunk: Buffer): void {
    if (this.#error) return;
    this.#buffer += this.#decoder.decode(chunk, { stream: true });
    let newline = this.#buffer.indexOf('\n');
    while (newline !== -1) {
      const line = this.#buffer.slice(0, newline).replace(/\r$/, '');
      this.#buffer = this.#buffer.slice(newline + 1);
      this.#line(line);
      newline = this.#buffer.indexOf('\n');
    }
  }

  #line(line: string): void {
    if (!line.startsWith('data:')) return; // comments, event names, blank separators
    const data = line.slice(5).trim();
    if (data === '[DONE]') {
      this.#done = true;
      return;
    }
    let event: {
      choices?: Array<{ delta?: StreamDelta; finish_reason?: string | null }>;
      error?: { message?: string };
    };
    try {
      event = JSON.parse(data);
    } catch {
      this.#error = malformed(`an event that is not JSON: ${data.slice(0, 60)}`);
      return;
    }
    if (event.error) {
      this.#error = new PeriscopeError(
        'HTTP_STATUS',
        `the model endpoint failed mid-answer: ${event.error.message ?? 'error'}`,
      );
      return;
    }
    const choice = event.choices?.[0];
    if (!choice) return;
    if (choice.finish_reason) this.#finishReason = choice.finish_reason;
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string' && delta.content) {
      this.#content += delta.content;
      this.#onText?.(delta.content);
    }
    for (const part of delta.tool_calls ?? []) {
      const index = part.index ?? this.#toolCalls.length;
      let call = this.#toolCalls[index];
      if (!call) {
        call = { id: '', type: 'function', function: { name: '', arguments: '' } };
        this.#toolCalls[index] = call;
      }
      if (part.id) call.id = part.id;
      if (part.function?.name) call.function.name += part.function.name;
      if (part.function?.arguments) call.function.arguments += part.function.arguments;
    }
  }

  finish(): ChatCompletion {
    this.push(Buffer.from('\n'));
    if (this.#error) throw this.#error;
    if (!this.#done && this.#finishReason === undefined) throw malformed('the stream ended before [DONE]');
    const toolCalls = this.#toolCalls.filter((call) => call.function.name);
    toolCalls.forEach((call, index) => {
      if (!call.id) call.id = `call_${index}`;
    });
    return {
      message: {
        role: 'assistant',
        content: this.#content || null,
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      },
      finishReason: this.#finishReason,
    };
  }
}
