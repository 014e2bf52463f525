import type { ErrorCode, ToolErrorData } from '../errors.ts';
import type { ToolName } from '../tool-call.ts';

/** Failures on the provider's or the deployment's side: nothing the agent asked for was wrong. */
const NOT_THE_AGENTS_DOING: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'NETWORK',
  'TIMEOUT',
  'RATE_LIMITED',
  'BLOCKED_BY_SITE',
  'ALL_FAILED',
  'NOT_CONFIGURED',
  'CONFIG_INVALID',
  'CREDITS_EXHAUSTED',
  'INTERNAL',
]);

/**
 * Whether a failed call's credits go back (docs/decisions/0008-call-policy.md). Refunded: the provider or site
 * was down, slow, rate-limited, blocking or out of quota, every provider failed, or the deployment is
 * misconfigured, or Periscope itself failed (INTERNAL: a bug is ours, not the agent's) — and any HTTP 5xx, or a
 * reader service refusing our key or quota. Kept: the request itself was the problem — invalid input, a blocked or
 * robots-disallowed URL, a 4xx page, a body too large, content that cannot be read or is empty — and a call the
 * caller cancelled. A search provider's failure is never the agent's doing (it only chose the words), so for
 * web_search and image_search everything but INVALID_INPUT and ABORTED is refunded. An egress refusal
 * (POLICY_DENIED: a domain, the seen-URL rule, a secret, a session budget) is never charged, whichever tool and
 * wherever it was decided (before the call, or on a redirect hop or browser navigation inside it).
 */
export function isRefundable(tool: ToolName, error: ToolErrorData): boolean {
  if (error.code === 'POLICY_DENIED') return true;
  if (error.code === 'INVALID_INPUT' || error.code === 'ABORTED') return false;
  if (tool !== 'web_fetch') return true;
  if (NOT_THE_AGENTS_DOING.has(error.code)) return true;
  if (error.code !== 'HTTP_STATUS') return false;
  const { status, reason } = error.details ?? {};
  // A reader service's refused key or used-up quota is the deployment's, whatever its status.
  return (typeof status === 'number' && status >= 500) || reason === 'invalid-key' || reason === 'quota';
}
