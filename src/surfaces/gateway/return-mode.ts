import type { IncomingMessage } from 'node:http';
import { GatewayError } from './http-io.ts';

/**
 * What a REST tool call answers with (the `Periscope-Return` header): `both`, the whole ToolResult (the default);
 * `output`, without `data.text` (the page text once, in `output`: for a model); `data`, without `output` (for a
 * program, which reads `data`).
 */
export type ReturnMode = 'both' | 'output' | 'data';

export const RETURN_HEADER = 'periscope-return';
export const RETURN_MODES: readonly ReturnMode[] = ['both', 'output', 'data'];

/** The request's `Periscope-Return`, `both` without one; any other value is a 400. */
export function returnModeOf(request: IncomingMessage): ReturnMode {
  const value = request.headers[RETURN_HEADER];
  if (value === undefined || value === 'both') return 'both';
  if (value === 'output' || value === 'data') return value;
  throw new GatewayError(
    400,
    'BAD_REQUEST',
    `the Periscope-Return header must be one of ${RETURN_MODES.join(', ')} (default both)`,
  );
}
