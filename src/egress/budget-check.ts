import type { LimitsConfig } from '../config/policy-schema.ts';
import { digest } from '../store/digest.ts';
import type { LazyStore } from '../store/lazy-store.ts';
import { stepCounters } from '../store/store-errors.ts';
import type { ToolName } from '../tool-call.ts';
import type { EgressCall, EgressCheck, EgressDenial, EgressHold, SessionBudget } from './egress-check.ts';

/** How long a session's counts are kept after its last call. */
export const SESSION_BUDGET_TTL_MS = 86_400_000;

const TOOLS: readonly ToolName[] = ['web_fetch', 'web_search', 'image_search', 'verify_citation'];

type Counters = Record<string, number>;

/** A limit in force for one call: its value and who set it (the tighter one wins; the config on a tie). */
interface Limit {
  max: number;
  setBy: string;
}

/** What a web_search reserved for the pages its `readTop` reads, taken by those reads one by one. */
interface ReadPool {
  left: number;
  credits: number;
}

/** What one admitted call holds: its counters, and the pool it drew from or reserved. */
interface Reservation {
  counters: Counters;
  /** The session's store key; undefined: no session, nothing stored. */
  key: string | undefined;
  /** A read drawn from its search's pool instead of the store. */
  drawnFrom?: ReadPool | undefined;
  /** A search's pool for its reads. */
  pool?: ReadPool | undefined;
}

/**
 * Task budgets (issue 17, `limits.session`; reason `budget`): per session, a maximum number of calls per tool and
 * a maximum of credits, like Anthropic's `max_uses`. The limits in force for a call are the tighter of the config's and
 * the caller's (`ToolExecuteOptions.egress.budget`: an API key's, a program's, `runAgent`'s); a caller only narrows.
 *
 * - Reserved before the call runs, in one atomic step on the store (`incrementWithin`: memory, SQLite, Redis), so
 *   concurrent calls of a session never overspend; the reservation is released if the call is refused after this
 *   check (the beforeCall hook, the repeat throttle, a rate limit, credits).
 * - A web_search with `readTop` N reserves its N page reads with it: all or none. Its reads draw from that
 *   reservation (they carry the search as `parentCall`), and reads it did not make are given back when it ends.
 * - Settled after the call: a call counts once it ran; its credits are given back when the call policy settles it
 *   as refundable (`CallSettlement.refundable`: the policy applies src/policy/refund-rule.ts once, for its credits
 *   and for this budget alike).
 * - A call without a `sessionId` is a session of its own: checked against the limits alone (a readTop wider than
 *   the web_fetch limit, a call costing more than `maxCredits`, a limit of 0), nothing stored.
 *
 * Counts live in the store under the agent and session (`session-budget:<digest>`), kept
 * SESSION_BUDGET_TTL_MS after the session's last call.
 */
