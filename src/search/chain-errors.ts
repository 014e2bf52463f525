import type { ProvidersConfig, SearchConfig } from '../config/search-schema.ts';
import { PeriscopeError } from '../errors.ts';
import type { SearchAttempt } from './attempt.ts';
import type { SearchProvider } from './types.ts';

/** Fallback on everything except a refused query, a cancelled call and a blocked URL. */
export function shouldFallback(error: PeriscopeError): boolean {
  return error.code !== 'INVALID_INPUT' && error.code !== 'ABORTED' && error.code !== 'URL_BLOCKED';
}

/**
 * A query the provider's `queryLimits` say it cannot take though the tool accepts it (over Brave's or Tavily's 400
 * characters): INVALID_INPUT, `query-too-long`, naming the limit. The chain skips that provider before its turn,
 * without a mark on its health, and asks the next one. Undefined when the query fits.
 */
export function queryTooLong(
  provider: SearchProvider,
  kind: 'web' | 'images',
  query: string,
): PeriscopeError | undefined {
  const limit = provider.queryLimits?.[kind];
  if (limit === undefined) return undefined;
  const characters = [...query].length;
  const words = query.split(/\s+/).filter((word) => word !== '').length;
  const { maxCharacters, maxWords } = limit;
  if (characters <= maxCharacters && (maxWords === undefined || words <= maxWords)) return undefined;
  const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
  const has =
    maxWords === undefined
      ? plural(characters, 'character')
      : `${plural(characters, 'character')} and ${plural(words, 'word')}`;
  const allowed =
    maxWords === undefined
      ? plural(maxCharacters, 'character')
      : `${plural(maxCharacters, 'character')} and ${plural(maxWords, 'word')}`;
  return new PeriscopeError(
    'INVALID_INPUT',
    `${provider.id}: the query has ${has}, over ${provider.id}'s limit of ${allowed}; shorten the query`,
    {
      details: {
        provider: provider.id,
        reason: 'query-too-long',
        characters,
        words,
        maxCharacters,
        ...(maxWords === undefined ? {} : { maxWords }),
      },
    },
  );
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

/**
 * ALL_FAILED naming every attempt's reason, retryAfterMs the soonest known. Retryable unless every attempt was one
 * that asking again cannot change: no credentials (NOT_CONFIGURED) or a query the provider refuses (INVALID_INPUT).
 */
export function allFailed(kind: { name: 'web' | 'images' }, attempts: SearchAttempt[]): PeriscopeError {
  const retryAfters = attempts.flatMap((attempt) =>
    attempt.retryAfterMs === undefined ? [] : [attempt.retryAfterMs],
  );
  const transient = attempts.some(
    (attempt) => attempt.code !== 'NOT_CONFIGURED' && attempt.code !== 'INVALID_INPUT',
  );
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

/**
 * With --provider, the provider's own failure (or its skip reason), attempts attached; `details` adds the skip's
 * own (a query too long: `reason`, the limit). Not retryable when asking again cannot change it: no credentials, or
 * a query the provider refuses.
 */
export function forcedFailure(
  id: string,
  attempts: SearchAttempt[],
  details: Record<string, unknown> = {},
): PeriscopeError {
  const attempt = attempts[0];
  const code = attempt?.code ?? 'ALL_FAILED';
  return new PeriscopeError(code, `${id}: ${attempt?.message ?? 'failed'}`, {
    retryable: code !== 'NOT_CONFIGURED' && code !== 'INVALID_INPUT',
    retryAfterMs: attempt?.retryAfterMs,
    details: { ...details, provider: id, attempts },
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
