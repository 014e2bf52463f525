import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { isPeriscopeError, type TimeoutPhase } from '../errors.ts';
import { abortable, type BeforeConnect, openConnection } from './connect.ts';
import { networkError, timeoutError } from './net-errors.ts';
import type { CheckedAddress } from './pinned-lookup.ts';
import type { ProxyEndpoint } from './proxy.ts';
import { type BodyResult, readBody } from './read-body.ts';
import type { HopRequestState } from './redirects.ts';
import type { NetworkLimits } from './types.ts';
import { redactUrl, type UrlTarget } from './url-policy.ts';

export interface HopInput extends HopRequestState {
  target: UrlTarget;
  limits: NetworkLimits;
  /** The call's signal: aborted with ABORTED (caller) or TIMEOUT total as its reason. */
  callSignal: AbortSignal;
  /** Resolves and checks the target's addresses (the pinned lookup). Runs inside the connect phase. */
  resolve: (target: UrlTarget) => Promise<CheckedAddress[]>;
  proxy: ProxyEndpoint | undefined;
  ca?: ConnectionOptions['ca'];
  beforeConnect?: BeforeConnect | undefined;
  /** Called once the request (head and body) has been handed to the operating system: its 'finish'. */
  onSent?: (() => void) | undefined;
  /** Called once the connection is open, before the request is written (HttpRequest.onConnected). */
  onConnected?: (() => void) | undefined;
}

export interface HopResponse {
  status: number;
  statusText: string;
  headers: IncomingMessage['headers'];
  remoteAddress: string;
  /** Reads the body within the limits, then closes the connection. */
  readBody(onChunk?: (chunk: Buffer) => void): Promise<BodyResult>;
  /** Closes the connection without reading (redirects). */
  discard(): void;
}

const noop = () => {};

/** Calls a report hook (onConnected, onSent): a report, not a step of the exchange, so it cannot fail the request. */
function report(hook: (() => void) | undefined): void {
  try {
    hook?.();
  } catch {
    // ignored, as said
  }
}

/**
 * One request/response exchange on a fresh connection, with the connect and headers phases timed. The body is
 * read (or discarded) by the caller through the returned handle, with the body phase timed there.
 */
export async function sendHop(input: HopInput): Promise<HopResponse> {
  const url = redactUrl(input.url);
  const operation = `${input.method} ${url}`;
  const hop = new AbortController();
  const startPhase = (phase: TimeoutPhase, timeoutMs: number) =>
    setTimeout(() => hop.abort(timeoutError(operation, url, phase, timeoutMs)), timeoutMs);
  const forwardAbort = () => hop.abort(input.callSignal.reason);
  if (input.callSignal.aborted) throw input.callSignal.reason;
  input.callSignal.addEventListener('abort', forwardAbort, { once: true });
  const release = () => input.callSignal.removeEventListener('abort', forwardAbort);

  let socket: Socket | undefined;
  let timer = startPhase('connect', input.limits.connectTimeoutMs);
  try {
    const addresses = await abortable(input.resolve(input.target), hop.signal);
    const connection = await openConnection({
      target: input.target,
      addresses,
      proxy: input.proxy,
      signal: hop.signal,
      context: { operation, url },
      connectTimeoutMs: input.limits.connectTimeoutMs,
      ...(input.ca === undefined ? {} : { ca: input.ca }),
      beforeConnect: input.beforeConnect,
    });
    socket = connection.socket;
    clearTimeout(timer);
    report(input.onConnected);

    const { url: target } = input;
    const request = httpRequest({
      method: input.method,
      path: `${target.pathname}${target.search}`,
      headers: {
        host: target.host,
        ...input.headers,
        ...(input.body === undefined ? {} : { 'content-length': String(input.body.length) }),
      },
      setHost: false,
      maxHeaderSize: input.limits.maxHeaderBytes,
      createConnection: () => connection.socket,
    });
    // Later errors surface through the response stream; an unheard 'error' event would crash the process.
    request.on('error', noop);
    const response = new Promise<IncomingMessage>((resolve, reject) => {
      request.once('response', resolve);
      request.once('error', reject);
    });
    hop.signal.addEventListener('abort', () => request.destroy(), { once: true });
    timer = startPhase('headers', input.limits.headersTimeoutMs);
    const { onSent } = input;
    if (onSent !== undefined) request.once('finish', () => report(onSent));
    request.end(input.body);
    const message = await abortable(response, hop.signal).catch((error: unknown) => {
      if (hop.signal.aborted || isPeriscopeError(error)) throw error;
      throw networkError(operation, url, error, 'headers', input.limits.maxHeaderBytes);
    });
    clearTimeout(timer);
    const close = () => {
      message.destroy();
      connection.socket.destroy();
      release();
    };
    return {
      status: message.statusCode ?? 0,
      statusText: message.statusMessage ?? '',
      headers: message.headers,
      remoteAddress: connection.remoteAddress,
      readBody: (onChunk) =>
        readBody(message, {
          onChunk,
          hasBody: input.method !== 'HEAD' && message.statusCode !== 204 && message.statusCode !== 304,
          maxBytes: input.limits.maxBytes,
          bodyTimeoutMs: input.limits.bodyTimeoutMs,
          signal: hop.signal,
          onIdle: () => hop.abort(timeoutError(operation, url, 'body', input.limits.bodyTimeoutMs)),
          operation,
          url,
        }).finally(close),
      discard: close,
    };
  } catch (error) {
    clearTimeout(timer);
    socket?.destroy();
    release();
    if (hop.signal.aborted) throw hop.signal.reason;
    throw error;
  }
}
