import { isCalendarDay } from '../calendar-day.ts';
import type { UsageConfig } from '../config/policy-schema.ts';
import { type ErrorCode, PeriscopeError } from '../errors.ts';
import type { Store } from '../store/store.ts';

/** One call, as the usage counters see it. */
export interface UsageEvent {
  agentId: string;
  tool: string;
  /** The provider or back-end that answered (or failed); `-` when none was asked. */
  provider: string;
  cached: boolean;
  errorCode?: ErrorCode | undefined;
  /** Credits kept (charged and not refunded). */
  credits: number;
}

export interface UsageCounts {
  calls: number;
  cacheHits: number;
  /** Failed calls by error code (refusals by the policy included). */
  errors: Partial<Record<ErrorCode, number>>;
  /** Credits spent (charges kept, refunds deducted). */
  credits: number;
}

export interface UsageRow extends UsageCounts {
  agent: string;
  tool: string;
  provider: string;
}

export interface UsageReport {
  /** The UTC day, `YYYY-MM-DD`. */
  day: string;
  /** One row per agent, tool and provider, sorted. */
  rows: UsageRow[];
  totals: UsageCounts;
}

export interface UsageQuery {
  /** Only this agent. */
  agentId?: string | undefined;
  /** `YYYY-MM-DD` (UTC); default today. */
  day?: string | undefined;
}

const DAY_MS = 86_400_000;

/** `2025-06-01`: the UTC day `time` falls on. */
export function usageDay(time: number = Date.now()): string {
  return new Date(time).toISOString().slice(0, 10);
}

/** Counter keys: `usage:<day>:<agent>:<tool>:<provider>:<metric>`, the free-text parts URI-encoded. */
function counterKey(day: string, event: UsageEvent, metric: string): string {
  const parts = [event.agentId, event.tool, event.provider].map(encodeURIComponent);
  return `usage:${day}:${parts.join(':')}:${metric}`;
}

/** One call as counter increments: `[key, by, ttlMs]` for the day `time` falls on. */
export function usageIncrements(
  config: UsageConfig,
  event: UsageEvent,
  time: number = Date.now(),
): Array<[string, number, number]> {
  const metrics: Array<[string, number]> = [['calls', 1]];
  if (event.cached) metrics.push(['cacheHits', 1]);
  if (event.errorCode) metrics.push([`errors.${event.errorCode}`, 1]);
  if (event.credits !== 0) metrics.push(['credits', event.credits]);
  return counterIncrements(config, event, time, metrics);
}

/**
 * Store increments `[key, by, ttlMs]` for counters (`calls`, `cacheHits`, `credits`, `errors.CODE`) of the agent,
 * tool and provider of `event` on the day of `time`: one call's (`usageIncrements`) or a batch's totals.
 */
export function counterIncrements(
  config: UsageConfig,
  event: UsageEvent,
  time: number,
  metrics: ReadonlyArray<readonly [string, number]>,
): Array<[string, number, number]> {
  const day = usageDay(time);
  const ttlMs = config.retentionDays * DAY_MS;
  return metrics.map(([metric, by]) => [counterKey(day, event, metric), by, ttlMs]);
}

/** Adds one call to the day's counters at once. Never throws: a lost count must not fail a call. */
export async function recordUsage(store: Store, config: UsageConfig, event: UsageEvent): Promise<void> {
  await Promise.all(
    usageIncrements(config, event).map(([key, by, ttlMs]) =>
      store.increment(key, by, { ttlMs }).catch(() => 0),
    ),
  );
}

function emptyCounts(): UsageCounts {
  return { calls: 0, cacheHits: 0, errors: {}, credits: 0 };
}

function add(counts: UsageCounts, metric: string, value: number): void {
  if (metric === 'calls') counts.calls += value;
  else if (metric === 'cacheHits') counts.cacheHits += value;
  else if (metric === 'credits') counts.credits += value;
  else if (metric.startsWith('errors.')) {
    const code = metric.slice('errors.'.length) as ErrorCode;
    counts.errors[code] = (counts.errors[code] ?? 0) + value;
  }
}

/** The day's counters, one row per agent, tool and provider. Throws INVALID_INPUT for a malformed day. */
export async function readUsage(store: Store, query: UsageQuery = {}): Promise<UsageReport> {
  const day = query.day ?? usageDay();
  if (!isCalendarDay(day))
    throw new PeriscopeError('INVALID_INPUT', `usage day must be YYYY-MM-DD, not ${JSON.stringify(day)}`);
  const prefix = `usage:${day}:${query.agentId === undefined ? '' : `${encodeURIComponent(query.agentId)}:`}`;
  const keys = await store.keys(prefix);
  const values = await Promise.all(keys.map((key) => store.get<number>(key)));
  const rows = new Map<string, UsageRow>();
  const totals = emptyCounts();
  keys.forEach((key, index) => {
    const parts = key.slice(`usage:${day}:`.length).split(':');
    const value = values[index];
    if (parts.length !== 4 || typeof value !== 'number') return;
    const [agent, tool, provider, metric] = parts as [string, string, string, string];
    const id = `${agent}:${tool}:${provider}`;
    let row = rows.get(id);
    if (row === undefined) {
      row = {
        agent: decodeURIComponent(agent),
        tool: decodeURIComponent(tool),
        provider: decodeURIComponent(provider),
        ...emptyCounts(),
      };
      rows.set(id, row);
    }
    add(row, metric, value);
    add(totals, metric, value);
  });
  const sorted = [...rows.values()].sort(
    (a, b) =>
      a.agent.localeCompare(b.agent) || a.tool.localeCompare(b.tool) || a.provider.localeCompare(b.provider),
  );
  return { day, rows: sorted, totals };
}
