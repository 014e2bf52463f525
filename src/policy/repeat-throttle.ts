import { PeriscopeError } from '../errors.ts';
import { digest } from '../store/digest.ts';
import type { Store } from '../store/store.ts';

export interface RepeatThrottleSettings {
  /** Times one session may make the same lookup. */
  limit: number;
  /** How long a session's lookups are remembered, from the first one. */
  windowMs: number;
}

export interface RepeatLookup {
  agentId: string;
  sessionId: string;
  /** From `lookupSignature`: `web_search:<query>`, `web_fetch:<url>`, … */
  signature: string;
}

/**
 * Counts `lookup` for its session and refuses it with REPEATED_LOOKUP past the limit. One atomic increment, so a
 * batch of identical calls made at once is counted exactly. Refused calls count too (the counter only grows).
 */
export async function checkRepeat(
  store: Store,
  settings: RepeatThrottleSettings,
  lookup: RepeatLookup,
): Promise<void> {
  const session = digest(`${lookup.agentId}\n${lookup.sessionId}`);
  const key = `repeat:${session}:${digest(lookup.signature)}`;
  const count = await store.increment(key, 1, { ttlMs: settings.windowMs });
  if (count <= settings.limit) return;
  const [tool, ...rest] = lookup.signature.split(':');
  const what = tool === 'web_fetch' ? `${tool} of ${rest.join(':')}` : `${tool} for "${rest.join(':')}"`;
  const times = settings.limit === 1 ? 'once' : `${settings.limit} times`;
  throw new PeriscopeError(
    'REPEATED_LOOKUP',
    `this session already made the ${what} ${times} (limits.repeatLookups: ${settings.limit})`,
    {
      retryable: false,
      details: { reason: 'repeated-lookup', limit: 'limits.repeatLookups', limitValue: settings.limit },
    },
  );
}
