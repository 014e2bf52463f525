import type { z } from 'zod';
import type { EgressCall, EgressOptions } from '../egress/egress-check.ts';
import type { ToolName, ToolResult } from '../tool-call.ts';

/** The tools whose results the store caches (`cache.perTool`); verify_citation reads web_fetch's cache instead. */
export type CachedToolName = Exclude<ToolName, 'verify_citation'>;

/** The principal of a call that names none. */
export const DEFAULT_AGENT_ID = 'default';

export interface ToolExecuteOptions {
  signal?: AbortSignal;
  /** web_search / image_search: ask only this provider (no fallback, cooldown ignored). */
  provider?: string;
  /** The principal limits and credits apply to (CLI `--agent`, a gateway key's agent). Default `default`. */
  agentId?: string;
  /** One agent turn or one MCP session: the scope of the repeat throttle. Default: a fresh id per call. */
  sessionId?: string;
  /** The model's id for this tool call (MCP request id, AI SDK toolCallId): forwarded where a back-end wants it. */
  toolCallId?: string;
  /**
   * What the caller (an API key, an embedding program; never the model) says about where this call may go: it
   * only narrows the deployment's `egress` policy (src/egress/).
   */
  egress?: EgressOptions;
  /** This call as the call policy admitted it (set by the call policy for the tool it runs; callers leave it). */
  admittedCall?: EgressCall;
  /**
   * The admitted call this one is made for: web_search's readTop reads carry their search, whose session budget
   * reserved them (src/egress/budget-check.ts). Set by Periscope's tools; callers leave it.
   */
  parentCall?: EgressCall;
  /** Progress during long calls (MCP progress notifications). */
  onProgress?: (progress: ToolProgress) => void;
  /**
   * Called once the egress checks (the secret scan first) have let the call through, before anything is sent; never
   * for a call they refuse. A surface shows the call's query or URL (a start or progress line) only from then on.
   */
  onAdmitted?: () => void;
}

export interface ToolProgress {
  /** Work done so far, in `total` units when known. */
  progress: number;
  total?: number | undefined;
  message?: string | undefined;
}

/** An LLM-facing tool: validates its input, never rejects. */
export interface Tool<INPUT = unknown, DATA = unknown> {
  readonly name: ToolName;
  /** Written for the model. */
  readonly description: string;
  readonly inputSchema: z.ZodType<INPUT>;
  /** The input schema as JSON Schema (draft 2020-12), for MCP, OpenAI and Anthropic. */
  readonly jsonSchema: Record<string, unknown>;
  /**
   * Fields of a successful result's `data` that the page wrote or chose (web_fetch: its title, byline, text, …),
   * which the output carries only inside the untrusted envelope. A surface that may hand `data` to a model (MCP's
   * `structuredContent`) leaves them out and gives the enveloped output as `text`; the views for programs (the
   * library's result, the gateway's JSON, CLI `--json`, LangChain's artifact) keep them. None when absent.
   */
  readonly pageWrittenFields?: readonly string[] | undefined;
  execute(input: unknown, options?: ToolExecuteOptions): Promise<ToolResult<DATA>>;
}
