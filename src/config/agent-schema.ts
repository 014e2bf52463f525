import { z } from 'zod';

/**
 * `periscope ask` / `runAgent()`: any OpenAI-compatible Chat Completions endpoint. Unset values fall back to
 * OPENAI_BASE_URL, PERISCOPE_MODEL / OPENAI_MODEL and OPENAI_API_KEY (see `resolveAgentEndpoint`).
 */
export const agentSchema = z
  .strictObject({
    baseUrl: z
      .string()
      .regex(/^https?:\/\/\S+$/i, 'an http(s) URL')
      .nullable()
      .default(null)
      .describe(
        'The Chat Completions endpoint, e.g. `http://127.0.0.1:11434/v1` (Ollama) or `http://127.0.0.1:1234/v1` (LM Studio). null: OPENAI_BASE_URL, else `https://api.openai.com/v1`.',
      ),
    model: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe('The model name. null: PERISCOPE_MODEL, else OPENAI_MODEL; none at all is NOT_CONFIGURED.'),
    apiKey: z
      .string()
      .nullable()
      .default(null)
      .describe("The endpoint's API key. null: OPENAI_API_KEY, else none (local servers need none)."),
    maxTurns: z
      .number()
      .int()
      .min(1)
      .max(50)
      .default(8)
      .describe('Model turns with tool calls (1–50) before the model is asked to answer with what it has.'),
    concurrency: z
      .number()
      .int()
      .min(1)
      .max(16)
      .default(4)
      .describe('Tool calls of one model turn that run at once (1–16).'),
    timeoutMs: z
      .number()
      .int()
      .positive()
      .default(120_000)
      .describe('Longest wait for one model response, in ms.'),
    stream: z
      .boolean()
      .default(true)
      .describe(
        'Stream the answer as the model writes it (`periscope ask --no-stream` turns it off per call).',
      ),
  })
  .prefault({})
  .describe(
    '`periscope ask` / `runAgent()`: the model endpoint of the built-in agent (any OpenAI-compatible Chat Completions API).',
  );

export type AgentConfig = z.infer<typeof agentSchema>;
