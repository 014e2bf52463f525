import { z } from 'zod';
import { callRules, type DomainPolicy } from '../egress/domain-check.ts';
import { isEmptyRules, rulesToLists } from '../egress/domain-rules.ts';
import { isPeriscopeError, type ProviderAttempt, type ToolErrorData } from '../errors.ts';
import type { ChainCallOptions, ChainResult } from '../search/chain.ts';
import type { ToolName } from '../tool-call.ts';
import { ageSeconds, cachedNote, formatAge, maxAgeMs } from './cache-age.ts';
import { egressCall } from './egress-call.ts';
import { searchCacheKey } from './search-cache-key.ts';
import { describeMisses, searchStartLine, successLine } from './search-summary.ts';
import type { Tool, ToolExecuteOptions } from './tool.ts';
import { readThrough, type ToolCache } from './tool-cache.ts';
import { toErrorResult } from './tool-result.ts';
import { validateInput } from './validate-input.ts';

/** A search tool's success `data` (web_search's WebSearchData, image_search's ImageSearchData). */
export interface SearchToolData<RESULT> {
  query: string;
  provider: string;
  results: RESULT[];
  attempts: ProviderAttempt[];
  cached: boolean;
  /** With `cached`: how long ago the answer was fetched from the provider, in whole seconds. */
  cacheAgeSeconds?: number;
  warnings: string[];
}

/** What a search tool's input has besides its own fields. */
interface SearchInput {
  query: string;
  maxAgeSeconds?: number | undefined;
}

/** What makes one search tool: the rest (validation, cache, chain call, result, display lines) is shared. */
export interface SearchToolDefinition<INPUT extends SearchInput, REQUEST extends { query: string }, RESULT> {
  name: ToolName;
  description: string;
  inputSchema: z.ZodType<INPUT>;
  /** The display line's first word: `search "x"`, `images "x"`. */
  kind: 'search' | 'images';
  /** What the display line counts: `8 results`, `5 images`. */
  noun: string;
  /** The chain request for a valid input. */
  request(input: INPUT): REQUEST;
  /** Ask the chain. */
  ask(request: REQUEST, options: ChainCallOptions): Promise<ChainResult<RESULT>>;
  /** The model-facing text of an answer (to the input asked). */
  format(query: string, answer: ChainResult<RESULT>, input: INPUT): string;
  /** Results kept between calls (the store), with single flight; none when caching is off. */
  cache?: ToolCache | undefined;
  /**
   * The deployment's domain policy (`egress.domains`): with the caller's and the input's (`allowedDomains`,
   * `blockedDomains`), the domains results may come from (`request.domains`). None: no rules.
   */
  domains?: DomainPolicy | undefined;
  /**
   * After the answer, never cached with it: the results completed with what was read from them (web_search's
   * `readTop`), and a few words for the display line (`read 3 pages`).
   */
  readResults?(
    input: INPUT,
    results: RESULT[],
    options: ToolExecuteOptions,
  ): Promise<{ results: RESULT[]; summary?: string | undefined }>;
}

/**
 * A search tool: validate the input, read through the cache (keyed by the request and a forced provider) to the
 * chain, answer with the formatted results and a display line naming the provider, its count, the time and
 * every provider that missed; any failure is an error result with the attempts (`searchErrorResult`).
 */
export function createSearchTool<INPUT extends SearchInput, REQUEST extends { query: string }, RESULT>(
  definition: SearchToolDefinition<INPUT, REQUEST, RESULT>,
): Tool<INPUT, SearchToolData<RESULT>> {
  const { name, inputSchema, kind, noun } = definition;
  return {
    name,
    description: definition.description,
    inputSchema,
    jsonSchema: z.toJSONSchema(inputSchema, { io: 'input' }) as Record<string, unknown>,
    async execute(rawInput, options = {}) {
      const started = performance.now();
      let display: string = kind;
      try {
        const input = validateInput(inputSchema, rawInput, name);
        display = searchStartLine(kind, input.query);
        const rules = definition.domains && callRules(definition.domains, egressCall(name, input, options));
        const domains = rules && !isEmptyRules(rules) ? rulesToLists(rules) : undefined;
        const request = { ...definition.request(input), ...(domains ? { domains } : {}) };
        const {
          value: answer,
          cached,
          ageMs,
        } = await readThrough(
          definition.cache,
          searchCacheKey(request, options.provider),
          () => definition.ask(request, { signal: options.signal, provider: options.provider }),
          { agentId: options.agentId, signal: options.signal, maxAgeMs: maxAgeMs(input) },
        );
        const age = cached ? ageSeconds(ageMs) : undefined;
        // Pages read from the results go no further than the results may: the rules as one layer.
        const readOptions = domains ? { ...options, egress: { ...options.egress, domains } } : options;
        const read = definition.readResults
          ? await definition.readResults(input, answer.results, readOptions)
          : { results: answer.results };
        const elapsedMs = Math.round(performance.now() - started);
        const data: SearchToolData<RESULT> = {
          query: input.query,
          provider: answer.provider,
          results: read.results,
          attempts: answer.attempts,
          cached,
          ...(age === undefined ? {} : { cacheAgeSeconds: age }),
          warnings: answer.warnings,
        };
        const line =
          age !== undefined
            ? successLine(
                `${answer.provider} (cached, ${formatAge(age)} old)`,
                answer.results.length,
                noun,
                elapsedMs,
                [],
              )
            : successLine(answer.provider, answer.results.length, noun, elapsedMs, answer.attempts);
        const output = definition.format(input.query, { ...answer, results: read.results }, input);
        return {
          isError: false,
          output: age === undefined ? output : `${cachedNote(age)}\n\n${output}`,
          data,
          display: read.summary ? `${line} · ${read.summary}` : line,
        };
      } catch (error) {
        return searchErrorResult(error, display, started);
      }
    },
  };
}

/**
 * A failed search's `data`: the error and, once the chain has asked or skipped a provider, every attempt — at
 * `data.attempts` as on success (also kept at `data.error.details.attempts`).
 */
export interface SearchErrorData {
  error: ToolErrorData;
  attempts?: ProviderAttempt[];
}

/**
 * The error result, `data.attempts` included, its display naming every provider's miss:
 * `search "x" → ALL_FAILED in 90 ms (brave failed: …)`.
 */
export function searchErrorResult(error: unknown, display: string, started: number) {
  const result = toErrorResult(error, display);
  const found = isPeriscopeError(error) ? error.details.attempts : undefined;
  const attempts = Array.isArray(found) ? (found as ProviderAttempt[]) : undefined;
  if (attempts && result.data && 'error' in result.data) {
    const data: SearchErrorData = { error: result.data.error, attempts };
    result.data = data;
  }
  const misses = attempts ? describeMisses(attempts) : '';
  const elapsedMs = Math.round(performance.now() - started);
  result.display = `${result.display} in ${elapsedMs} ms${misses ? ` (${misses})` : ''}`;
  return result;
}
