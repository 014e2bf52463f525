import type { LimitsConfig, RateWindow } from '../config/policy-schema.ts';
import { isPeriscopeError, PeriscopeError } from '../errors.ts';
import type { Store } from '../store/store.ts';
import { STORE_UNAVAILABLE } from '../store/store-errors.ts';
import type { ToolName } from '../tool-call.ts';
import { formatDuration } from './format-duration.ts';

export interface RateLimiter {
  /** Whether any window is configured. */
  readonly isActive: boolean;
  /**
   * Takes one call from the agent's tool window, then from its agent window; RATE_LIMITED (with retryAfterMs)
   * when either is full. A store outage refuses the call unless `failOpen`.
   */
  take(store: () => Promise<Store>, agentId: string, tool: ToolName): Promise<void>;
}

interface Window {
  key: string;
  setting: string;
  window: RateWindow;
  scope: string;
}

export function createRateLimiter(limits: Pick<LimitsConfig, 'rate' | 'failOpen'>): RateLimiter {
  const { perAgent, perTool } = limits.rate;
  const isActive = perAgent !== undefined || Object.values(perTool).some((window) => window !== undefined);

  function windowsFor(agentId: string, tool: ToolName): Window[] {
    const windows: Window[] = [];
    const toolWindow = perTool[tool];
    if (toolWindow)
      windows.push({
        key: `rate:tool:${tool}:${agentId}`,
        setting: `limits.rate.perTool.${tool}`,
        window: toolWindow,
        scope: `${tool} calls`,
      });
    if (perAgent)
      windows.push({
        key: `rate:agent:${agentId}`,
        setting: 'limits.rate.perAgent',
        window: perAgent,
        scope: 'calls',
      });
    return windows;
  }

  return {
    isActive,
    async take(openStore, agentId, tool) {
      const windows = windowsFor(agentId, tool);
      if (windows.length === 0) return;
      try {
        const store = await openStore();
        for (const { key, setting, window, scope } of windows) {
          const result = await store.consume(key, 1, window.count, window.windowMs);
          if (result.allowed) continue;
          throw new PeriscopeError(
            'RATE_LIMITED',
            `agent "${agentId}" may make ${window.count} ${scope} per ${formatDuration(window.windowMs)} (${setting}) and has used them; the next is allowed in ${formatDuration(result.retryAfterMs)}`,
            {
              retryable: true,
              retryAfterMs: result.retryAfterMs,
              details: {
                reason: 'agent-rate-limit',
                agent: agentId,
                limit: setting,
                limitValue: window.count,
                windowMs: window.windowMs,
              },
            },
          );
        }
      } catch (error) {
        if (limits.failOpen && isPeriscopeError(error) && error.details.reason === STORE_UNAVAILABLE) return;
        throw error;
      }
    },
  };
}
