import type { Tool } from './tool.ts';

/** A tool's input JSON Schema as model APIs take it: the object itself, without the `$schema` dialect line. */
export function inputJsonSchema(tool: Tool): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = tool.jsonSchema;
  return schema;
}