export function createBudgetCheck(settings: { limits: LimitsConfig; store: LazyStore }): EgressCheck {
  const { limits, store } = settings;
  const held = new WeakMap<EgressCall, Reservation>();

  const cost = (tool: ToolName): number => limits.credits.cost[tool];

  async function give(key: string | undefined, counters: Counters): Promise<void> {
    if (key === undefined || Object.values(counters).every((count) => count === 0)) return;
    const negated = Object.fromEntries(Object.entries(counters).map(([field, count]) => [field, -count]));
    await (await store.get()).incrementWithin(key, negated, {}, { ttlMs: SESSION_BUDGET_TTL_MS });
  }

  return {
    name: 'budget',
    async checkCall(call) {
      // A page read of a web_search that reserved it: drawn from that reservation.
      const pool = call.parent ? held.get(call.parent)?.pool : undefined;
      if (call.tool === 'web_fetch' && pool && pool.left > 0) {
        pool.left -= 1;
        const counters = { 'calls.web_fetch': 1, credits: pool.credits };
        const key = held.get(call.parent as EgressCall)?.key;
        held.set(call, { counters, key, drawnFrom: pool });
        return hold(() => {
          held.delete(call);
          pool.left += 1;
        });
      }
      const inForce = limitsFor(limits, call.options.budget);
      if (Object.keys(inForce).length === 0) return undefined;
      const reads = call.tool === 'web_search' ? readTopOf(call.input) : 0;
      // web_fetch with `urls`: one fetch per URL, reserved together.
      const fetches =
        call.tool === 'web_fetch' && Array.isArray(call.input.urls) ? call.input.urls.length : 1;
      const counters: Counters = { [`calls.${call.tool}`]: fetches, credits: fetches * cost(call.tool) };
      if (reads > 0) {
        counters['calls.web_fetch'] = reads;
        counters.credits = (counters.credits ?? 0) + reads * cost('web_fetch');
      }
      const max = Object.fromEntries(Object.entries(inForce).map(([field, limit]) => [field, limit.max]));
      const key = call.sessionId === undefined ? undefined : sessionKey(call.agentId, call.sessionId);
      const taken =
        key === undefined
          ? stepCounters({}, counters, max)
          : await (await store.get()).incrementWithin(key, counters, max, { ttlMs: SESSION_BUDGET_TTL_MS });
      if (!taken.applied) {
        const over = taken.over as string;
        const used = 'values' in taken ? (taken.values[over] ?? 0) : 0;
        return denial(call, over, inForce[over] as Limit, used, counters[over] ?? 0, reads);
      }
      const reservation: Reservation = {
        counters,
        key,
        ...(reads > 0 ? { pool: { left: reads, credits: cost('web_fetch') } } : {}),
      };
      held.set(call, reservation);
      return hold(async () => {
        held.delete(call);
        await give(key, counters);
      });
    },
    async afterCall(call, _result, settlement) {
      const reservation = held.get(call);
      if (reservation === undefined) return;
      held.delete(call);
      const back: Counters = {};
      if (settlement.refundable) back.credits = reservation.drawnFrom?.credits ?? cost(call.tool);
      else if (settlement.refundableFetches) back.credits = settlement.refundableFetches * cost(call.tool);
      const unread = reservation.pool?.left ?? 0;
      if (unread > 0) {
        back['calls.web_fetch'] = unread;
        back.credits = (back.credits ?? 0) + unread * (reservation.pool?.credits ?? 0);
        if (reservation.pool) reservation.pool.left = 0;
      }
      await give(reservation.key, back);
    },
  };
}

/** The limits in force, by counter: the tighter of the config's and the caller's. */
function limitsFor(limits: LimitsConfig, budget: SessionBudget | undefined): Record<string, Limit> {
  const inForce: Record<string, Limit> = {};
  const tighter = (field: string, config: number | undefined, caller: number | undefined, name: string) => {
    if (config !== undefined && (caller === undefined || config <= caller))
      inForce[field] = { max: config, setBy: `limits.session.${name}` };
    else if (caller !== undefined)
      inForce[field] = { max: caller, setBy: `the caller's session budget (${name})` };
  };
  for (const tool of TOOLS)
    tighter(`calls.${tool}`, limits.session.maxCalls[tool], budget?.maxCalls?.[tool], `maxCalls.${tool}`);
  tighter('credits', limits.session.maxCredits, budget?.maxCredits, 'maxCredits');
  return inForce;
}

function denial(
  call: EgressCall,
  over: string,
  limit: Limit,
  used: number,
  needed: number,
  reads: number,
): EgressDenial {
  const session = call.sessionId === undefined ? 'a session' : 'this session';
  const spent = call.sessionId === undefined ? '' : `, and has used ${used}`;
  const message =
    over === 'credits'
      ? `this call needs ${needed} credit${needed === 1 ? '' : 's'}; ${session} may spend ${limit.max}${spent} (${limit.setBy})`
      : over === 'calls.web_fetch' && call.tool === 'web_search'
        ? `reading the top ${reads} results needs ${reads} web_fetch call${reads === 1 ? '' : 's'}; ${session} may make ${limit.max}${spent} (${limit.setBy}): search with a smaller readTop, or none`
        : `${session} may make ${limit.max} ${over.slice('calls.'.length)} call${limit.max === 1 ? '' : 's'}${spent} (${limit.setBy})`;
  return {
    reason: 'budget',
    message,
    details: {
      limit: over === 'credits' ? 'maxCredits' : `maxCalls.${over.slice('calls.'.length)}`,
      limitValue: limit.max,
      used,
      needed,
    },
  };
}

function hold(release: () => void | Promise<void>): EgressHold {
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      await release();
    },
  };
}

function readTopOf(input: Readonly<Record<string, unknown>>): number {
  const readTop = input.readTop;
  return typeof readTop === 'number' && Number.isSafeInteger(readTop) && readTop > 0 ? readTop : 0;
}

function sessionKey(agentId: string, sessionId: string): string {
  return `session-budget:${digest(`${agentId}\n${sessionId}`)}`;
}
