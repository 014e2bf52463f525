import type { CacheConfig, LimitsConfig, UsageConfig } from '../config/policy-schema.ts';
import { createEgressGate, type EgressGate, type EgressPass } from '../egress/egress-gate.ts';
import { isPeriscopeError, PeriscopeError, type ToolErrorData } from '../errors.ts';
import { stageEnd, stageStart } from '../stage-timing.ts';
import type { LazyStore } from '../store/lazy-store.ts';
import type { ToolName, ToolResult } from '../tool-call.ts';
import { callLine } from '../tools/call-line.ts';
import { egressCall } from '../tools/egress-call.ts';
import { type CachedToolName, DEFAULT_AGENT_ID, type Tool, type ToolExecuteOptions } from '../tools/tool.ts';
import type { ToolCache } from '../tools/tool-cache.ts';
import { toErrorResult } from '../tools/tool-result.ts';
import { createCredits, type Reservation } from './credits.ts';
import { lookupSignature } from './lookup-signature.ts';
import { createRateLimiter } from './rate-limiter.ts';
import { isRefundable } from './refund-rule.ts';
import { checkRepeat } from './repeat-throttle.ts';
import { createStoreCache } from './store-cache.ts';
import { createUsageBatch } from './usage-batch.ts';

export { DEFAULT_AGENT_ID } from '../tools/tool.ts';

export interface CallPolicySettings {
  limits: LimitsConfig;
  cache: CacheConfig;
  usage: UsageConfig;
  store: LazyStore;
  /** The egress checks (src/egress/): asked before anything else counts or charges the call. Default: none. */
  egress?: EgressGate;
}

export interface CallPolicy {
  /** The tool with every call going through the checks (docs/decisions/0008-call-policy.md). */
  guard<INPUT, DATA>(tool: Tool<INPUT, DATA>): Tool<INPUT, DATA>;
  /** The cache a tool reads through, or undefined when caching is off for it. */
  cacheFor(tool: CachedToolName, fingerprint: () => string | Promise<string>): ToolCache | undefined;
  /**
   * Writes what is held in memory: the usage counted since the last flush, and the cache entries still being
   * written after their calls answered. `usage()` and shutdown call it.
   */
  flush(): Promise<void>;
  /** Stops the usage timer and flushes (before the store closes). */
  close(): Promise<void>;
}

const ID_PATTERN = /^[^\p{Cc}]{1,200}$/u;

/**
 * The order every call takes: input validation → egress checks (src/egress/: secret, domain, seen URL, session
 * budget, beforeCall) → repeat throttle → rate limit → credit reservation → (the tool: cache and single flight →
 * chain) → commit or refund → usage. The three controls fail closed when the store fails (rate limits may fail
 * open with `limits.failOpen`); the cache and the usage counters never fail a call. An egress refusal is counted
 * in usage (its code) but never charged, and a call refused after the egress checks gives back what they hold.
 */
