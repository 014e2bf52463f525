import type { EgressConfig } from '../config/egress-schema.ts';
import { isPeriscopeError } from '../errors.ts';
import type { HttpFetch } from '../net/types.ts';
import type { ToolName } from '../tool-call.ts';
import type { EgressCall, EgressCheck, EgressDenial, EgressOptions } from './egress-check.ts';

/** The call a beforeCall hook is asked about: the tool and its validated input. */
export interface BeforeCallInfo {
  tool: ToolName;
  input: Readonly<Record<string, unknown>>;
}

/** Who makes it: the principal, the session, and the caller's own egress narrowing. */
export interface BeforeCallContext {
  agentId: string;
  sessionId: string | undefined;
  egress: EgressOptions;
}

/** Allow (also: return nothing), or refuse with a reason the model reads. The call itself cannot be rewritten. */
export type BeforeCallDecision = { allow: true } | { allow: false; reason: string };

/**
 * `CreatePeriscopeOptions.beforeCall`: asked before each tool call runs, after the other egress checks (so it is
 * never asked about a call they refuse). A person in the loop, a policy engine, an audit log that may say no.
 * Throwing refuses the call (fail closed).
 */
export type BeforeCallHook = (
  call: BeforeCallInfo,
  context: BeforeCallContext,
) => BeforeCallDecision | undefined | Promise<BeforeCallDecision | undefined>;

export type BeforeCallWebhookConfig = NonNullable<EgressConfig['beforeCallWebhook']>;

export interface BeforeCallCheckSettings {
  /** The library's hook. */
  hook?: BeforeCallHook | undefined;
  /** `egress.beforeCallWebhook`. */
  webhook?: BeforeCallWebhookConfig | undefined;
  /** The guarded client the webhook is reached through (its URL is configured: trusted). */
  httpFetch: HttpFetch;
}

/** A reason longer than this is cut: one sentence for the model, not a document. */
const MAX_REASON_CHARS = 500;
/** The largest answer read from the webhook. */
const MAX_ANSWER_BYTES = 65_536;

/**
 * People in the loop (issue 17; reason `hook`): the library's `beforeCall` hook and the `egress.beforeCallWebhook`,
 * each asked to allow or refuse every tool call before it runs. Both must allow when both are set (the hook first).
 * Undefined when neither is.
 *
 * The webhook gets a POST with `{ tool, input, agentId, sessionId }` as JSON and answers `{ "allow": true }` or
 * `{ "allow": false, "reason": "…" }` with a 2xx status. No answer within `timeoutMs`, an error status, a redirect,
 * or an answer that is not such a decision is a failure: `onFailure` (`deny` by default) decides. Its URL is the
 * operator's, so it may be a private or local address; redirects are not followed.
 */
export function createBeforeCallCheck(settings: BeforeCallCheckSettings): EgressCheck | undefined {
  const { hook, webhook, httpFetch } = settings;
  if (!hook && !webhook) return undefined;
  return {
    name: 'before-call',
    async checkCall(call) {
      if (hook) {
        const denial = await askHook(hook, call);
        if (denial) return denial;
      }
      return webhook ? askWebhook(webhook, httpFetch, call) : undefined;
    },
  };
}

async function askHook(hook: BeforeCallHook, call: EgressCall): Promise<EgressDenial | undefined> {
  let decision: unknown;
  try {
    // A copy: the hook may allow or refuse, never rewrite the call (nor what later checks see).
    decision = await hook(
      { tool: call.tool, input: structuredClone(call.input) },
      { agentId: call.agentId, sessionId: call.sessionId, egress: call.options },
    );
  } catch {
    return refused('the beforeCall hook failed, so the call was refused', { by: 'hook', failure: 'threw' });
  }
  if (decision === undefined || decision === null) return undefined;
  const read = readDecision(decision);
  if (read === undefined)
    return refused(
      'the beforeCall hook answered with something other than a decision, so the call was refused',
      {
        by: 'hook',
        failure: 'malformed',
      },
    );
  return read.allow
    ? undefined
    : refused(`the beforeCall hook refused the call: ${read.why}`, { by: 'hook' });
}

async function askWebhook(
  webhook: BeforeCallWebhookConfig,
  httpFetch: HttpFetch,
  call: EgressCall,
): Promise<EgressDenial | undefined> {
  const failed = (failure: string, what: string): EgressDenial | undefined =>
    webhook.onFailure === 'allow'
      ? undefined
      : refused(
          `the approval webhook ${what}, and egress.beforeCallWebhook.onFailure is deny, so the call was refused`,
          { by: 'webhook', failure },
        );
  const timeoutMs = webhook.timeoutMs;
  let response: Awaited<ReturnType<HttpFetch>>;
  try {
    response = await httpFetch(webhook.url, {
      method: 'POST',
      trusted: true,
      headers: { ...webhook.headers, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        tool: call.tool,
        input: call.input,
        agentId: call.agentId,
        sessionId: call.sessionId ?? null,
      }),
      limits: {
        totalTimeoutMs: timeoutMs,
        headersTimeoutMs: timeoutMs,
        bodyTimeoutMs: timeoutMs,
        connectTimeoutMs: timeoutMs,
        maxRedirects: 0,
        maxBytes: MAX_ANSWER_BYTES,
      },
    });
  } catch (error) {
    return isPeriscopeError(error) && error.code === 'TIMEOUT'
      ? failed('timeout', `did not answer within ${timeoutMs} ms`)
      : failed('unreachable', 'could not be reached');
  }
  if (response.status < 200 || response.status > 299)
    return failed('status', `answered with status ${response.status}`);
  let decision: unknown;
  try {
    decision = JSON.parse(Buffer.from(response.body).toString('utf8'));
  } catch {
    return failed('malformed', 'answered with something other than JSON');
  }
  const read = readDecision(decision);
  if (read === undefined) return failed('malformed', 'answered with something other than a decision');
  return read.allow
    ? undefined
    : refused(`the approval webhook refused the call: ${read.why}`, { by: 'webhook' });
}

/** `{ allow: true }` or `{ allow: false, reason }` as `why` (a missing one gets one); undefined for anything else. */
function readDecision(value: unknown): { allow: true } | { allow: false; why: string } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { allow, reason } = value as { allow?: unknown; reason?: unknown };
  if (allow === true) return { allow: true };
  if (allow !== false) return undefined;
  const said = typeof reason === 'string' ? reason.replace(/\s+/g, ' ').trim() : '';
  return { allow: false, why: said === '' ? 'no reason given' : said.slice(0, MAX_REASON_CHARS) };
}

function refused(message: string, details: Record<string, unknown>): EgressDenial {
  return { reason: 'hook', message, details };
}
