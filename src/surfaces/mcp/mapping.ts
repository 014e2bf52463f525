import { inputJsonSchema } from '../../tools/input-json-schema.ts';
import { outputJsonSchema } from '../../tools/output-schemas.ts';
import type { Tool, ToolName } from '../../tools/tool.ts';
import type { ToolResult } from '../../tools/tool-result.ts';
import { imageOf } from '../tool-parts.ts';

// ToolResult → MCP, and nothing more (STYLE §3.3). No SDK import: the shapes are the protocol's.

const TITLES: Record<ToolName, string> = {
  web_search: 'Web search',
  web_fetch: 'Read a web page',
  image_search: 'Image search',
};

export interface McpToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  outputSchema: { type: 'object'; [key: string]: unknown };
  annotations: { title: string; readOnlyHint: true; destructiveHint: false; openWorldHint: true };
}

export function mcpToolDefinition(tool: Tool): McpToolDefinition {
  const title = TITLES[tool.name];
  return {
    name: tool.name,
    title,
    description: tool.description,
    inputSchema: { ...inputJsonSchema(tool), type: 'object' },
    outputSchema: { ...outputJsonSchema(tool.name), type: 'object' },
    annotations: { title, readOnlyHint: true, destructiveHint: false, openWorldHint: true },
  };
}

export type McpContent = { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string };

export interface McpCallToolResult {
  [key: string]: unknown;
  content: McpContent[];
  structuredContent?: Record<string, unknown>;
  isError: boolean;
}

/**
 * Fields of an untrusted result (`data.untrusted`) that the page wrote or chose; the enveloped text carries the
 * first six. `warnings` name URLs the page asked the browser for (refused sub-requests, downloads): they stay in
 * the library's and the gateway's data, not in what an MCP client may hand the model.
 */
const PAGE_WRITTEN = [
  'title',
  'byline',
  'publishedAt',
  'language',
  'siteName',
  'outline',
  'warnings',
] as const;

/**
 * `content` is what the model reads (the output, then the image when there is one); `structuredContent` is the
 * data of a successful call, less the image bytes that the image block already carries. Some clients hand the
 * model `structuredContent` instead of `content`, so for page content (`untrusted: true`) it holds no page text
 * outside the untrusted envelope: its `text` is the enveloped output, and the fields the page wrote (title,
 * byline, date, language, site name, outline headings) are left out, since the envelope's header and read-on
 * note carry them.
 */
export function toCallToolResult(result: ToolResult): McpCallToolResult {
  const content: McpContent[] = [{ type: 'text', text: result.output }];
  if (result.isError) return { content, isError: true };
  const data = { ...(result.data as Record<string, unknown> | undefined) };
  const image = imageOf(data);
  if (image) {
    content.push({ type: 'image', data: image.base64, mimeType: image.mimeType });
    const { base64: _bytes, ...described } = image;
    data.image = described;
  }
  if (data.untrusted === true) {
    for (const field of PAGE_WRITTEN) delete data[field];
    data.text = result.output;
  }
  return { content, structuredContent: data, isError: false };
}
