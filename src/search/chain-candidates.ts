import { messageWithoutProvider, PeriscopeError } from '../errors.ts';
import { failureFacts, type SearchAttempt } from './attempt.ts';
import { forcedFailure, kindLabel, queryTooLong, unknownProvider } from './chain-errors.ts';
import { newsUnsupported, offersNews, type ParameterRequest } from './parameter-support.ts';
import type { ProviderState } from './provider-state.ts';
import type { SearchKind } from './search-kind.ts';

/** The providers to ask, in order, and a `skipped` attempt for each one left out before its turn. */
export interface ChainCandidates {
  usable: ProviderState[];
  attempts: SearchAttempt[];
}

/**
 * Of `ids`, those offering this kind of search; of those, the ones to ask: a provider without credentials, one
 * without the news search `topic: news` needs, one that cannot take the query, or one cooling down is skipped (a
 * forced provider's cooldown is ignored). Throws when a forced provider cannot be asked at all, or when no provider
 * in the chain offers this kind of search (or news).
 */
export function chainCandidates<REQUEST extends { query: string } & ParameterRequest, RESULT>(
  kind: SearchKind<REQUEST, RESULT>,
  request: REQUEST,
  all: ReadonlyMap<string, ProviderState>,
  ids: readonly string[],
  forced: string | undefined,
): ChainCandidates {
  const candidates: ProviderState[] = [];
  for (const id of ids) {
    const state = all.get(id);
    if (state === undefined) throw unknownProvider(id, all.keys());
    if (kind.call(state.provider) !== undefined) candidates.push(state);
    else if (forced !== undefined) {
      throw new PeriscopeError('INVALID_INPUT', `provider ${id} does not offer ${kindLabel(kind)}`, {
        details: { provider: id },
      });
    }
  }
  if (forced !== undefined && candidates[0] && !candidates[0].enabled) {
    throw new PeriscopeError('NOT_CONFIGURED', `${forced} is switched off (providers.${forced}.enabled)`, {
      details: { provider: forced },
    });
  }
  if (candidates.length === 0) {
    throw new PeriscopeError(
      'NOT_CONFIGURED',
      `no provider in search.chain offers ${kindLabel(kind)} (chain: ${ids.join(', ') || 'empty'})`,
    );
  }
  if (
    request.topic === 'news' &&
    forced === undefined &&
    !candidates.some((state) => offersNews(state.provider))
  ) {
    throw new PeriscopeError(
      'NOT_CONFIGURED',
      `no provider in search.chain offers news search (chain: ${ids.join(', ')}); add one that does (docs/providers.md), or search without topic news`,
    );
  }
  const attempts: SearchAttempt[] = [];
  const usable: ProviderState[] = [];
  for (const state of candidates) {
    const id = state.provider.id;
    if (!state.configured) {
      attempts.push({
        provider: id,
        outcome: 'skipped',
        code: 'NOT_CONFIGURED',
        message: `no credentials: ${state.credentials}`,
        ms: 0,
        retryable: false,
      });
      continue;
    }
    // Before its turn: news it has none of, or a query it cannot take, costs no request, no pacing turn and no
    // health mark.
    const refused =
      newsUnsupported(state.provider, request) ?? queryTooLong(state.provider, kind.name, request.query);
    if (refused !== undefined) {
      attempts.push({
        provider: id,
        outcome: 'skipped',
        code: refused.code,
        message: messageWithoutProvider(refused),
        ms: 0,
        ...failureFacts(refused),
      });
      if (forced !== undefined) throw forcedFailure(forced, attempts, refused);
      continue;
    }
    const coolingMs = forced === undefined ? state.health.coolingForMs() : 0;
    if (coolingMs > 0) {
      const last = state.health.lastError;
      attempts.push({
        provider: id,
        outcome: 'skipped',
        ...(last ? { code: last.code } : {}),
        message: `cooling down for ${Math.ceil(coolingMs / 1000)} s after: ${last?.message ?? 'failures'}`,
        ms: 0,
        retryAfterMs: coolingMs,
        // Benched, not refused: it is asked again once the cooldown ends.
        retryable: true,
      });
      continue;
    }
    usable.push(state);
  }
  return { usable, attempts };
}