export function createCallPolicy(settings: CallPolicySettings): CallPolicy {
  const { limits, usage, store } = settings;
  const egress = settings.egress ?? createEgressGate([]);
  const rateLimiter = createRateLimiter(limits);
  const credits = createCredits(limits.credits);
  const repeatLimit = limits.repeatLookups;
  const usageBatch = createUsageBatch(store.get, usage);
  /** Store writes that do not decide the answer (cache entries), finished after it. */
  const background = new Set<Promise<void>>();
  const afterAnswer = (write: Promise<void>) => {
    background.add(write);
    void write.finally(() => background.delete(write));
  };

  async function run<INPUT, DATA>(
    tool: Tool<INPUT, DATA>,
    rawInput: unknown,
    options: ToolExecuteOptions,
  ): Promise<ToolResult<DATA>> {
    let stage = stageStart();
    const agentId = options.agentId ?? DEFAULT_AGENT_ID;
    try {
      checkId('agentId', agentId);
      if (options.sessionId !== undefined) checkId('sessionId', options.sessionId);
    } catch (error) {
      return toErrorResult(error, tool.name) as ToolResult<DATA>;
    }
    // 1. Input validation: a malformed call goes to the tool, which refuses it with its own INVALID_INPUT.
    const parsed = tool.inputSchema.safeParse(rawInput ?? {});
    let signature: string | undefined;
    try {
      if (!parsed.success) throw parsed.error;
      signature = lookupSignature(tool.name, parsed.data);
    } catch {
      const refused = await tool.execute(rawInput, options);
      await count(agentId, tool.name, refused, 0);
      return refused;
    }
    let reservation: Reservation | undefined;
    let pass: EgressPass | undefined;
    const admittedCall = egressCall(tool.name, parsed.data, options);
    try {
      // 2. Egress: nothing is counted or charged for a call the deployment's policy refuses.
      pass = await egress.admit(admittedCall);
      options.onAdmitted?.();
      // 3. Repeat throttle: only within a named session (without one every call is its own session).
      if (repeatLimit !== false && signature !== undefined && options.sessionId !== undefined) {
        const limit = { limit: repeatLimit, windowMs: limits.repeatWindowMs };
        await checkRepeat(await store.get(), limit, { agentId, sessionId: options.sessionId, signature });
      }
      // 4. Rate limits.
      if (rateLimiter.isActive) await rateLimiter.take(store.get, agentId, tool.name);
      // 5. Credit reservation.
      if (credits.isEnabled)
        reservation = await credits.reserve(
          await store.get(),
          agentId,
          tool.name,
          fetchesOf(tool.name, parsed.data),
        );
    } catch (error) {
      await pass?.release();
      // A query or URL refused for carrying a secret is not repeated in the line people and logs see.
      const line = isSecretRefusal(error) ? tool.name : callLine(tool.name, parsed.data);
      const result = toErrorResult(error, line) as ToolResult<DATA>;
      await count(agentId, tool.name, result, 0);
      return result;
    }
    stageEnd('policy-store', stage);
    // 6–7. The tool: its cache (with single flight) and its chain.
    const { onAdmitted: _told, ...toolOptions } = options;
    const result = await tool.execute(rawInput, { ...toolOptions, admittedCall });
    stage = stageStart();
    // 8. Commit (keep the charge) or refund.
    let spent = reservation?.cost ?? 0;
    const error = errorOf(result);
    const refundable = error !== undefined && isRefundable(tool.name, error);
    if (reservation && refundable) {
      const refunded = await store.get().then(
        (opened) => credits.refund(opened, reservation),
        () => false,
      );
      if (refunded) spent = 0;
    }
    // web_fetch with `urls`: each URL that failed refundably gives back its fetch's credits.
    const refundableFetches = error === undefined ? refundableFetchesOf(tool.name, result) : 0;
    if (reservation && refundableFetches > 0) {
      const back = Math.min(reservation.cost, refundableFetches * credits.cost(tool.name));
      const refunded = await store.get().then(
        (opened) => credits.refund(opened, reservation, back),
        () => false,
      );
      if (refunded) spent -= back;
    }
    if (reservation) {
      // What this call cost the agent after any refund, for callers that add it up (a `periscope ask` transcript).
      if (result.data && typeof result.data === 'object')
        (result as { data: unknown }).data = { ...result.data, creditsSpent: spent };
      if (result.display)
        result.display += spent > 0 ? ` · ${spent} credit${spent === 1 ? '' : 's'}` : ' · refunded';
    }
    // The egress checks see the result as the caller gets it (what it cost: `data.creditsSpent`), and the refund
    // rule's verdict as a plain value (a session budget gives back a refundable call's credits).
    await pass.settle(result, { refundable, ...(refundableFetches > 0 ? { refundableFetches } : {}) });
    // 9. Usage.
    await count(agentId, tool.name, result, spent);
    stageEnd('policy-store', stage);
    return result;
  }

  async function count(agentId: string, tool: ToolName, result: ToolResult, credits: number): Promise<void> {
    if (!usage.enabled) return;
    const error = errorOf(result);
    const data = (result.data ?? {}) as { provider?: unknown; backend?: unknown; cached?: unknown };
    const named = error ? error.details?.provider : (data.provider ?? data.backend);
    await usageBatch.add({
      agentId,
      tool,
      provider: typeof named === 'string' && named !== '' ? named : '-',
      cached: !error && data.cached === true,
      errorCode: error?.code,
      credits,
    });
  }

  return {
    guard(tool) {
      return {
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
        jsonSchema: tool.jsonSchema,
        pageWrittenFields: tool.pageWrittenFields,
        execute: (input, options = {}) => run(tool, input, options),
      };
    },
    cacheFor(tool, fingerprint) {
      const { cache } = settings;
      const own = cache.perTool[tool];
      if (!(own.enabled ?? cache.enabled)) return undefined;
      return createStoreCache({
        tool,
        store: store.get,
        ttlMs: own.ttlMs ?? cache.ttlMs,
        maxEntryChars: cache.maxEntryChars,
        scope: cache.scope,
        fingerprint,
        afterAnswer,
      });
    },
    async flush() {
      await Promise.all([usageBatch.flush(), ...background]);
    },
    async close() {
      await Promise.all([usageBatch.close(), ...background]);
    },
  };
}

/** How many fetches a call is: a web_fetch with `urls` is one per URL, every other call one. */
function fetchesOf(tool: ToolName, input: unknown): number {
  const urls = (input as { urls?: unknown } | undefined)?.urls;
  return tool === 'web_fetch' && Array.isArray(urls) ? urls.length : 1;
}

/** A successful web_fetch with `urls`: how many of its URLs failed in a way whose credits go back. */
function refundableFetchesOf(tool: ToolName, result: ToolResult): number {
  if (tool !== 'web_fetch') return 0;
  const results = (result.data as { results?: unknown } | undefined)?.results;
  if (!Array.isArray(results)) return 0;
  return results.filter((item: { ok?: unknown; error?: ToolErrorData }) =>
    item.ok === false && item.error !== undefined ? isRefundable(tool, item.error) : false,
  ).length;
}

function checkId(name: string, value: unknown): void {
  if (typeof value !== 'string' || !ID_PATTERN.test(value))
    throw new PeriscopeError(
      'INVALID_INPUT',
      `${name} must be 1–200 characters without control characters, not ${JSON.stringify(value)}`,
    );
}

/** A failed result's error; one without an error object broke the ToolResult contract: INTERNAL, not the site's. */
function errorOf(result: ToolResult): ToolErrorData | undefined {
  if (!result.isError) return undefined;
  const error = (result.data as { error?: ToolErrorData } | undefined)?.error;
  return error ?? { code: 'INTERNAL', message: result.output, retryable: false };
}

function isSecretRefusal(error: unknown): boolean {
  return isPeriscopeError(error) && error.code === 'POLICY_DENIED' && error.details.reason === 'secret';
}
