import type { EgressCall } from '../egress/egress-check.ts';
import type { ToolName } from '../tool-call.ts';
import { DEFAULT_AGENT_ID, type ToolExecuteOptions } from './tool.ts';

/**
 * A tool call as the egress checks see it, from the tool's validated input and its execute options. Built here,
 * where both shapes are known: the checks (src/egress/) sit below the tools and never see their options.
 */
export function egressCall(tool: ToolName, input: unknown, options: ToolExecuteOptions): EgressCall {
  return {
    tool,
    input: typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {},
    agentId: options.agentId ?? DEFAULT_AGENT_ID,
    sessionId: options.sessionId,
    options: options.egress ?? {},
    ...(options.parentCall === undefined ? {} : { parent: options.parentCall }),
  };
}
