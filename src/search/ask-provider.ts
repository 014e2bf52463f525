import { messageWithoutProvider, PeriscopeError, toPeriscopeError } from '../errors.ts';
import type { HttpFetch } from '../net/types.ts';
import { failureFacts, runAttempt, type SearchAttempt } from './attempt.ts';
import { isUnsupportedParameter, shouldFallback } from './chain-errors.ts';
import type { HealthSync } from './health-store.ts';
import {
  type DateFilter,
  dateFilterFor,
  type ParameterRequest,
  parameterWarnings,
  requestFor,
} from './parameter-support.ts';
import type { ProviderState } from './provider-state.ts';
import type { SearchKind } from './search-kind.ts';
import { createResultFilter, describeDomains, withSiteOperators } from './site-filter.ts';
import type { SearchDomains, SearchProvider } from './types.ts';

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
 * What the chain needs of a request: its count, the query and domains a site filter works on, and the parameters
 * it handles by each provider's table (news, dates, safe search, offset).
 */
export interface ChainRequest extends ParameterRequest {
  count: number;
  query: string;
  domains?: SearchDomains | undefined;
}

interface SiteFilter<REQUEST> {
  /** The request the provider is sent: with `site:` operators written into the query, for a `query` provider. */
  request: REQUEST;
  /** Whether a result's URL passes the rules; undefined when there are none. */
  keeps: ((url: unknown) => boolean) | undefined;
  /** What to say when results were dropped. */
  warnings(dropped: number, given: number): string[];
}

/**
 * The egress domain rules for one provider (issue 17): a `request` provider is handed them in the request, a
 * `query` provider gets `site:` operators in its query (when they fit), and every provider's results are kept to
 * the rules. A warning says when results were dropped, and whether the provider could filter itself.
 */
function siteFilterFor<REQUEST extends ChainRequest, RESULT>(
  kind: SearchKind<REQUEST, RESULT>,
  provider: SearchProvider,
  request: REQUEST,
): SiteFilter<REQUEST> {
  const { domains } = request;
  if (domains === undefined || (domains.allow.length === 0 && domains.block.length === 0))
    return { request, keeps: undefined, warnings: () => [] };
  let filtered = provider.siteFilter === 'request';
  let asked = request;
  if (provider.siteFilter === 'query') {
    const query = withSiteOperators(provider, kind.name, request.query, domains);
    if (query !== undefined) {
      asked = { ...request, query };
      filtered = true;
    }
  }
  const rules = describeDomains(domains);
  return {
    request: asked,
    keeps: createResultFilter(domains),
    warnings: (dropped, given) => {
      if (dropped === 0) return [];
      return [
        filtered
          ? `${provider.id} returned ${dropped} of ${given} results outside the allowed domains (${rules}); they were dropped`
          : `${provider.id} cannot filter by domain itself: ${dropped} of ${given} results were outside the allowed domains (${rules}) and were dropped, so fewer came back`,
      ];
    },
  };
}

/** The results the date range keeps, and how many were dropped for their date or for having none. */
function keepByDate<RESULT>(
  results: RESULT[],
  dates: DateFilter | undefined,
  kind: Pick<SearchKind<never, RESULT>, 'publishedAt'>,
): { results: RESULT[]; dropped: { outside: number; undated: number } } {
  const dropped = { outside: 0, undated: 0 };
  if (dates === undefined) return { results, dropped };
  const kept: RESULT[] = [];
  for (const result of results) {
    const publishedAt = kind.publishedAt(result);
    if (dates.keeps(publishedAt)) kept.push(result);
    else if (publishedAt === undefined) dropped.undated++;
    else dropped.outside++;
  }
  return { results: kept, dropped };
}

/**
 * Ask one provider: wait for its turn, call it, normalise what it gave, mark its health and record the attempt.
 * Its failure when the next may be asked; throws otherwise (a refused query, a blocked URL, the caller's abort).
 */
export async function askProvider<REQUEST extends ChainRequest, RESULT>(
  kind: SearchKind<REQUEST, RESULT>,
  state: ProviderState,
  request: REQUEST,
  context: AskContext,
  isLast: boolean,
): Promise<Answer<RESULT>> {
  const { signal, attempts, healthSync, timeoutMs } = context;
  const id = state.provider.id;
  const call = kind.call(state.provider) as NonNullable<ReturnType<typeof kind.call>>;
  const sent = requestFor(state.provider, request);
  const filter = siteFilterFor(kind, state.provider, sent);
  const dates = dateFilterFor(state.provider, sent, request);
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
      (providerContext) => call.call(state.provider, filter.request, providerContext),
    );
    const given = Array.isArray(value?.results) ? value.results : [];
    const kept = filter.keeps ? given.filter((result) => filter.keeps?.(kind.resultUrl(result))) : given;
    const normalised = kind.normalise(kept, request.count, state);
    const byDate = keepByDate(normalised.results, dates, kind);
    const { results } = byDate;
    const saving = healthSync.save(state, state.health.recordSuccess(value?.quota), value?.quota);
    if (saving) await saving;
    attempts.push({
      provider: id,
      outcome: 'ok',
      ms: Math.round(performance.now() - started),
      ...(queuedMs >= 1 ? { queuedMs: Math.round(queuedMs) } : {}),
      results: results.length,
    });
    const warnings = [
      ...parameterWarnings(state.provider, kind.name, request),
      ...(Array.isArray(value?.warnings) ? value.warnings : []),
      ...normalised.warnings,
      ...filter.warnings(given.length - kept.length, given.length),
      ...(dates ? dates.warnings(byDate.dropped) : []),
    ];
    return { id, results, warnings };
  } catch (thrown) {
    const error = toPeriscopeError(thrown);
    if (error.code === 'ABORTED' && signal.aborted) throw error;
    const skipped = error.details.reason === 'queue' || isUnsupportedParameter(error);
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
