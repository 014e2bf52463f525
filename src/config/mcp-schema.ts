import { z } from 'zod';

/** MCP, on stdio (`periscope mcp`) and over HTTP (`/mcp` under `periscope serve`). */
export const mcpSchema = z
  .strictObject({
    tools: z
      .array(z.enum(['web_search', 'web_fetch', 'image_search', 'verify_citation']))
      .min(1)
      .nullable()
      .default(null)
      .describe(
        'Tools offered to MCP clients, a subset of the enabled ones (`--tools` overrides); null: every enabled tool.',
      ),
    agentId: z
      .string()
      .min(1)
      .max(128)
      .default('mcp')
      .describe('The agent stdio sessions act as (limits, credits); over HTTP the API key names the agent.'),
  })
  .prefault({})
  .describe('MCP, on stdio (`periscope mcp`) and over HTTP (`/mcp` under `periscope serve`).');

export type McpConfig = z.infer<typeof mcpSchema>;
