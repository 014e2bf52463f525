import type { AgentConfig } from '../config/agent-schema.ts';
import { PeriscopeError } from '../errors.ts';
import type { ChatEndpoint } from './chat-completions.ts';

/** The endpoint when neither `agent.baseUrl` nor OPENAI_BASE_URL is set. */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** The variables each `agent.*` setting falls back to, in order (the first one set wins). */
export const AGENT_SETTING_VARIABLES = {
  baseUrl: ['OPENAI_BASE_URL'],
  model: ['PERISCOPE_MODEL', 'OPENAI_MODEL'],
  apiKey: ['OPENAI_API_KEY'],
} as const satisfies Record<string, readonly string[]>;

/** One effective agent setting; `variable` names the environment variable it came from (absent: the config). */
export interface AgentSettingSource {
  value: string;
  variable?: string;
}

export type EffectiveAgentSettings = Partial<
  Record<keyof typeof AGENT_SETTING_VARIABLES, AgentSettingSource>
>;

/**
 * `agent.baseUrl`, `agent.model` and `agent.apiKey` as `periscope ask` uses them: the config's value, else the
 * first of its variables that is set (an empty value counts as unset), each with where it came from.
 */
export function effectiveAgentSettings(
  config: Pick<AgentConfig, 'baseUrl' | 'model' | 'apiKey'>,
  env: NodeJS.ProcessEnv,
): EffectiveAgentSettings {
  const effective: EffectiveAgentSettings = {};
  for (const setting of Object.keys(AGENT_SETTING_VARIABLES) as Array<keyof typeof AGENT_SETTING_VARIABLES>) {
    const configured = config[setting];
    if (configured) {
      effective[setting] = { value: configured };
      continue;
    }
    for (const variable of AGENT_SETTING_VARIABLES[setting]) {
      const value = env[variable]?.trim();
      if (value) {
        effective[setting] = { value, variable };
        break;
      }
    }
  }
  return effective;
}

/**
 * The model endpoint from `agent.*`, falling back to the usual environment variables. No model anywhere is
 * NOT_CONFIGURED naming the key and the variables to set.
 */
export function resolveAgentEndpoint(config: AgentConfig, env: NodeJS.ProcessEnv): ChatEndpoint {
  const { baseUrl, model, apiKey } = effectiveAgentSettings(config, env);
  if (!model) {
    throw new PeriscopeError(
      'NOT_CONFIGURED',
      'no model configured: set agent.model in the config (with agent.baseUrl for a local server such as Ollama), or PERISCOPE_MODEL / OPENAI_MODEL',
    );
  }
  return {
    baseUrl: baseUrl?.value ?? OPENAI_BASE_URL,
    model: model.value,
    apiKey: apiKey?.value,
    timeoutMs: config.timeoutMs,
  };
}
