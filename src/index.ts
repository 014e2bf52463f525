import {
  type VerifyCitationInput,
  type VerifyCitationResult,
  verifyCitationInputSchema,
} from './citations/verify-citation.ts';
import { validateConfig } from './config/load-config.ts';
import { toHttpClientOptions } from './config/network-options.ts';
import type { PeriscopeConfig, PeriscopeConfigInput } from './config/schema.ts';
import { type ExtractedPage, type ExtractPageInput, extractPage } from './content/extract-page.ts';
import type { BeforeCallHook } from './egress/before-call-check.ts';
import { createDomainPolicy } from './egress/domain-check.ts';
import type { EgressCheck } from './egress/egress-check.ts';
import { createEgressChecks } from './egress/egress-checks.ts';
import { createEgressGate } from './egress/egress-gate.ts';
import { PeriscopeError } from './errors.ts';
import { DocumentCache } from './fetch/document-cache.ts';
import type { FetchBackend } from './fetch/fetch-backend.ts';
import type { FetchBackendStatus } from './fetch/fetch-chain.ts';
import { createConfiguredFetchChain } from './fetch/fetch-setup.ts';
import { createKeyAccounts, type KeyAccounts } from './keys/key-accounts.ts';
import { createHttpClient } from './net/http-client.ts';
import { createNetworkPolicy } from './net/network-policy.ts';
import type { LookupFunction } from './net/types.ts';
import { createCallPolicy } from './policy/call-policy.ts';
import { type CreditAccounts, createCreditAccounts } from './policy/credit-accounts.ts';
import { fetchFingerprint, searchFingerprint } from './policy/fingerprint.ts';
import { readUsage, type UsageQuery, type UsageReport } from './policy/usage.ts';
import { createSearchChain, type ProviderStatus } from './search/chain.ts';
import type { SearchProvider } from './search/types.ts';
import { createLazyStore } from './store/lazy-store.ts';
import type { Store } from './store/store.ts';
import type { ToolResult } from './tool-call.ts';
import { createCitationChecker } from './tools/citation-checker.ts';
import { createDocumentFetchTool } from './tools/document-fetch-tool.ts';
import { createDocumentReader } from './tools/document-reader.ts';
import { createImageSearchTool, type ImageSearchData, type ImageSearchInput } from './tools/image-search.ts';
import type { Tool, ToolExecuteOptions } from './tools/tool.ts';
import { toErrorResult } from './tools/tool-result.ts';
import { validateInput } from './tools/validate-input.ts';
import { createVerifyCitationTool } from './tools/verify-citation-tool.ts';
import {
  createWebFetchTool,
  type WebFetchData,
  type WebFetchInput,
  type WebFetchManyData,
} from './tools/web-fetch.ts';
import { createWebSearchTool, type WebSearchData, type WebSearchInput } from './tools/web-search.ts';

export interface CreatePeriscopeOptions {
  /** Resolver for host names (tests, unusual deployments). Default: the system resolver, or `network.dnsServer`. */
  lookup?: LookupFunction;
  /** Environment for proxy fallbacks and provider keys (BRAVE_API_KEY, …). Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Your own search providers; run through the same chain as the built-in ones (same id replaces a built-in). */
  providers?: readonly SearchProvider[];
  /** Folder that relative `providers.custom[].module` paths start from (the config file's). Default: cwd. */
  baseDir?: string;
  /** An open store to keep state in instead of `store.url` (its owner closes it). */
  store?: Store;
  /** web_fetch back-ends that replace the built-in ones of the same id in `fetch.chain` (tests, embedding). */
  fetchBackends?: readonly FetchBackend[];
  /** Your own egress checks (src/egress/egress-check.ts), run after the built-in ones on every call and request. */
  egressChecks?: readonly EgressCheck[];
  /**
   * A person or program in the loop: asked before each tool call runs (after the domain, seen-URL, secret and
   * budget checks), it may allow it or refuse it with a reason the model reads (POLICY_DENIED `hook`); throwing
   * refuses. The config's `egress.beforeCallWebhook` is asked after it.
   */
  beforeCall?: BeforeCallHook;
  /**
   * A process that keeps serving (`periscope serve`, `periscope mcp`): a SQLite store then writes values (page-cache
   * entries, every call) on a thread of its own instead of the event loop. Default false.
   */
  longRunning?: boolean;
}

