import { z } from 'zod';
import { contentHash } from '../content/passages/content-hash.ts';
import type { ExtractMode } from '../content/types.ts';
import { type ToolErrorData, toPeriscopeError } from '../errors.ts';
import { locateQuote } from './locate-quote.ts';

export const verifyCitationInputSchema = z
  .object({
    url: z.string().min(1).describe('The URL the citation names (the one web_fetch was called with).'),
    quote: z.string().min(1).max(20_000).describe('The quoted text, verbatim, as the citation gives it.'),
    contentHash: z
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/, 'sha256: followed by 64 hex digits')
      .optional()
      .describe(
        "The citation's contentHash (sha256:<hex> of the whole document as it was extracted), if it has one.",
      ),
    start: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("The citation's start offset into the whole extracted text (give end too)."),
    end: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe("The citation's end offset (exclusive; give start too)."),
    extractMode: z
      .enum(['markdown', 'text'])
      .optional()
      .describe(
        'The extractMode the page was read with when cited (its offsets are into that text); default markdown.',
      ),
    refetch: z
      .boolean()
      .optional()
      .describe(
        'Fetch the page again instead of reading the cached copy (a web_fetch call: it costs what one costs).',
      ),
    cacheOnly: z
      .boolean()
      .optional()
      .describe(
        'Read only from the cache; never fetch (a document not cached is unreachable, NOT_CONFIGURED not-cached).',
      ),
  })
  .refine((input) => (input.start === undefined) === (input.end === undefined), {
    message: 'give start and end together, or neither',
    path: ['end'],
    params: { requires: 'start' },
  })
  .refine((input) => input.start === undefined || input.end === undefined || input.end > input.start, {
    message: 'end must be greater than start',
    path: ['end'],
    params: { order: 'must be greater than', with: 'start' },
  })
  .refine((input) => !(input.refetch && input.cacheOnly), {
    message: 'refetch and cacheOnly exclude each other; give one',
    path: ['cacheOnly'],
    params: { excludes: 'refetch' },
  });

export type VerifyCitationInput = z.input<typeof verifyCitationInputSchema>;

/**
 * `found`: the quote is where the citation says (at its offsets; anywhere when it gives none) in the same document
 * (same hash, when it gives one). `moved`: the quote is on the page, but at other offsets, or the document changed
 * around it (hash differs). `changed`: the quote is not on the page (whatever the hash). `unreachable`: the page
 * could not be read (`error`).
 */
export type CitationStatus = 'found' | 'moved' | 'changed' | 'unreachable';

export interface VerifyCitationResult {
  status: CitationStatus;
  url: string;
  /** The URL after redirects, when the page was read. */
  finalUrl?: string;
  /** Where the quote is now (found, moved). */
  start?: number;
  end?: number;
  /** How the quote matched (found, moved): `exact`, or `whitespace` (differing in whitespace only). */
  match?: 'exact' | 'whitespace';
  /** The offsets the citation gave, when it gave them. */
  citedStart?: number;
  citedEnd?: number;
  /** `sha256:<hex>` of the document as read now; absent when unreachable. */
  contentHash?: string;
  /** The hash the citation gave, when it gave one. */
  expectedContentHash?: string;
  /** Whether the two hashes agree, when the citation gave one and the page was read. */
  hashMatches?: boolean;
  /** Characters in the document as read now. */
  totalLength?: number;
  extractMode: ExtractMode;
  /** ISO 8601 instant of this check. */
  checkedAt: string;
  /** The document came from a cache (web_fetch's document or page cache), not from the site. */
  fromCache: boolean;
  /** Why the page could not be read (unreachable). */
  error?: ToolErrorData;
}

/** The whole document as extracted, from wherever the caller reads it (cache first, the chain, the policy). */
export interface CitationDocument {
  text: string;
  finalUrl: string;
  fromCache: boolean;
}

export type ReadCitationDocument = (
  url: string,
  mode: ExtractMode,
  source: { refetch: boolean; cacheOnly: boolean },
) => Promise<CitationDocument>;

/**
 * Check a citation against its page as it reads now: read the document (`read` decides cache or network), find the
 * quote (exactly, then tolerant of whitespace), compare the hash. Only a malformed input rejects (INVALID_INPUT,
 * from the caller's validation); a page that cannot be read is `unreachable` with the error.
 */
export async function verifyCitation(
  input: z.output<typeof verifyCitationInputSchema>,
  read: ReadCitationDocument,
  defaults: { extractMode: ExtractMode; now?: () => Date },
): Promise<VerifyCitationResult> {
  const extractMode = input.extractMode ?? defaults.extractMode;
  const checked = {
    url: input.url,
    extractMode,
    checkedAt: (defaults.now?.() ?? new Date()).toISOString(),
    ...(input.start === undefined || input.end === undefined
      ? {}
      : { citedStart: input.start, citedEnd: input.end }),
    ...(input.contentHash === undefined ? {} : { expectedContentHash: input.contentHash }),
  };
  let document: CitationDocument;
  try {
    document = await read(input.url, extractMode, {
      refetch: input.refetch === true,
      cacheOnly: input.cacheOnly === true,
    });
  } catch (error) {
    const failure = toPeriscopeError(error);
    if (failure.code === 'INVALID_INPUT') throw failure; // the URL itself, not the page
    return { status: 'unreachable', ...checked, fromCache: false, error: failure.toJSON() };
  }
  const hash = contentHash(document.text);
  const hashMatches = input.contentHash === undefined ? undefined : input.contentHash === hash;
  const cited =
    input.start === undefined || input.end === undefined ? undefined : { start: input.start, end: input.end };
  const location = locateQuote(document.text, input.quote, cited);
  const reading = {
    ...checked,
    finalUrl: document.finalUrl,
    contentHash: hash,
    ...(hashMatches === undefined ? {} : { hashMatches }),
    totalLength: document.text.length,
    fromCache: document.fromCache,
  };
  if (!location) return { status: 'changed', ...reading };
  const inPlace = !cited || (location.start === cited.start && location.end === cited.end);
  return {
    status: inPlace && hashMatches !== false ? 'found' : 'moved',
    ...reading,
    start: location.start,
    end: location.end,
    match: location.match,
  };
}

/** One line for a model or a person: the status and what it rests on. */
export function describeVerification(result: VerifyCitationResult): string {
  const where = result.finalUrl ?? result.url;
  const range = `characters ${result.start}–${result.end}`;
  const how = result.match === 'whitespace' ? ', differing in whitespace only' : '';
  const hash =
    result.hashMatches === undefined
      ? ''
      : result.hashMatches
        ? '; the document is unchanged (same content hash)'
        : '; the document changed since it was cited (content hash differs)';
  const source = result.fromCache ? ' (read from cache)' : '';
  switch (result.status) {
    case 'found':
      return `found: the quote is on ${where} at ${range}${how}${hash}${source}.`;
    case 'moved': {
      const cited =
        result.citedStart === undefined ? '' : ` (cited at ${result.citedStart}–${result.citedEnd})`;
      return `moved: the quote is on ${where}, now at ${range}${cited}${how}${hash}${source}.`;
    }
    case 'changed':
      return `changed: the quote is not on ${where} as it reads now${hash}${source}.`;
    case 'unreachable': {
      // A URL refused for carrying a secret is not repeated (the error says what it looked like).
      const url = result.error?.details?.reason === 'secret' ? 'the URL' : result.url;
      return `unreachable: ${url} could not be read (${result.error?.code}): ${result.error?.message}`;
    }
  }
}
