import { messageWithoutProvider, PeriscopeError, toPeriscopeError } from '../errors.ts';
import type { HttpFetch } from '../net/types.ts';
import { failureFacts, runAttempt, type SearchAttempt } from './attempt.ts';
import { shouldFallback } from './chain-errors.ts';
import type { HealthSync } from './health-store.ts';
import type { ProviderState } from './provider-state.ts';
import type { SearchKind } from './search-kind.ts';

/** The last provider left is waited for this long when its queue is long (others are skipped after timeoutMs). */
const LAST_PROVIDER_QUEUE_MS = 60_000;

/** What every ask of one chain call shares. */
export interface AskContext {
  httpFetch: HttpFetch;
  /** `search.timeoutMs`: each request's deadline, and the longest wait for a turn but for the last provider. */
  timeoutMs: number;
  healthSync: HealthSync;
  signal: AbortSignal;
  /** The call's attempts so far; the ask adds its own. */
  attempts: SearchAttempt[];
}

export type Answer<RESULT> =
  | { id: string; results: RESULT[]; warnings: string[] }
  | { failure: PeriscopeError };

/**
 * Ask one provider: wait for its turn, call it, normalise what it gave, mark its health and record the attempt.
 * Its failure when the next may be asked; throws otherwise (a refused query, a blocked URL, the caller's abort).
 */
export async function askProvider<REQUEST extends { count: number }, RESULT>(
  kind: SearchKind<REQUEST, RESULT>,
  state: ProviderState,
  request: REQUEST,
  context: AskContext,
  isLast: boolean,
): Promise<Answer<RESULT>> {
  const { signal, attempts, healthSync, timeoutMs } = context;
  const id = state.provider.id;
  const call = kind.call(state.provider) as NonNullable<ReturnType<typeof kind.call>>;
  const started = performance.now();
  try {
    const { value, queuedMs } = await runAttempt(
      {
        id,
        pacer: state.pacer,
        httpFetch: context.httpFetch,
        settings: state.settings,
        signal,
        timeoutMs,
        maxQueueMs: isLast ? Math.max(timeoutMs, LAST_PROVIDER_QUEUE_MS) : timeoutMs,
      },
      (providerContext) => call.call(state.provider, request, providerContext),
    );
    const normalised = kind.normalise(
      Array.isArray(value?.results) ? value.results : [],
      request.count,
      state,
    );
    const { results } = normalised;
    const saving = healthSync.save(state, state.health.recordSuccess(value?.quota), value?.quota);
    if (saving) await saving;
    attempts.push({
      provider: id,
      outcome: 'ok',
      ms: Math.round(performance.now() - started),
      ...(queuedMs >= 1 ? { queuedMs: Math.round(queuedMs) } : {}),
      results: results.length,
    });
    const warnings = [...(Array.isArray(value?.warnings) ? value.warnings : []), ...normalised.warnings];
    return { id, results, warnings };
  } catch (thrown) {
    const error = toPeriscopeError(thrown);
    if (error.code === 'ABORTED' && signal.aborted) throw error;
    const skipped = error.details.reason === 'queue';
    if (!skipped) {
      state.health.recordFailure(error);
      await healthSync.save(state, true);
    }
    attempts.push({
      provider: id,
      outcome: skipped ? 'skipped' : 'failed',
      code: error.code,
      message: messageWithoutProvider(error),
      ms: Math.round(performance.now() - started),
      ...failureFacts(error),
    });
    if (!shouldFallback(error)) {
      throw new PeriscopeError(error.code, error.message, {
        retryable: error.retryable,
        retryAfterMs: error.retryAfterMs,
        details: { ...error.details, provider: id, attempts: [...attempts] },
        cause: error,
      });
    }
    return { failure: error };
  }
}
