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
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...headers,
  });
  response.end(text);
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

export function sendError(response: ServerResponse, error: GatewayError): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  sendJson(response, error.status, { error: { code: error.code, message: error.message } }, error.headers);
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
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new GatewayError(400, 'BAD_REQUEST', `the body is not valid JSON: ${(error as Error).message}`);
  }
}

function tooLarge(maxBytes: number): GatewayError {
  return new GatewayError(
    413,
    'PAYLOAD_TOO_LARGE',
    `the body is larger than ${maxBytes} bytes (gateway.maxBodyBytes)`,
    { connection: 'close' },
  );
}
