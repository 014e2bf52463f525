import { z } from 'zod';
import {
  describeVerification,
  type VerifyCitationResult,
  verifyCitationInputSchema,
} from '../citations/verify-citation.ts';
import type { Tool, ToolExecuteOptions } from './tool.ts';
import { toErrorResult } from './tool-result.ts';
import { shortUrl, validateInput } from './validate-input.ts';

/** The model's view of the input: what a citation carries, and whether to fetch again. */
export const verifyCitationToolInputSchema = verifyCitationInputSchema;

export type VerifyCitationToolInput = z.input<typeof verifyCitationToolInputSchema>;

export type VerifyCitationData = VerifyCitationResult;

const DESCRIPTION = [
  'Check that a quoted passage really is on the page a citation names: give the url and the quote (and, when the',
  'citation has them, its start/end offsets and contentHash, as web_fetch returns them with passages). Answers',
  'found (the quote is where the citation says), moved (it is on the page, at other offsets, or the page changed',
  'around it: the new offsets are given), changed (the quote is not on the page) or unreachable (the page could not',
  'be read). Reads the copy web_fetch cached when there is one; refetch: true reads the page again. Matches the',
  'quote exactly, then ignoring differences in whitespace (the result says which).',
].join(' ');

export interface VerifyCitationToolSettings {
  /** The check itself (index.ts: `periscope.verifyCitation` without its validation). */
  verify(
    input: z.output<typeof verifyCitationInputSchema>,
    options: ToolExecuteOptions,
  ): Promise<VerifyCitationResult>;
}

/** `verify_citation`: off in the tool lists until `tools.verify_citation.enabled`. Never rejects. */
export function createVerifyCitationTool(
  settings: VerifyCitationToolSettings,
): Tool<VerifyCitationToolInput, VerifyCitationData> {
  return {
    name: 'verify_citation',
    description: DESCRIPTION,
    inputSchema: verifyCitationToolInputSchema,
    jsonSchema: z.toJSONSchema(verifyCitationToolInputSchema, { io: 'input' }) as Record<string, unknown>,
    async execute(rawInput, options = {}) {
      const started = performance.now();
      let display = 'verify';
      try {
        const input = validateInput(verifyCitationToolInputSchema, rawInput, 'verify_citation');
        display = `verify ${shortUrl(input.url)}`;
        const result = await settings.verify(input, options);
        const elapsedMs = Math.round(performance.now() - started);
        const code = result.error ? ` ${result.error.code}` : '';
        return {
          isError: false,
          output: describeVerification(result),
          data: result,
          display: `${display} → ${result.status}${code}${result.fromCache ? ' (cached)' : ''} in ${elapsedMs} ms`,
        };
      } catch (error) {
        return toErrorResult(error, display);
      }
    },
  };
}
