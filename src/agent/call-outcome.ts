import type { ToolResult } from '../tool-call.ts';

interface OutcomeData {
  error?: { code?: unknown; details?: { status?: unknown } };
  cached?: unknown;
  length?: unknown;
  totalLength?: unknown;
  truncated?: unknown;
  provider?: unknown;
  results?: unknown;
  status?: unknown;
  fromCache?: unknown;
}

/**
 * How one tool call ended, for the person watching `periscope ask`: the error code (with the HTTP status when
 * the site answered one: `HTTP_STATUS 404`), or `ok` and what came back (`ok, 5 results from brave`,
 * `ok, 2000 of 9000 chars`), then the time: `URL_BLOCKED in 3 ms`.
 */
export function callOutcome(name: string, result: ToolResult, elapsedMs: number): string {
  const data = (result.data ?? {}) as OutcomeData;
  return `${result.isError ? failure(data) : success(name, data)} in ${Math.round(elapsedMs)} ms`;
}

function failure(data: OutcomeData): string {
  const code = typeof data.error?.code === 'string' ? data.error.code : 'ERROR';
  const status = data.error?.details?.status;
  return typeof status === 'number' && code === 'HTTP_STATUS' ? `${code} ${status}` : code;
}

function success(name: string, data: OutcomeData): string {
  const cached = data.cached === true ? ' (cached)' : '';
  if (name === 'web_fetch' && typeof data.length === 'number') {
    const shown =
      data.truncated === true && typeof data.totalLength === 'number'
        ? `${data.length} of ${data.totalLength}`
        : `${data.length}`;
    return `ok, ${shown} chars${cached}`;
  }
  if ((name === 'web_search' || name === 'image_search') && Array.isArray(data.results)) {
    const noun = name === 'web_search' ? 'result' : 'image';
    const count = data.results.length;
    const from = typeof data.provider === 'string' ? ` from ${data.provider}` : '';
    return `ok, ${count} ${count === 1 ? noun : `${noun}s`}${from}${cached}`;
  }
  if (name === 'verify_citation' && typeof data.status === 'string')
    return `ok, ${data.status}${data.fromCache === true ? ' (cached)' : ''}`;
  return 'ok';
}
