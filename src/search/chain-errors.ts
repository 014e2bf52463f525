import type { ProvidersConfig, SearchConfig } from '../config/search-schema.ts';
import { type ErrorCode, errorFromProvider, messageWithoutProvider, PeriscopeError } from '../errors.ts';
import type { SearchAttempt } from './attempt.ts';
import type { SearchProvider } from './types.ts';

/** Fallback on everything except a refused query, a cancelled call, a blocked URL and an egress refusal. */
export function shouldFallback(error: PeriscopeError): boolean {
  return !NO_FALLBACK.has(error.code) || isUnsupportedParameter(error);
}

/**
 * A provider that found in its turn it cannot take a parameter the call needs (Kagi on v0 asked for news): the
 * request was not refused, so the next provider is asked, as for the skips before a turn.
 */
export function isUnsupportedParameter(error: PeriscopeError): boolean {
  return error.code === 'INVALID_INPUT' && error.details.reason === 'unsupported-parameter';
}

const NO_FALLBACK: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'INVALID_INPUT',
  'ABORTED',
  'URL_BLOCKED',
  'POLICY_DENIED',
]);

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
  return errorFromProvider(
    provider.id,
    'INVALID_INPUT',
    `the query has ${has}, over ${provider.id}'s limit of ${allowed}; shorten the query`,
    {
      details: {
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
 * ALL_FAILED naming every attempt's reason, retryAfterMs the soonest known. Retryable when at least one attempt
 * was: asking again cannot change a chain where every provider refused for good (no credentials, a refused key, a
 * refused request, a query it cannot take), but one rate limit, timeout, 5xx or cooldown among them may pass.
 */
export function allFailed(kind: { name: 'web' | 'images' }, attempts: SearchAttempt[]): PeriscopeError {
  const retryAfters = attempts.flatMap((attempt) =>
    attempt.retryAfterMs === undefined ? [] : [attempt.retryAfterMs],
  );
  const label = kind.name === 'web' ? 'search' : 'image search';
  return new PeriscopeError(
    'ALL_FAILED',
    `every ${label} provider failed, so there are no results to show (this is not an empty result): ${attempts.map(describeAttempt).join('; ')}`,
    {
      retryable: attempts.some((attempt) => attempt.retryable !== false),
      retryAfterMs: retryAfters.length > 0 ? Math.min(...retryAfters) : undefined,
      details: { attempts },
    },
  );
}

/**
 * With --provider, the provider's own failure as it gave it — code, message, `retryable`, `retryAfterMs` and its
 * details (`status`, `reason`, `providerCode`…) — with `provider` and the attempts added. For a skip (no
 * credentials) there is no error: the attempt says it, and it is not retryable.
 */
export function forcedFailure(id: string, attempts: SearchAttempt[], error?: PeriscopeError): PeriscopeError {
  if (error !== undefined) {
    return new PeriscopeError(error.code, `${id}: ${messageWithoutProvider(error)}`, {
      retryable: error.retryable,
      retryAfterMs: error.retryAfterMs,
      details: { ...error.details, provider: id, attempts },
      cause: error,
    });
  }
  const attempt = attempts[0];
  return new PeriscopeError(attempt?.code ?? 'ALL_FAILED', `${id}: ${attempt?.message ?? 'failed'}`, {
    retryable: attempt?.retryable ?? false,
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
