import { setTimeout as sleep } from 'node:timers/promises';
import type { LimitsConfig } from '../config/policy-schema.ts';
import { PeriscopeError } from '../errors.ts';
import type { Store } from '../store/store.ts';
import type { ToolName } from '../tool-call.ts';

/** Credits taken for one call, returned by `refund` when the failure was not the agent's doing. */
export interface Reservation {
  agentId: string;
  tool: ToolName;
  cost: number;
}

export interface Credits {
  readonly isEnabled: boolean;
  cost(tool: ToolName): number;
  /**
   * Debits the tool's cost from the agent's balance (a ledger entry `charge`), refusing with CREDITS_EXHAUSTED
   * when the balance is short; undefined when the call is free. Store failures propagate (fail closed).
   */
  reserve(store: Store, agentId: string, tool: ToolName, units?: number): Promise<Reservation | undefined>;
  /**
   * Credits the reservation back (a ledger entry `refund`), or only `cost` of it (a `urls` call's failed URLs);
   * false when the store could not be written.
   */
  refund(store: Store, reservation: Reservation, cost?: number): Promise<boolean>;
}

/** How long a process waits for another one that is giving a new agent its initial balance. */
const SEED_WAIT_MS = 2000;

export function createCredits(config: LimitsConfig['credits']): Credits {
  /** Agents whose initial balance this process has settled. */
  const seeded = new Map<string, Promise<void>>();

  /**
   * `credits.initial`: the first call of an agent that has no ledger gives it the initial balance, once across
   * every process sharing the store (an atomic marker decides who writes it; the others wait for the entry).
   */
  function seed(store: Store, agentId: string): Promise<void> {
    const initial = config.initial;
    if (initial === undefined) return Promise.resolve();
    let settled = seeded.get(agentId);
    if (settled === undefined) {
      settled = (async () => {
        const first = (await store.increment(`credits-initial:${agentId}`, 1)) === 1;
        if (first) {
          if ((await store.ledger(agentId, { limit: 1 })).length > 0) return;
          await store.ledgerApply(agentId, { delta: initial, reason: 'initial', requireNonNegative: false });
          return;
        }
        for (const deadline = Date.now() + SEED_WAIT_MS; Date.now() < deadline; await sleep(20))
          if ((await store.ledger(agentId, { limit: 1 })).length > 0) return;
      })();
      seeded.set(agentId, settled);
      settled.catch(() => seeded.delete(agentId));
    }
    return settled;
  }

  return {
    isEnabled: config.enabled,
    cost: (tool) => config.cost[tool],
    async reserve(store, agentId, tool, units = 1) {
      // `units`: web_fetch with `urls` is one fetch per URL, reserved together.
      const cost = config.cost[tool] * units;
      if (!config.enabled || cost === 0) return undefined;
      await seed(store, agentId);
      const debit = await store.ledgerApply(agentId, {
        delta: -cost,
        tool,
        reason: 'charge',
        requireNonNegative: true,
      });
      if (debit.applied) return { agentId, tool, cost };
      const credits = debit.balance === 1 ? 'credit' : 'credits';
      throw new PeriscopeError(
        'CREDITS_EXHAUSTED',
        `agent "${agentId}" has ${debit.balance} ${credits} left and ${tool} costs ${cost}${units === 1 ? '' : ` (${units} URLs)`} (limits.credits.cost.${tool})`,
        {
          retryable: false,
          details: { reason: 'agent-credits', agent: agentId, balance: debit.balance, cost, tool },
        },
      );
    },
    async refund(store, reservation, cost = reservation.cost) {
      try {
        await store.ledgerApply(reservation.agentId, {
          delta: Math.min(cost, reservation.cost),
          tool: reservation.tool,
          reason: 'refund',
          requireNonNegative: false,
        });
        return true;
      } catch {
        return false; // the ledger keeps the charge: the balance still equals the ledger's sum
      }
    },
  };
}