export interface Periscope {
  readonly config: PeriscopeConfig;
  /** The enabled tools, with their JSON Schemas. */
  readonly tools: Tool[];
  /** web_fetch with `urls`: one result per URL in `data.results`, in order; never rejects. */
  fetch(
    input: WebFetchInput & { urls: string[] },
    options?: ToolExecuteOptions,
  ): Promise<ToolResult<WebFetchManyData>>;
  /** web_fetch: never rejects. */
  fetch(input: WebFetchInput, options?: ToolExecuteOptions): Promise<ToolResult<WebFetchData>>;
  /** web_search: never rejects. `options.provider` asks only that provider. */
  search(input: WebSearchInput, options?: ToolExecuteOptions): Promise<ToolResult<WebSearchData>>;
  /** image_search: never rejects. */
  imageSearch(input: ImageSearchInput, options?: ToolExecuteOptions): Promise<ToolResult<ImageSearchData>>;
  /**
   * Whether a quote is still on the page a citation names: found / moved (new offsets) / changed / unreachable
   * (with the error). Reads the document web_fetch cached (in process, then the store) first; on a miss, or with
   * `refetch`, the page is read as a web_fetch call (limits, credits, usage); `cacheOnly` never fetches. Works
   * whether or not the verify_citation tool is switched on. Rejects only with INVALID_INPUT (a malformed input).
   */
  verifyCitation(input: VerifyCitationInput, options?: ToolExecuteOptions): Promise<VerifyCitationResult>;
  /**
   * A page already in hand (`html` or `bytes`) → its main content, offline (no network, no store; not a tool call:
   * no limits, credits or usage). Rejects with INVALID_INPUT, UNSUPPORTED_CONTENT (binary) or EMPTY_CONTENT.
   */
  extract(input: ExtractPageInput): Promise<ExtractedPage>;
  /**
   * Every search provider: in the chain or not, credentials, health, and (`quota: true`) live quota; and the
   * web_fetch back-ends in `fetch.chain` order, with whether each can be used.
   */
  status(options?: {
    quota?: boolean;
    signal?: AbortSignal;
  }): Promise<{ providers: ProviderStatus[]; fetchBackends: FetchBackendStatus[] }>;
  /** Calls, cache hits, errors and credits of one day (default today, UTC) per agent, tool and provider. */
  usage(query?: UsageQuery): Promise<UsageReport>;
  /** Credit balances, grants and ledgers (`limits.credits`). */
  readonly credits: CreditAccounts;
  /** API keys for the gateway (`periscope serve`), kept in the store: create (with credits), list, revoke. */
  readonly keys: KeyAccounts;
  /** The state store (`store.url`), opened on first use; shared with the tools. */
  store(): Promise<Store>;
  /** Closes the browser if one was launched, and the store if it was opened (and not handed in). */
  close(): Promise<void>;
}

