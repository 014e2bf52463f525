import type { AgentConfig } from '../config/agent-schema.ts';
import { PeriscopeError } from '../errors.ts';
import type { ChatEndpoint } from './chat-completions.ts';

const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/**
 * The model endpoint from `agent.*`, falling back to the usual environment variables. No model anywhere is
 * NOT_CONFIGURED naming the key and the variables to set.
 */
export function resolveAgentEndpoint(config: AgentConfig, env: NodeJS.ProcessEnv): ChatEndpoint {
  const model = config.model ?? env.PERISCOPE_MODEL ?? env.OPENAI_MODEL;
  if (!model) {
    throw new PeriscopeError(
      'NOT_CONFIGURED',
      'no model configured: set agent.model in the config (with agent.baseUrl for a local server such as Ollama), or PERISCOPE_MODEL / OPENAI_MODEL',
    );
  }
  const baseUrl = config.baseUrl ?? env.OPENAI_BASE_URL ?? OPENAI_BASE_URL;
  const apiKey = config.apiKey ?? env.OPENAI_API_KEY ?? undefined;
  return { baseUrl, model, apiKey: apiKey || undefined, timeoutMs: config.timeoutMs };
}
