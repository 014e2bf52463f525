import { z } from 'zod';
import type { EgressGate } from '../egress/egress-gate.ts';
import type { FetchedPage } from '../fetch/fetch-backend.ts';
import { parseCallerUrl } from '../net/caller-url.ts';
import type { DocumentReader } from './document-reader.ts';
import { egressCall } from './egress-call.ts';
import type { Tool } from './tool.ts';
import { toErrorResult } from './tool-result.ts';
import { shortUrl, validateInput } from './validate-input.ts';
import { webFetchInputFields } from './web-fetch-schema.ts';

const documentFetchInputSchema = webFetchInputFields.pick({ url: true, extractMode: true }).extend({
  refetch: z.boolean().optional(),
});

export type DocumentFetchInput = z.input<typeof documentFetchInputSchema>;

export interface DocumentFetchData {
  url: string;
  finalUrl: string;
  backend: string;
  cached: boolean;
  /** The whole document as extracted. */
  text: string;
}

/**
 * A web_fetch call that hands back the whole document instead of a window, for verifyCitation's reads from the
 * network: named web_fetch so that the call policy (repeat throttle, rate limits, credits, usage) treats it as
 * the web_fetch call it is. Cache first (the same caches as web_fetch), or the site itself with `refetch`. Never
 * offered to a model.
 */
export function createDocumentFetchTool(
  reader: DocumentReader,
  defaults: { extractMode: 'markdown' | 'text' },
  egress?: EgressGate,
): Tool<DocumentFetchInput, DocumentFetchData> {
  return {
    name: 'web_fetch',
    description: 'Read a whole document (verifyCitation).',
    inputSchema: documentFetchInputSchema,
    jsonSchema: z.toJSONSchema(documentFetchInputSchema, { io: 'input' }) as Record<string, unknown>,
    async execute(rawInput, options = {}) {
      let display = 'fetch';
      try {
        const input = validateInput(documentFetchInputSchema, rawInput, 'web_fetch');
        const url = parseCallerUrl(input.url);
        display = `fetch ${shortUrl(url.href)}`;
        const { page, cached } = await reader.read(url, input.extractMode ?? defaults.extractMode, {
          source: input.refetch ? 'origin' : 'cache-first',
          signal: options.signal,
          agentId: options.agentId,
          toolCallId: options.toolCallId,
          egress: egress?.requestCheck(egressCall('web_fetch', input, options)),
        });
        const data = dataOf(page, cached, reader.chainIds[0] ?? 'local');
        return {
          isError: false,
          output: '',
          data,
          display: `${display} → ${cached ? 'from cache' : 'fetched'}`,
        };
      } catch (error) {
        return toErrorResult(error, display);
      }
    },
  };
}

function dataOf(page: FetchedPage, cached: boolean, firstBackend: string): DocumentFetchData {
  return {
    url: page.url,
    finalUrl: page.finalUrl,
    backend: page.backend ?? firstBackend,
    cached,
    text: page.content.text,
  };
}
