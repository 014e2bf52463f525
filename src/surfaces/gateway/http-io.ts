import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The gateway's own failures (transport, auth, its per-client limits). Tool failures are never these: they are
 * `ToolResult`s with `isError: true`, sent with 200.
 */
export type GatewayErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'TOO_MANY_REQUESTS'
  | 'RATE_LIMITED'
  | 'MISDIRECTED'
  | 'SHUTTING_DOWN'
  | 'UNAVAILABLE'
  | 'INTERNAL';

export class GatewayError extends Error {
  override name = 'GatewayError';
  readonly status: number;
  readonly code: GatewayErrorCode;
  readonly headers: Record<string, string>;
  constructor(status: number, code: GatewayErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendJsonText(response, status, JSON.stringify(body), headers);
}

/** `sendJson` for a body already serialised (`toolResultJson`). */
export function sendJsonText(
  response: ServerResponse,
  status: number,
  json: string,
  headers: Record<string, string> = {},
): void {
  // Encoded once: its length and the bytes written (a length of the string, then writing it, encode it twice —
  // for a 19 KB answer with one character past Latin-1, ~20 µs of each call's ~260 µs).
  const bytes = Buffer.from(json);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(bytes.length),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...headers,
  });
  response.end(bytes);
}

export function sendText(response: ServerResponse, status: number, text: string, contentType: string): void {
  response.writeHead(status, {
    'content-type': contentType,
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  response.end(text);
}

/**
 * How much of a body the gateway has refused it still reads, and for how long, before it cuts the connection:
 * enough for a client that keeps uploading after the answer (most do) to finish and read it.
 */
const REFUSED_BODY_DRAIN_BYTES = 16 * 1024 * 1024;
const REFUSED_BODY_DRAIN_MS = 5_000;

/**
 * Sends the gateway's error. Given the request, and its body not all read (a 413, or a refusal before the body),
 * the answer closes the connection only once the client has finished sending: the rest of the body is read and
 * thrown away (up to `REFUSED_BODY_DRAIN_BYTES` and `REFUSED_BODY_DRAIN_MS`, then the connection is cut). Closing
 * at once would leave unread bytes in the socket; the kernel then resets the connection, and a client still
 * uploading sees EPIPE or ECONNRESET instead of the answer.
 */
export function sendError(response: ServerResponse, error: GatewayError, request?: IncomingMessage): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body = { error: { code: error.code, message: error.message } };
  const closes = error.headers.connection === 'close';
  if (!request || !closes || request.complete || request.destroyed) {
    sendJson(response, error.status, body, error.headers);
    return;
  }
  const text = JSON.stringify(body);
  response.writeHead(error.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...error.headers,
  });
  // The whole answer goes out now (its length is declared); only the end, which closes the socket, waits.
  response.write(text);
  drainThenEnd(request, response);
}

function drainThenEnd(request: IncomingMessage, response: ServerResponse): void {
  let drained = 0;
  const finish = (cut: boolean) => {
    clearTimeout(timer);
    request.off('data', discard);
    request.off('end', ended);
    request.off('close', ended);
    request.off('error', ended);
    if (cut) response.destroy();
    else response.end();
  };
  const discard = (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > REFUSED_BODY_DRAIN_BYTES) finish(true);
  };
  const ended = () => finish(false);
  const timer = setTimeout(() => finish(true), REFUSED_BODY_DRAIN_MS);
  timer.unref();
  request.on('data', discard);
  request.once('end', ended);
  request.once('close', ended);
  request.once('error', ended);
  request.resume();
}

/**
 * The body as a string, refused with 413 past `maxBytes` (from Content-Length before reading, or while reading)
 * and with 415 when it says it is something other than JSON.
 */
export async function readJsonBody(request: IncomingMessage, maxBytes: number): Promise<unknown> {
  const type = request.headers['content-type'];
  if (type !== undefined && !/^application\/([a-z.+-]*\+)?json\s*(;|$)/i.test(type)) {
    throw new GatewayError(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      `send the tool input as application/json (curl --json), not ${type}`,
    );
  }
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const text = (await readBody(request, maxBytes)).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new GatewayError(400, 'BAD_REQUEST', `the body is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * The body's bytes; past `maxBytes` it stops keeping them and throws 413, leaving the request open (not destroyed)
 * so that `sendError` can answer and let the client finish its upload.
 */
function readBody(request: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (outcome: () => void) => {
      request.off('data', keep);
      request.off('end', ended);
      request.off('error', failed);
      request.off('close', closed);
      outcome();
    };
    const keep = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) settle(() => reject(tooLarge(maxBytes)));
      else chunks.push(chunk);
    };
    const ended = () => settle(() => resolve(Buffer.concat(chunks)));
    const failed = (error: Error) => settle(() => reject(error));
    const closed = () =>
      settle(() => reject(new GatewayError(400, 'BAD_REQUEST', 'the client closed the connection mid-body')));
    request.on('data', keep);
    request.on('end', ended);
    request.on('error', failed);
    request.on('close', closed);
  });
}

function tooLarge(maxBytes: number): GatewayError {
  return new GatewayError(
    413,
    'PAYLOAD_TOO_LARGE',
    `the body is larger than ${maxBytes} bytes (gateway.maxBodyBytes)`,
    { connection: 'close' },
  );
}
