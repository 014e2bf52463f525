import type { PeriscopeError } from '../errors.ts';
import { type AskContext, askProvider, type ChainRequest } from './ask-provider.ts';
import type { SearchAttempt } from './attempt.ts';
import { allFailed, forcedFailure, sortAttempts } from './chain-errors.ts';
import { mergeByRank } from './merge-results.ts';
import type { ProviderState } from './provider-state.ts';
import type { SearchKind } from './search-kind.ts';

export interface ChainResult<T> {
  /** The provider that answered; in fan-out, every one that did, joined by `+`. */
  provider: string;
  results: T[];
  attempts: SearchAttempt[];
  warnings: string[];
}

export interface RunChainSettings {
  /** The chain's ids in order, which the attempts are sorted by. */
  ids: readonly string[];
  /** The provider asked with --provider, if any: its failure is given as it is, not as ALL_FAILED. */
  forced: string | undefined;
  /** How many of the first usable providers are asked at once (1: one by one). */
  fanout: number;
}

/**
 * Fan-out, then fallback: the first `fanout` usable providers at once, their results merged by rank; if none
 * answered (or `fanout` is 1), the rest one by one until one answers. ALL_FAILED (or the forced provider's own
 * failure) when none does.
 */
export async function runChain<REQUEST extends ChainRequest, RESULT>(
  kind: SearchKind<REQUEST, RESULT>,
  request: REQUEST,
  usable: readonly ProviderState[],
  context: AskContext,
  settings: RunChainSettings,
): Promise<ChainResult<RESULT>> {
  const { attempts } = context;
  const { ids } = settings;
  let next = 0;
  if (settings.fanout > 1 && usable.length > 1) {
    const group = usable.slice(0, settings.fanout);
    next = group.length;
    const settled = await Promise.all(
      group.map((state) => askProvider(kind, state, request, context, group.length === usable.length)),
    );
    const answered = settled.filter((item) => 'results' in item);
    if (answered.length > 0) {
      return {
        provider: answered.map((item) => item.id).join('+'),
        results: mergeByRank(
          answered.map((item) => item.results),
          request.count,
          kind.key,
        ),
        attempts: sortAttempts(attempts, ids),
        warnings: [...new Set(answered.flatMap((item) => item.warnings))],
      };
    }
  }
  let lastFailure: PeriscopeError | undefined;
  for (; next < usable.length; next++) {
    const state = usable[next] as ProviderState;
    const answer = await askProvider(kind, state, request, context, next === usable.length - 1);
    if ('failure' in answer) {
      lastFailure = answer.failure;
      continue;
    }
    return {
      provider: answer.id,
      results: answer.results,
      attempts: sortAttempts(attempts, ids),
      warnings: answer.warnings,
    };
  }
  const sorted = sortAttempts(attempts, ids);
  if (settings.forced !== undefined) throw forcedFailure(settings.forced, sorted, lastFailure);
  throw allFailed(kind, sorted);
}
