import { PeriscopeError } from '../errors.ts';
import type { LazyStore } from '../store/lazy-store.ts';
import type { LedgerEntry } from '../store/store.ts';

/** Operator-side credit operations (the CLI's `periscope credits`, a gateway's admin routes). */
export interface CreditAccounts {
  /** The agent's balance; 0 for an agent never seen. */
  balance(agentId: string): Promise<number>;
  /** Adds `amount` (a whole number ≥ 1) to the agent's balance: a ledger entry `grant` (or `reason`). */
  grant(agentId: string, amount: number, options?: { reason?: string }): Promise<LedgerEntry>;
  /** The agent's ledger, oldest first; `limit`: only the latest entries. */
  ledger(agentId: string, options?: { limit?: number }): Promise<LedgerEntry[]>;
  /** Every agent with a credit account, with its balance, sorted by id. */
  list(): Promise<Array<{ agent: string; balance: number }>>;
}

export function createCreditAccounts(store: LazyStore): CreditAccounts {
  return {
    async balance(agentId) {
      return (await store.get()).balance(agentId);
    },
    async grant(agentId, amount, options = {}) {
      if (!Number.isSafeInteger(amount) || amount < 1)
        throw new PeriscopeError(
          'INVALID_INPUT',
          `a grant must be a whole number of credits ≥ 1, not ${JSON.stringify(amount)}`,
        );
      const result = await (await store.get()).ledgerApply(agentId, {
        delta: amount,
        reason: options.reason ?? 'grant',
        requireNonNegative: false,
      });
      if (!result.applied)
        throw new PeriscopeError('CONFIG_INVALID', `the grant to ${agentId} was not applied`);
      return result.entry;
    },
    async ledger(agentId, options = {}) {
      return (await store.get()).ledger(agentId, options);
    },
    async list() {
      const opened = await store.get();
      const agents = (await opened.agents()).sort();
      return Promise.all(agents.map(async (agent) => ({ agent, balance: await opened.balance(agent) })));
    },
  };
}
