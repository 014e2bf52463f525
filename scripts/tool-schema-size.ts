// How much each tool costs a model before it is called: the MCP tool definition's description and input JSON
// Schema, in bytes of JSON (what a client sends the model with every request). test/tool-schema-size.test.ts keeps
// web_search and image_search within 30 % of the sizes recorded before issue 18 added their parameters.
// Run: npx node scripts/tool-schema-size.ts
import { createPeriscope } from '../src/index.ts';
import { mcpToolDefinition } from '../src/surfaces/mcp/mapping.ts';

export interface ToolSchemaSize {
  tool: string;
  descriptionBytes: number;
  inputSchemaBytes: number;
  totalBytes: number;
}

/** Every tool's description and input schema size, as an MCP client receives them. */
export async function toolSchemaSizes(): Promise<ToolSchemaSize[]> {
  const periscope = createPeriscope({ store: { url: 'memory:' } });
  try {
    return periscope.tools.map((tool) => {
      const definition = mcpToolDefinition(tool);
      const descriptionBytes = Buffer.byteLength(JSON.stringify(definition.description));
      const inputSchemaBytes = Buffer.byteLength(JSON.stringify(definition.inputSchema));
      return {
        tool: tool.name,
        descriptionBytes,
        inputSchemaBytes,
        totalBytes: descriptionBytes + inputSchemaBytes,
      };
    });
  } finally {
    await periscope.close();
  }
}

if (import.meta.main) {
  for (const size of await toolSchemaSizes()) {
    console.log(
      `${size.tool.padEnd(16)} description ${String(size.descriptionBytes).padStart(5)} B, input schema ${String(size.inputSchemaBytes).padStart(5)} B, total ${String(size.totalBytes).padStart(5)} B`,
    );
  }
}
