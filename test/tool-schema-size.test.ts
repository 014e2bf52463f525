// Tool definitions are sent with every model request: issue 18's parameters may make web_search's and
// image_search's (description + input JSON Schema, as MCP sends them) at most 30 % larger than they were before
// (measured with scripts/tool-schema-size.ts at commit 5578832, the issue's starting point).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toolSchemaSizes } from '../scripts/tool-schema-size.ts';

const BEFORE_ISSUE_18: Record<string, { descriptionBytes: number; inputSchemaBytes: number }> = {
  web_search: { descriptionBytes: 476, inputSchemaBytes: 1723 },
  image_search: { descriptionBytes: 299, inputSchemaBytes: 1116 },
};
const MAX_GROWTH = 1.3;

test('web_search and image_search grew by less than 30 % with issue 18 (description and input schema)', async () => {
  const sizes = await toolSchemaSizes();
  for (const [tool, before] of Object.entries(BEFORE_ISSUE_18)) {
    const now = sizes.find((size) => size.tool === tool);
    assert.ok(now, tool);
    const total = before.descriptionBytes + before.inputSchemaBytes;
    assert.ok(now.totalBytes < total * MAX_GROWTH, `${tool}: ${now.totalBytes} B, was ${total} B`);
    assert.ok(
      now.inputSchemaBytes < before.inputSchemaBytes * MAX_GROWTH,
      `${tool} input schema: ${now.inputSchemaBytes} B, was ${before.inputSchemaBytes} B`,
    );
  }
});
