import { z } from 'zod';
import type { ToolName } from '../tool-call.ts';

// The `data` of a successful ToolResult, per tool: MCP's outputSchema, the gateway's OpenAPI document. Loose
// objects: a field added later never makes a client reject a result it validated yesterday.

const attempt = z.looseObject({
  provider: z.string(),
  outcome: z.enum(['ok', 'failed', 'skipped']),
  code: z.string().optional(),
  message: z.string().optional(),
  ms: z.number(),
});

/**
 * A passage with its citation. MCP's structuredContent carries the locations only (offsets, score, citation less its
 * quote): `text`, `heading` and `quote` are page-written, and the enveloped `text` of the result carries them.
 */
const citedPassage = z.looseObject({
  start: z.number().describe('Offset of the passage in the full extracted text (as startIndex counts).'),
  end: z.number(),
  score: z.number().optional(),
  text: z.string().optional().describe('The passage, verbatim (not in MCP structuredContent).'),
  heading: z.string().optional().describe('The nearest section heading (not in MCP structuredContent).'),
  citation: z.looseObject({
    url: z.string(),
    finalUrl: z.string(),
    start: z.number(),
    end: z.number(),
    quote: z.string().optional().describe('The passage text (not in MCP structuredContent).'),
    contentHash: z.string().describe('sha256:<hex> of the full extracted document text.'),
    retrievedAt: z.string(),
  }),
});

const searchCommon = {
  query: z.string(),
  provider: z.string().describe('The provider that answered.'),
  attempts: z.array(attempt).describe('Every provider asked or skipped, in order.'),
  cached: z.boolean(),
  cacheAgeSeconds: z.number().optional().describe('When cached: seconds since the answer was fetched.'),
  warnings: z.array(z.string()),
};

export const webSearchOutputSchema = z.looseObject({
  ...searchCommon,
  results: z.array(
    z.looseObject({
      readError: z
        .looseObject({ code: z.string(), message: z.string() })
        .optional()
        .describe('readTop: why this result could not be read (the search itself succeeded).'),
      title: z.string(),
      url: z.string(),
      snippet: z.string(),
      publishedAt: z.string().optional(),
      source: z.string().optional().describe('News: the publication.'),
      passages: z.array(citedPassage).optional().describe('readTop: the passages read from this result.'),
      queryMatched: z
        .boolean()
        .optional()
        .describe("readTop: false when no passage matched (the passages are the page's opening sentences)."),
    }),
  ),
});

export const imageSearchOutputSchema = z.looseObject({
  ...searchCommon,
  results: z.array(
    z.looseObject({
      title: z.string(),
      imageUrl: z.string(),
      thumbnailUrl: z.string().optional(),
      sourceUrl: z.string().optional().describe('The page the image is on.'),
      width: z.number().optional(),
      height: z.number().optional(),
    }),
  ),
});

/** web_fetch with `urls`: one item per URL, in order, `ok` with the page's fields or failed with its error. */
const webFetchUrlResult = z.looseObject({
  ok: z.boolean(),
  url: z.string(),
  error: z.looseObject({ code: z.string(), message: z.string() }).optional().describe('When not ok.'),
});

const webFetchPageOutputSchema = z.looseObject({
  url: z.string(),
  finalUrl: z.string().describe('The address after redirects.'),
  status: z.number(),
  contentType: z.string(),
  charset: z.string(),
  title: z.string().optional(),
  byline: z.string().optional(),
  publishedAt: z.string().optional(),
  language: z.string().optional(),
  siteName: z.string().optional(),
  pageCount: z.number().optional(),
  extractor: z.string(),
  backend: z.string(),
  truncated: z.boolean(),
  length: z.number(),
  totalLength: z.number(),
  startIndex: z.number(),
  nextStartIndex: z.number().optional().describe('Pass as startIndex to read on (only when truncated).'),
  untrusted: z.literal(true),
  cached: z.boolean(),
  cacheAgeSeconds: z.number().optional().describe('When cached: seconds since the page was fetched.'),
  query: z.string().optional().describe('The query asked, when one was (then text holds the passages).'),
  queryMatched: z
    .boolean()
    .optional()
    .describe(
      "With query: false when no passage matched it (then the passages are the page's opening sentences).",
    ),
  coveredChars: z.number().optional().describe('With query: characters of the document the passages cover.'),
  contentHash: z
    .string()
    .optional()
    .describe('With query: sha256:<hex> of the full extracted document text.'),
  retrievedAt: z.string().optional().describe('With query: when the document was fetched (ISO 8601).'),
  outline: z.array(z.looseObject({ level: z.number(), title: z.string(), offset: z.number() })).optional(),
  image: z
    .looseObject({ mimeType: z.string(), width: z.number(), height: z.number() })
    .optional()
    .describe('An image: sent as an image block; its base64 bytes are not repeated here.'),
  text: z.string(),
  passages: z
    .array(citedPassage)
    .optional()
    .describe('With query: the passages returned, in document order, each with its citation.'),
});

const webFetchManyOutputSchema = z.looseObject({
  urls: z.array(z.string()),
  results: z.array(webFetchUrlResult).describe('With urls: one result per URL, in the order given.'),
  succeeded: z.number(),
  failed: z.number(),
  maxChars: z.number(),
  length: z.number(),
  untrusted: z.literal(true),
  text: z.string().optional().describe('MCP: the output, every page in its envelope.'),
});

export const webFetchOutputSchema = z.union([webFetchPageOutputSchema, webFetchManyOutputSchema]);

export const verifyCitationOutputSchema = z.looseObject({
  status: z
    .enum(['found', 'moved', 'changed', 'unreachable'])
    .describe(
      'found: where the citation says; moved: on the page at other offsets (or the page changed around it); changed: not on the page; unreachable: the page could not be read.',
    ),
  url: z.string(),
  finalUrl: z.string().optional(),
  start: z.number().optional().describe('Where the quote is now (found, moved).'),
  end: z.number().optional(),
  match: z
    .enum(['exact', 'whitespace'])
    .optional()
    .describe('whitespace: equal once whitespace runs count as one space.'),
  citedStart: z.number().optional(),
  citedEnd: z.number().optional(),
  contentHash: z.string().optional().describe('sha256:<hex> of the document as read now.'),
  expectedContentHash: z.string().optional(),
  hashMatches: z.boolean().optional(),
  totalLength: z.number().optional(),
  extractMode: z.enum(['markdown', 'text']),
  checkedAt: z.string(),
  fromCache: z.boolean(),
  error: z
    .looseObject({ code: z.string(), message: z.string() })
    .optional()
    .describe('Why it is unreachable.'),
});

export const OUTPUT_SCHEMAS: Record<ToolName, z.ZodType> = {
  web_search: webSearchOutputSchema,
  web_fetch: webFetchOutputSchema,
  image_search: imageSearchOutputSchema,
  verify_citation: verifyCitationOutputSchema,
};

/** JSON Schema (draft-07, the dialect most validators default to) of a tool's success `data`. */
export function outputJsonSchema(name: ToolName): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(OUTPUT_SCHEMAS[name], {
    target: 'draft-07',
    io: 'output',
  }) as Record<string, unknown>;
  // MCP wants an object at the top: web_fetch's is one of two objects (one URL, or `urls`).
  return 'type' in schema ? schema : { type: 'object', ...schema };
}