/** The library entry point: a validated config (every key optional) → the tools. Throws CONFIG_INVALID. */
export function createPeriscope(
  config: PeriscopeConfigInput = {},
  options: CreatePeriscopeOptions = {},
): Periscope {
  const validated = validateConfig(config);
  // The SSRF opening (allow-list, resolver), decided once and shared: docs/decisions/0012-network-policy.md.
  const networkPolicy = createNetworkPolicy(validated.network, { lookup: options.lookup });
  const httpFetch = createHttpClient(toHttpClientOptions(validated.network, { ...options, networkPolicy }));
  // A library config without store.url keeps its state in memory; loadConfig (the CLI) defaults to SQLite.
  const state = createLazyStore(options.store ?? validated.store.url ?? 'memory:', {
    writerThread: options.longRunning === true,
  });
  // Where agent traffic may go, decided in one place before anything leaves: src/egress/egress-gate.ts.
  const domainPolicy = createDomainPolicy(validated.egress.domains);
  const egress = createEgressGate(
    createEgressChecks({
      config: validated,
      domains: domainPolicy,
      store: state,
      env: options.env ?? process.env,
      httpFetch,
      beforeCall: options.beforeCall,
      extra: options.egressChecks,
    }),
  );
  const policy = createCallPolicy({
    limits: validated.limits,
    cache: validated.cache,
    usage: validated.usage,
    store: state,
    egress,
  });
  const fetchChain = createConfiguredFetchChain({
    fetch: validated.fetch,
    network: validated.network,
    providers: validated.providers,
    env: options.env ?? process.env,
    httpFetch,
    policy: networkPolicy,
    overrides: options.fetchBackends,
  });
  // One read path for documents (web_fetch's and verifyCitation's): the in-process document cache, the store's
  // page cache (one single flight), the chain. verifyCitation's reads that may go to the network are web_fetch
  // calls under the policy (createDocumentFetchTool).
  const documentReader = createDocumentReader({
    config: validated.fetch,
    httpFetch,
    chain: fetchChain,
    pageCache: policy.cacheFor('web_fetch', () => fetchFingerprint(validated)),
    pageCacheTtlMs: validated.cache.perTool.web_fetch.ttlMs ?? validated.cache.ttlMs,
    documents: new DocumentCache({
      ttlMs: validated.fetch.continuationTtlMs,
      maxChars: validated.fetch.continuationMaxChars,
    }),
    scope: validated.cache.scope,
  });
  const webFetch = createWebFetchTool({ config: validated.fetch, reader: documentReader, egress });
  const documentFetch = policy.guard(
    createDocumentFetchTool(documentReader, { extractMode: validated.fetch.extractMode }, egress),
  );
  const checkCitation = createCitationChecker({
    reader: documentReader,
    fetchDocument: documentFetch,
    isFetchEnabled: validated.tools.web_fetch.enabled,
    extractMode: validated.fetch.extractMode,
  });
  const verifyCitationTool = policy.guard(createVerifyCitationTool({ verify: checkCitation }));
  const chain = createSearchChain({
    search: validated.search,
    providers: validated.providers,
    env: options.env ?? process.env,
    httpFetch,
    networkPolicy,
    ...(options.providers ? { extraProviders: options.providers } : {}),
    ...(options.baseDir ? { baseDir: options.baseDir } : {}),
    // Provider health (cooldowns, last quota) and pacing are shared through the store with every process using it.
    store: state.get,
  });
  const searchFingerprintOf = async () => searchFingerprint(validated, await chain.resolvedChain());
  const guardedFetch = policy.guard(webFetch);
  const fetchPage = (input: WebFetchInput, executeOptions?: ToolExecuteOptions) =>
    validated.tools.web_fetch.enabled
      ? guardedFetch.execute(input, executeOptions)
      : switchedOff('web_fetch');
  const webSearch = policy.guard(
    createWebSearchTool({
      config: validated.search,
      chain,
      cache: policy.cacheFor('web_search', searchFingerprintOf),
      domains: domainPolicy,
      // readTop reads each page through web_fetch as guarded here: every read is a call under the policy.
      readPage: fetchPage,
    }),
  );
  const imageSearch = policy.guard(
    createImageSearchTool({
      config: validated.search,
      chain,
      cache: policy.cacheFor('image_search', searchFingerprintOf),
      domains: domainPolicy,
    }),
  );
  const switches = validated.tools;
  const tools: Tool[] = [
    ...(switches.web_fetch.enabled ? [guardedFetch as Tool] : []),
    ...(switches.web_search.enabled ? [webSearch as Tool] : []),
    ...(switches.image_search.enabled ? [imageSearch as Tool] : []),
    ...(switches.verify_citation.enabled ? [verifyCitationTool as Tool] : []),
  ];
  const credits = createCreditAccounts(state);
  return {
    config: validated,
    tools,
    search: (input, executeOptions) =>
      switches.web_search.enabled ? webSearch.execute(input, executeOptions) : switchedOff('web_search'),
    imageSearch: (input, executeOptions) =>
      switches.image_search.enabled
        ? imageSearch.execute(input, executeOptions)
        : switchedOff('image_search'),
    verifyCitation: async (input, executeOptions) =>
      checkCitation(validateInput(verifyCitationInputSchema, input, 'verifyCitation'), executeOptions),
    status: async (statusOptions) => ({
      providers: await chain.status(statusOptions),
      fetchBackends: fetchChain.status(),
    }),
    // One function behind both overloads: `urls` in, `data.results` out.
    fetch: fetchPage as Periscope['fetch'],
    extract: (input) =>
      extractPage({
        ...input,
        limits: {
          pdfMaxPages: validated.fetch.pdfMaxPages,
          pdfMaxBytes: validated.fetch.pdfMaxBytes,
          imageMaxBytes: validated.fetch.imageMaxBytes,
          ...input.limits,
        },
      }),
    usage: async (query) => {
      await policy.flush(); // this process's counts held in memory (other processes': within usage.flushIntervalMs)
      return readUsage(await state.get(), query);
    },
    credits,
    keys: createKeyAccounts(state, credits),
    store: () => state.get(),
    close: async () => {
      await Promise.all([fetchChain.close(), policy.close().then(() => state.close())]);
    },
  };
}

