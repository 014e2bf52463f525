import { z } from 'zod';
import { isCalendarDay } from '../calendar-day.ts';

// The inputs of issue 18 (`topic`, `after`/`before`, `keepUndated`, `safeSearch`, `offset`), in one place for
// web_search and image_search. Descriptions are kept short: every tool definition is sent with every model request
// (scripts/tool-schema-size.ts measures it).

/** Most results a call may skip: no provider pages past the 100th result of Google's. */
export const MAX_OFFSET = 100;

/** A calendar day, `YYYY-MM-DD` (checked by a rule, not a JSON Schema `pattern`: the description says the form). */
const day = (description: string) =>
  z
    .string()
    .refine(isCalendarDay, {
      message: 'must be a calendar date as YYYY-MM-DD',
      params: { format: 'a calendar date as YYYY-MM-DD' },
    })
    .describe(description);

/** `safeSearch` of web_search and image_search; the default is the config's `search.safeSearch`. */
export const safeSearchInput = z
  .enum(['off', 'moderate', 'strict'])
  .describe('Adult-content filter (default moderate).');

/** web_search's fields for news, date ranges, safe search and paging. */
export const searchParameterFields = {
  topic: z.enum(['general', 'news']).describe('news: articles with date and publication.'),
  after: day('Only results published on or after this date (YYYY-MM-DD).'),
  before: day('On or before this date (YYYY-MM-DD).'),
  keepUndated: z.boolean().describe('With after/before: keep results that have no date.'),
  safeSearch: safeSearchInput,
  offset: z.number().int().min(0).max(MAX_OFFSET).describe('Skip this many results (the next page).'),
};

/** The rules between the fields: a range runs forwards, and is not mixed with `freshness`. */
export function checkSearchParameters(
  input: { after?: string | undefined; before?: string | undefined; freshness?: string | undefined },
  context: z.RefinementCtx,
): void {
  const { after, before, freshness } = input;
  if (after !== undefined && before !== undefined && after > before)
    context.addIssue({
      code: 'custom',
      path: ['before'],
      params: { order: 'must not be earlier than', with: 'after' },
      message: `must not be earlier than after (${after})`,
    });
  if (freshness !== undefined && (after !== undefined || before !== undefined))
    context.addIssue({
      code: 'custom',
      path: [after !== undefined ? 'after' : 'before'],
      params: { excludes: 'freshness' },
      message: 'cannot be combined with freshness: give a date range or a freshness window',
    });
}
