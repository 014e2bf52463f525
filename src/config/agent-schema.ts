import { z } from 'zod';

/**
 * `periscope ask` / `runAgent()`: any OpenAI-compatible Chat Completions endpoint. Unset values fall back to
 * OPENAI_BASE_URL, PERISCOPE_MODEL / OPENAI_MODEL and OPENAI_API_KEY (see `resolveAgentEndpoint`).
 */
export const agentSchema = z
  .strictObject({
    /** e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1` (Ollama), `http://127.0.0.1:1234/v1` (LM Studio). */
    baseUrl: z
      .string()
      .regex(/^https?:\/\/\S+$/i, 'an http(s) URL')
      .nullable()
      .default(null),
    model: z.string().min(1).nullable().default(null),
    apiKey: z.string().nullable().default(null),
    /** Model turns with tool calls before the model is asked to answer with what it has. */
    maxTurns: z.number().int().min(1).max(50).default(8),
    /** Tool calls of one model turn that run at once. */
    concurrency: z.number().int().min(1).max(16).default(4),
    /** Longest wait for one model response. */
    timeoutMs: z.number().int().positive().default(120_000),
    stream: z.boolean().default(true),
  })
  .prefault({});

export type AgentConfig = z.infer<typeof agentSchema>;