function switchedOff(name: string): Promise<ToolResult<never>> {
  return Promise.resolve(
    toErrorResult(
      new PeriscopeError(
        'NOT_CONFIGURED',
        `${name} is switched off in this deployment (tools.${name}.enabled)`,
      ),
    ),
  );
}

export type { ChatEndpoint, ChatMessage } from './agent/chat-completions.ts';
export { resolveAgentEndpoint } from './agent/resolve-endpoint.ts';
export {
  type AgentToolCallRecord,
  type AgentTranscript,
  type AnswerCitation,
  type CitationCheck,
  type RunAgentOptions,
  runAgent,
} from './agent/run-agent.ts';
export type {
  CitationStatus,
  VerifyCitationInput,
  VerifyCitationResult,
} from './citations/verify-citation.ts';
export { loadConfig, validateConfig } from './config/load-config.ts';
export type { PeriscopeConfig, PeriscopeConfigInput } from './config/schema.ts';
export type { ExtractedPage, ExtractPageInput } from './content/extract-page.ts';
export type { ExtractMode } from './content/types.ts';
export type {
  BeforeCallContext,
  BeforeCallDecision,
  BeforeCallHook,
  BeforeCallInfo,
} from './egress/before-call-check.ts';
export type {
  CallSettlement,
  EgressCall,
  EgressCheck,
  EgressDenial,
  EgressHold,
  EgressOptions,
  EgressPurpose,
  EgressRequest,
  EgressVerdict,
  PolicyDeniedReason,
  SessionBudget,
} from './egress/egress-check.ts';
export {
  ERROR_CODES,
  type ErrorCode,
  type ErrorReason,
  isPeriscopeError,
  PeriscopeError,
  type ProviderAttempt,
  type ReasonsByCode,
  type ToolErrorData,
} from './errors.ts';
export type { FetchBackendStatus } from './fetch/fetch-chain.ts';
export type { RateSetting } from './keys/api-keys.ts';
export type { ApiKeyInfo, CreatedKey, CreateKeyInput, KeyAccounts } from './keys/key-accounts.ts';
export { type ThrowForStatusOptions, throwForStatus } from './net/http-status.ts';
export type { HttpFetch, HttpResponse, LookupFunction } from './net/types.ts';
export type { CreditAccounts } from './policy/credit-accounts.ts';
export type { UsageCounts, UsageQuery, UsageReport, UsageRow } from './policy/usage.ts';
export type { ChainResult, ProviderStatus } from './search/chain.ts';
export type {
  ImageResult,
  ImageSearchRequest,
  ProviderContext,
  ProviderResponse,
  ProviderSettings,
  QueryLimit,
  QuotaInfo,
  SearchProvider,
  SearchRequest,
  SearchResult,
} from './search/types.ts';
export type { FailureKind, ProviderErrorRules, ProviderFailure } from './services/provider-errors.ts';
export {
  hasApiKey,
  type ProviderReply,
  type ProviderRequest,
  providerUrl,
  requestProviderJson,
  requireApiKey,
} from './services/provider-http.ts';
export { openStore } from './store/open-store.ts';
export type { LedgerEntry, Store } from './store/store.ts';
export type { ToolResult } from './tool-call.ts';
export type { ImageSearchData, ImageSearchInput } from './tools/image-search.ts';
export type { Tool, ToolExecuteOptions } from './tools/tool.ts';
export {
  type RunToolCallsOptions,
  runToolCalls,
  type ToolCall,
  type ToolCallResult,
} from './tools/tool-runner.ts';
export type { VerifyCitationData, VerifyCitationToolInput } from './tools/verify-citation-tool.ts';
export type { WebFetchData, WebFetchInput, WebFetchManyData, WebFetchUrlResult } from './tools/web-fetch.ts';
export type { SearchErrorData, WebSearchData, WebSearchInput } from './tools/web-search.ts';
