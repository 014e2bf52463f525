// BRIDGE until the web_fetch `query` branch merges (issue 15): the adapters' tests need a real web_fetch result
// with `data.passages`, which only web_fetch with `query` will produce. This takes a real result of plain web_fetch
// on a short page (one window holds the whole document) and adds what `query` will add, in the agreed shape,
// computed by the real selectPassages and contentHash. Replace the callers' use of it with a real `query` call
// after the merge, then delete this file.
import { contentHash } from '../content/passages/content-hash.ts';
import { selectPassages } from '../content/passages/select-passages.ts';
import { type Citation, PASSAGE_SEPARATOR } from '../content/passages/types.ts';
import type { Tool } from '../tools/tool.ts';
import type { ToolResult } from '../tools/tool-result.ts';

interface FetchedData {
  url: string;
  finalUrl: string;
  text: string;
  startIndex: number;
  truncated: boolean;
  totalLength: number;
  outline?: Array<{ level: number; title: string; offset: number }>;
  title?: string;
  language?: string;
}

export interface BridgeOptions {
  /** Default 2000. */
  maxChars?: number;
}

type Outline = Array<{ level: number; title: string; offset: number }>;

/** A web_fetch result with `data.passages` for `query`, as web_fetch with `query` will return it. */
export function withPassages(result: ToolResult, query: string, options: BridgeOptions = {}): ToolResult {
  if (result.isError) return result;
  const data = result.data as FetchedData;
  if (data.startIndex !== 0 || data.truncated) throw new Error('the bridge needs a page read in one window');
  const document = data.text;
  // web_fetch gives `data.outline` only for a document longer than one window; `query` will use the page's own.
  const outline = data.outline ?? markdownHeadings(document);
  const selection = selectPassages(document, {
    query,
    maxChars: options.maxChars ?? 2000,
    outline,
    title: data.title,
    language: data.language,
  });
  const hash = contentHash(document);
  const retrievedAt = new Date().toISOString();
  const passages = selection.passages.map((passage) => {
    const citation: Citation = {
      url: data.url,
      finalUrl: data.finalUrl,
      start: passage.start,
      end: passage.end,
      quote: passage.text,
      contentHash: hash,
      retrievedAt,
    };
    const heading = passage.heading ?? outline.findLast((entry) => entry.offset <= passage.start)?.title;
    return { ...passage, ...(heading === undefined ? {} : { heading }), citation };
  });
  return {
    ...result,
    data: {
      ...data,
      query,
      passages,
      text: passages.map((passage) => passage.text).join(PASSAGE_SEPARATOR),
      contentHash: hash,
      retrievedAt,
      coveredChars: selection.coveredChars,
      truncated: selection.coveredChars < selection.totalLength,
    },
  };
}

/** The `#` headings of a markdown document, with their offsets. */
function markdownHeadings(document: string): Outline {
  return [...document.matchAll(/^(#{1,6}) (.+)$/gm)].map((match) => ({
    level: match[1]?.length ?? 1,
    title: match[2] ?? '',
    offset: match.index,
  }));
}

/** web_fetch whose results carry passages for `query` (see withPassages). */
export function withQueryBridge(fetchTool: Tool, query: string, bridge: BridgeOptions = {}): Tool {
  return {
    ...fetchTool,
    execute: async (input, options) => withPassages(await fetchTool.execute(input, options), query, bridge),
  };
}
