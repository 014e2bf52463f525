import { z } from 'zod';
import { domainPatternIssue } from '../egress/domain-check.ts';

/** Most domains one call may list in `allowedDomains` or `blockedDomains`. */
export const MAX_CALL_DOMAINS = 20;

const domainPattern = z
  .string()
  .min(1)
  .max(260)
  .superRefine((text, context) => {
    const issue = domainPatternIssue(text);
    if (issue !== undefined) context.addIssue({ code: 'custom', message: issue });
  });

/** `allowedDomains` and `blockedDomains` of web_search and image_search: narrow the deployment's, never widen. */
export const domainInputFields = {
  allowedDomains: z
    .array(domainPattern)
    .min(1)
    .max(MAX_CALL_DOMAINS)
    .optional()
    .describe(
      'Only results from these domains and their subdomains, e.g. ["python.org"]; "=host": that host only.',
    ),
  blockedDomains: z
    .array(domainPattern)
    .min(1)
    .max(MAX_CALL_DOMAINS)
    .optional()
    .describe('No results from these domains.'),
};
