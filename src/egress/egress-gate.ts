import type { ToolResult } from '../tool-call.ts';
import {
  type CallSettlement,
  type EgressCall,
  type EgressCheck,
  type EgressHold,
  type EgressRequest,
  isDenial,
} from './egress-check.ts';
import { policyDenied } from './policy-denied.ts';

/** The request check of one call: resolves when the request may leave, rejects with POLICY_DENIED when not. */
export type EgressRequestCheck = (request: EgressRequest) => Promise<void>;

/** A call the gate let through. */
export interface EgressPass {
  /** The call was refused after the gate (repeat throttle, rate limit, credits): give back what the checks hold. */
  release(): Promise<void>;
  /** The call ran (whatever its result): every check's `afterCall`, with the policy's settlement. Never rejects. */
  settle(result: ToolResult, settlement: CallSettlement): Promise<void>;
}

/**
 * The one place egress is decided (docs/decisions/0015-egress.md). Two stages, each running every check in order,
 * the first denial winning (POLICY_DENIED, no request sent):
 * - `admit`: once per tool call, in the call policy before the repeat throttle, rate limits and credits
 *   (src/policy/call-policy.ts), so a refused call is never counted or charged;
 * - `requestCheck(call)`: before each request the call sends. web_fetch hands it down as `PageRequest.egress`
 *   (src/tools/web-fetch.ts → document-reader → fetch-chain.ts), where it runs for the first hop and every redirect
 *   of the origin back-ends (the guarded client's `beforeHop`), every browser navigation and sub-request
 *   (page-router.ts, through the same client), the URL handed to a reader, and the final URL a reader or a cache
 *   reports.
 */
export interface EgressGate {
  readonly checks: readonly EgressCheck[];
  /** Every check's `checkCall`; throws POLICY_DENIED on the first denial, after releasing what earlier ones hold. */
  admit(call: EgressCall): Promise<EgressPass>;
  /** The per-request check for one call. */
  requestCheck(call: EgressCall): EgressRequestCheck;
}

export function createEgressGate(checks: readonly EgressCheck[]): EgressGate {
  return {
    checks,
    async admit(call) {
      const holds: EgressHold[] = [];
      const releaseAll = async () => {
        const taken = holds.splice(0);
        await Promise.allSettled(taken.map((hold) => hold.release()));
      };
      for (const check of checks) {
        let verdict: Awaited<ReturnType<NonNullable<EgressCheck['checkCall']>>>;
        try {
          verdict = await check.checkCall?.(call);
        } catch (error) {
          await releaseAll();
          throw error;
        }
        if (isDenial(verdict)) {
          await releaseAll();
          throw policyDenied(verdict, check.name);
        }
        if (verdict !== undefined) holds.push(verdict);
      }
      return {
        release: releaseAll,
        async settle(result, settlement) {
          await Promise.allSettled(checks.map(async (check) => check.afterCall?.(call, result, settlement)));
        },
      };
    },
    requestCheck(call) {
      return async (request) => {
        for (const check of checks) {
          const denial = await check.checkRequest?.(request, call);
          if (denial) throw policyDenied(denial, check.name);
        }
      };
    },
  };
}
