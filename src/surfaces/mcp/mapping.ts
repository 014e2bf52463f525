import type { ToolName, ToolResult } from '../../tool-call.ts';
import { inputJsonSchema } from '../../tools/input-json-schema.ts';
import { outputJsonSchema } from '../../tools/output-schemas.ts';
import type { Tool } from '../../tools/tool.ts';
import { imageOf, passageLocation, passagesOf } from '../tool-parts.ts';

// ToolResult → MCP, and nothing more (STYLE §3.3). No SDK import: the shapes are the protocol's.

const TITLES: Record<ToolName, string> = {
  web_search: 'Web search',
  web_fetch: 'Read a web page',
  image_search: 'Image search',
  verify_citation: 'Verify a citation',
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
 * `content` is what the model reads (the output, then the image when there is one); `structuredContent` is the
 * data of a successful call, less the image bytes that the image block already carries. Some clients hand the
 * model `structuredContent` instead of `content`, so it holds no page text outside the untrusted envelope: the
 * fields the tool declares page-written (`tool.pageWrittenFields`: web_fetch's title, byline, date, language,
 * site name, outline headings, browser warnings) are left out, and its `text` is the enveloped output, whose
 * header and read-on note carry them. Passages (web_fetch with `query`, web_search results with `readTop`) are
 * page text wherever they appear: they keep their locations (offsets, score, citation less its quote) and lose
 * their text, heading and quote, which the enveloped output carries.
 */
export function toCallToolResult(
  result: ToolResult,
  tool: Pick<Tool, 'pageWrittenFields'>,
): McpCallToolResult {
  const content: McpContent[] = [{ type: 'text', text: result.output }];
  if (result.isError) return { content, isError: true };
  const data = { ...(result.data as Record<string, unknown> | undefined) };
  const image = imageOf(data);
  if (image) {
    content.push({ type: 'image', data: image.base64, mimeType: image.mimeType });
    const { base64: _bytes, ...described } = image;
    data.image = described;
  }
  const located = withPassageLocations(data);
  return { content, structuredContent: withoutPageWritten(located, result.output, tool), isError: false };
}

/** `passages`, at the top and in each of `results`, reduced to their locations. */
function withPassageLocations(data: Record<string, unknown>): Record<string, unknown> {
  const located = { ...data };
  if ('passages' in located) located.passages = passagesOf(located).map(passageLocation);
  if (Array.isArray(located.results)) {
    located.results = located.results.map((item: unknown) =>
      item !== null && typeof item === 'object' && 'passages' in item
        ? { ...item, passages: passagesOf(item).map(passageLocation) }
        : item,
    );
  }
  return located;
}

/** `data` less the declared page-written fields, with the enveloped output as `text` (in `text`'s place). */
function withoutPageWritten(
  data: Record<string, unknown>,
  output: string,
  tool: Pick<Tool, 'pageWrittenFields'>,
): Record<string, unknown> {
  const pageWritten = tool.pageWrittenFields ?? [];
  if (pageWritten.length === 0) return data;
  // `passages` are already their locations (withPassageLocations): kept even where declared page-written.
  const kept = Object.entries(data).filter(
    ([field]) => field === 'text' || field === 'passages' || !pageWritten.includes(field),
  );
  const trimmed = Object.fromEntries(kept);
  // web_fetch with `urls`: each page's result loses the same fields, and its text (the output has every page).
  if (Array.isArray(trimmed.results)) {
    trimmed.results = trimmed.results.map((item: unknown) => {
      if (item === null || typeof item !== 'object') return item;
      const page = Object.entries(item).filter(
        ([field]) => field !== 'text' && (field === 'passages' || !pageWritten.includes(field)),
      );
      const { image, ...rest } = Object.fromEntries(page);
      if (image === null || typeof image !== 'object') return rest;
      const { base64: _bytes, ...described } = image as Record<string, unknown>;
      return { ...rest, image: described };
    });
  }
  return { ...trimmed, text: output };
}
