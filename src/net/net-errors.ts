import { PeriscopeError, type TimeoutPhase } from '../errors.ts';
import type { NetworkLimits } from './types.ts';

const PHASE_TEXT: Record<TimeoutPhase, string> = {
  connect: 'connecting',
  headers: 'waiting for headers',
  body: 'waiting for more of the body',
  total: 'in total',
};

const PHASE_LIMIT: Record<TimeoutPhase, keyof NetworkLimits> = {
  connect: 'connectTimeoutMs',
  headers: 'headersTimeoutMs',
  body: 'bodyTimeoutMs',
  total: 'totalTimeoutMs',
};

/** `GET https://example.org/x timed out after 200 ms waiting for headers (headersTimeoutMs)` */
export function timeoutError(
  operation: string,
  url: string,
  phase: TimeoutPhase,
  timeoutMs: number,
): PeriscopeError {
  const limit = PHASE_LIMIT[phase];
  return new PeriscopeError(
    'TIMEOUT',
    `${operation} timed out after ${timeoutMs} ms ${PHASE_TEXT[phase]} (${limit})`,
    { details: { url, phase, limit, limitValue: timeoutMs } },
  );
}

export function abortedError(operation: string, url: string, reason?: unknown): PeriscopeError {
  return new PeriscopeError('ABORTED', `${operation} was cancelled`, {
    cause: reason,
    details: { url, reason: 'aborted' },
  });
}

export function tooLargeError(
  operation: string,
  url: string,
  limit: 'maxBytes' | 'maxHeaderBytes',
  limitValue: number,
  declaredBytes?: number,
  counted: 'wire' | 'decoded' = 'wire',
): PeriscopeError {
  const what =
    limit === 'maxHeaderBytes'
      ? `the response headers are larger than ${limitValue} bytes (maxHeaderBytes)`
      : declaredBytes === undefined
        ? `the body is larger than ${limitValue} bytes (maxBytes)`
        : `the server declared a ${declaredBytes}-byte body, more than ${limitValue} bytes (maxBytes)`;
  return new PeriscopeError('BODY_TOO_LARGE', `${operation} failed: ${what}`, {
    details: {
      url,
      limit,
      limitValue,
      reason:
        limit === 'maxHeaderBytes'
          ? 'header-bytes'
          : declaredBytes === undefined
            ? counted === 'wire'
              ? 'wire-bytes'
              : 'decoded-bytes'
            : 'declared-length',
      ...(declaredBytes === undefined ? {} : { declaredBytes }),
    },
  });
}

const TLS_CODES = /^(?:ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH)/;

/** Maps a socket / parser / TLS error to NETWORK (or BODY_TOO_LARGE for an oversized head). */
export function networkError(
  operation: string,
  url: string,
  error: unknown,
  stage: 'connect' | 'proxy' | 'headers' | 'body',
  maxHeaderBytes: number,
): PeriscopeError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'HPE_HEADER_OVERFLOW') return tooLargeError(operation, url, 'maxHeaderBytes', maxHeaderBytes);
  let text: string;
  let retryable = true;
  if (TLS_CODES.test(code) || /certificate|ssl|tls/i.test(message)) {
    text = `TLS handshake failed: ${message}`;
    retryable = false;
  } else if (code.startsWith('HPE_')) {
    text = `the server sent an invalid HTTP response (${code})`;
    retryable = false;
  } else if (code === 'ECONNREFUSED') {
    text = `the connection was refused${stage === 'proxy' ? ' by the proxy' : ''}`;
  } else if (stage === 'body') {
    text = `the connection closed before the body was complete (${code || message})`;
  } else if (stage === 'headers' && (code === 'ECONNRESET' || code === 'EPIPE')) {
    text = `the connection closed before the response headers arrived (${code})`;
  } else {
    text = `${stage === 'proxy' ? 'the proxy connection failed' : 'the connection failed'}: ${message}${code && !message.includes(code) ? ` (${code})` : ''}`;
  }
  return new PeriscopeError('NETWORK', `${operation} failed: ${text}`, {
    cause: error,
    retryable,
    details: { url, reason: stage, ...(code ? { errorCode: code } : {}) },
  });
}
