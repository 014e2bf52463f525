import type { ProvidersConfig, SearchConfig } from '../config/search-schema.ts';
import { PeriscopeError } from '../errors.ts';
import type { SearchAttempt } from './attempt.ts';

/**
 * A query one provider cannot take though the tool accepts it (over Brave's or Tavily's 400 characters): that
 * provider is skipped, without a mark on its health, and the next one is asked.
 */
export function isProviderLimit(error: PeriscopeError): boolean {
  return error.code === 'INVALID_INPUT' && error.details.reason === 'query-too-long';
}

/** Fallback on everything except a refused query, a cancelled call and a blocked URL. */
export function shouldFallback(error: PeriscopeError): boolean {
  if (isProviderLimit(error)) return true;
  return error.code !== 'INVALID_INPUT' && error.code !== 'ABORTED' && error.code !== 'URL_BLOCKED';
}

export function kindLabel(kind: { name: 'web' | 'images' }): string {
  return kind.name === 'web' ? 'web search' : 'image search';
}

/** Attempts in chain order (fan-out finishes them in any order). */
export function sortAttempts(attempts: SearchAttempt[], ids: readonly string[]): SearchAttempt[] {
  return [...attempts].sort((a, b) => ids.indexOf(a.provider) - ids.indexOf(b.provider));
}

export function describeAttempt(attempt: SearchAttempt): string {
  const verb = attempt.outcome === 'skipped' ? 'skipped' : 'failed';
  return `${attempt.provider} ${verb} (${attempt.code ?? 'UNKNOWN'}): ${attempt.message ?? ''}`.trimEnd();
}

/** ALL_FAILED naming every attempt's reason; retryable when any was, retryAfterMs the soonest known. */
export function allFailed(kind: { name: 'web' | 'images' }, attempts: SearchAttempt[]): PeriscopeError {
  const retryAfters = attempts.flatMap((attempt) =>
    attempt.retryAfterMs === undefined ? [] : [attempt.retryAfterMs],
  );
  const transient = attempts.some((attempt) => attempt.code !== 'NOT_CONFIGURED');
  const label = kind.name === 'web' ? 'search' : 'image search';
  return new PeriscopeError(
    'ALL_FAILED',
    `every ${label} provider failed, so there are no results to show (this is not an empty result): ${attempts.map(describeAttempt).join('; ')}`,
    {
      retryable: transient,
      retryAfterMs: retryAfters.length > 0 ? Math.min(...retryAfters) : undefined,
      details: { attempts },
    },
  );
}

/** With --provider, the provider's own failure (or its skip reason), attempts attached. */
export function forcedFailure(id: string, attempts: SearchAttempt[]): PeriscopeError {
  const attempt = attempts[0];
  const code = attempt?.code ?? 'ALL_FAILED';
  return new PeriscopeError(code, `${id}: ${attempt?.message ?? 'failed'}`, {
    retryable: code !== 'NOT_CONFIGURED',
    retryAfterMs: attempt?.retryAfterMs,
    details: { provider: id, attempts },
  });
}

export function unknownProvider(id: string, known: Iterable<string>): PeriscopeError {
  return new PeriscopeError(
    'INVALID_INPUT',
    `unknown search provider "${id}"; known providers: ${[...known].sort().join(', ')}`,
    { details: { provider: id } },
  );
}

export function checkIds(chain: SearchConfig['chain'], providers: ProvidersConfig, known: Set<string>): void {
  const problems: string[] = [];
  const knownList = [...known].sort().join(', ');
  if (chain !== 'auto') {
    chain.forEach((id, index) => {
      if (!known.has(id))
        problems.push(`search.chain.${index}: unknown provider "${id}" (known: ${knownList})`);
    });
  }
  for (const id of Object.keys(providers)) {
    if (id !== 'custom' && !known.has(id))
      problems.push(`providers.${id}: unknown provider (known: ${knownList})`);
  }
  if (problems.length > 0) {
    throw new PeriscopeError('CONFIG_INVALID', 'search configuration names providers that do not exist', {
      details: { problems },
    });
  }
}
