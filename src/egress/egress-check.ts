import type { ReasonsByCode } from '../errors.ts';
import type { ToolName, ToolResult } from '../tool-call.ts';

/** Why an egress check refused: POLICY_DENIED's `details.reason` (src/error-reasons.ts). */
export type PolicyDeniedReason = ReasonsByCode['POLICY_DENIED'];

/**
 * Every reason, one per rule, as src/error-reasons.ts lists them (egress-gate.test.ts keeps the two the same): a
 * new rule adds its reason there and here.
 */
export const POLICY_DENIED_REASONS = [
  'domain',
  'not-seen',
  'secret',
  'budget',
  'hook',
] as const satisfies readonly PolicyDeniedReason[];

/**
 * What the caller of a tool (not the model) says about egress for one call: an API key's narrowing, a library
 * program's own. `ToolExecuteOptions.egress`. Everything here can only narrow the operator's policy.
 */
export interface EgressOptions {
  /** Domain patterns (`example.com`, `*.example.com`, `=www.example.com`) this caller narrows the call to. */
  domains?: { allow?: readonly string[] | undefined; block?: readonly string[] | undefined } | undefined;
  /**
   * URLs the task itself gave (the user's question, the client's documents): under `egress.seenUrlsOnly` web_fetch
   * takes them, and they join the session's seen URLs (src/egress/seen-url-check.ts). Set by the program, the
   * gateway's `Periscope-Task-Urls` header or MCP's `_meta["periscope/taskUrls"]`; never by the model.
   */
  seenUrls?: readonly string[] | undefined;
  /** The session budget this caller sets (calls per tool, credits); the tighter of it and `limits.session` holds. */
  budget?: SessionBudget | undefined;
}

/**
 * A session budget (`limits.session`, an API key's, a program's `ToolExecuteOptions.egress.budget`, `runAgent`'s):
 * calls per tool and credits (`limits.credits.cost`) one session may spend. Unset: no limit.
 */
export interface SessionBudget {
  maxCalls?: Partial<Record<ToolName, number | undefined>> | undefined;
  maxCredits?: number | undefined;
}

/** One tool call, as every egress check sees it before the call is counted, charged or run. */
export interface EgressCall {
  tool: ToolName;
  /** The input, already validated by the tool's schema (web_fetch `url`, web_search `query`, …). */
  input: Readonly<Record<string, unknown>>;
  /** The principal (`ToolExecuteOptions.agentId`, `default` when none). */
  agentId: string;
  /** The session (`ToolExecuteOptions.sessionId`); undefined: the call is its own session. */
  sessionId: string | undefined;
  /** The caller's own egress options (`ToolExecuteOptions.egress`). */
  options: EgressOptions;
  /** The call this one is made for (`ToolExecuteOptions.parentCall`: a web_search's readTop reads). */
  parent?: EgressCall | undefined;
}

/**
 * What a request a call is about to send is for:
 * - `page`: the URL web_fetch was asked for, as the first hop an origin back-end (local, browser) sends;
 * - `redirect`: a hop the site redirected that request to, or the final URL a reader service (or a cached
 *   document) reports after its own redirects;
 * - `navigation`: a document a page in the browser moved on to (a script, a meta refresh, an iframe);
 * - `subresource`: a script, style sheet, XHR… a page in the browser loads (`egress.domains.assets` may open more);
 * - `reader`: the URL handed to a third-party reader service (jina-reader, firecrawl, …) to fetch for us.
 */
export type EgressPurpose = 'page' | 'redirect' | 'navigation' | 'subresource' | 'reader';

/** One request about to leave on behalf of a call. */
export interface EgressRequest {
  url: URL;
  purpose: EgressPurpose;
}

/** A refusal: POLICY_DENIED with this reason, and a message that names the rule (never a secret). */
export interface EgressDenial {
  reason: PolicyDeniedReason;
  message: string;
  /** Goes into `details` (the rule, the list, the limit); never the secret itself. */
  details?: Record<string, unknown>;
}

/**
 * Something a check took for the call and must give back if the call is refused after it (a later check, the
 * repeat throttle, the rate limit or credits): a session budget's reservation.
 */
export interface EgressHold {
  release(): Promise<void>;
}

/**
 * What the call policy decided about a call once it ran, handed to every check's `afterCall` as plain values: the
 * checks sit below the policy (docs/decisions/0013-layout.md) and read its decisions, never its rules.
 */
export interface CallSettlement {
  /**
   * Whether the call failed in a way whose credits go back (src/policy/refund-rule.ts: the provider's or the
   * deployment's doing, or an egress refusal inside the call), whether or not credits are charged.
   */
  refundable: boolean;
  /** web_fetch with `urls`: how many of its URLs failed refundably (their fetches' credits go back). */
  refundableFetches?: number;
}

/** `undefined`: allowed; an EgressDenial: refused; an EgressHold: allowed, holding something. */
export type EgressVerdict = EgressDenial | EgressHold | undefined;

/**
 * One egress rule. Every method is optional; a check implements the stages it cares about. A check never sends
 * anything itself and never throws for a refusal (it returns an EgressDenial; the gate makes the error).
 */
export interface EgressCheck {
  /** Its name in messages and tests: `domain`, `seen-url`, `secret`, `budget`, `before-call`. */
  readonly name: string;
  /** Once per tool call, before it is counted or charged, in the order the checks are listed. */
  checkCall?(call: EgressCall): EgressVerdict | Promise<EgressVerdict>;
  /** Before each request the call sends (every hop, every browser sub-request, every URL handed to a reader). */
  checkRequest?(
    request: EgressRequest,
    call: EgressCall,
  ): EgressDenial | undefined | Promise<EgressDenial | undefined>;
  /**
   * After the call ran (any result, errors included), as the caller gets it (after the credit commit or refund:
   * `data.creditsSpent` when credits are on), with what the call policy decided about it: record what it saw
   * (seen URLs), settle what it held (a budget).
   */
  afterCall?(call: EgressCall, result: ToolResult, settlement: CallSettlement): void | Promise<void>;
}

export function isDenial(verdict: EgressVerdict): verdict is EgressDenial {
  return verdict !== undefined && 'reason' in verdict;
}
