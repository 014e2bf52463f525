import { z } from 'zod';

/** MCP, on stdio (`periscope mcp`) and over HTTP (`/mcp` under `periscope serve`). */
export const mcpSchema = z
  .strictObject({
    /** Tools offered to MCP clients, a subset of the enabled ones (`--tools` overrides); null: every enabled tool. */
    tools: z
      .array(z.enum(['web_search', 'web_fetch', 'image_search']))
      .min(1)
      .nullable()
      .default(null),
    /** The agent stdio sessions act as (limits, credits); over HTTP the API key names the agent. */
    agentId: z.string().min(1).max(128).default('mcp'),
  })
  .prefault({});

export type McpConfig = z.infer<typeof mcpSchema>;
