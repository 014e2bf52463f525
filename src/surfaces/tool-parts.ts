import type { Tool } from '../tools/tool.ts';

// What every surface takes from a tool or a ToolResult before putting it in its own wire format.

/** A tool's input JSON Schema as model APIs take it: the object itself, without the `$schema` dialect line. */
export function inputJsonSchema(tool: Tool): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = tool.jsonSchema;
  return schema;
}

export interface ResultImage {
  mimeType: string;
  base64: string;
  [key: string]: unknown;
}

/** The image a web_fetch result carries (`data.image`), if any. */
export function imageOf(data: unknown): ResultImage | undefined {
  const image = (data as { image?: unknown } | undefined)?.image as Partial<ResultImage> | undefined;
  if (typeof image?.base64 !== 'string' || typeof image.mimeType !== 'string') return undefined;
  return image as ResultImage;
}
