import { z } from 'zod';
import { parseDomainPattern } from '../net/domain-pattern.ts';

/** A list of domain patterns, each checked (src/net/domain-pattern.ts): a bad one is CONFIG_INVALID, named. */
const domainList = (description: string) =>
  z
    .array(
      z.string().superRefine((text, context) => {
        const parsed = parseDomainPattern(text);
        if ('error' in parsed) context.addIssue({ code: 'custom', message: parsed.error });
      }),
    )
    .default([])
    .describe(description);

/**
 * `egress`: where an agent's traffic may go (issue 17), decided before anything leaves (src/egress/). Every key has
 * a CLI flag twin (src/surfaces/cli/egress-flags.ts).
 */
export const egressSchema = z
  .strictObject({
    domains: z
      .strictObject({
        allow: domainList(
          'Domain patterns calls may reach: `example.com` (with its subdomains), `*.example.com` (subdomains only), `=www.example.com` (that host only); IDN in Unicode or punycode. Non-empty: nothing else. Empty: any domain not blocked.',
        ),
        block: domainList(
          'Domain patterns calls may never reach (same forms as `allow`); a block wins over an allow.',
        ),
        assets: domainList(
          "Domains a page fetched in the browser back-end may load sub-resources (scripts, styles, XHR) from although `allow` or `block` would refuse them (a CDN): the operator's exception, for sub-resources only, never pages; an API key's or a call's block still applies.",
        ),
      })
      .prefault({})
      .describe(
        'The domain policy of web_fetch (the URL, every redirect hop, reader services, the browser and its sub-requests) and of search results. An API key and a call can only narrow it. A refusal is POLICY_DENIED `domain`: no request sent, no credit charged.',
      ),
    seenUrlsOnly: z
      .boolean()
      .default(false)
      .describe(
        'web_fetch takes only URLs that came from the task: results of earlier searches in the session, links of pages fetched in it, the task input. Else POLICY_DENIED `not-seen`.',
      ),
    secretScan: z
      .strictObject({
        enabled: z
          .boolean()
          .default(true)
          .describe(
            'Scan every search query and fetch URL before it leaves for credential formats and the literal values of secrets Periscope knows; a hit is POLICY_DENIED `secret`.',
          ),
        entropy: z
          .boolean()
          .default(false)
          .describe('Also refuse long high-entropy tokens (more false positives on hashes and ids).'),
      })
      .prefault({})
      .describe('Secret scanning of what goes out.'),
    beforeCallWebhook: z
      .strictObject({
        url: z
          .string()
          .regex(/^https?:\/\/\S+$/i, 'an http(s) URL')
          .describe(
            'Where each call is POSTed as JSON (`tool`, `input`, `agentId`, `sessionId`) before it runs; the answer `{"allow": true}` lets it run, `{"allow": false, "reason": "…"}` refuses it (POLICY_DENIED `hook`, the reason shown to the model). Operator config, so it may be a private or local address (your own approval service); http or https only.',
          ),
        timeoutMs: z
          .number()
          .int()
          .min(1)
          .max(600_000)
          .default(5000)
          .describe('How long a call waits for the answer, in ms (1–600 000); then `onFailure` decides.'),
        onFailure: z
          .enum(['allow', 'deny'])
          .default('deny')
          .describe(
            'What a call gets when the webhook does not answer in time, answers with an error status or with something that is not a decision: `deny` (refused, the default) or `allow`.',
          ),
        headers: z
          .record(z.string(), z.string())
          .default({})
          .describe(
            'Request headers sent with each call (an `Authorization` for your service: `${APPROVAL_TOKEN}`).',
          ),
      })
      .optional()
      .describe(
        "A person or program in the loop: a webhook asked to allow or refuse every tool call, after the other egress checks (nothing is asked about a call they refuse). Unset: none. The library's own is `createPeriscope(config, { beforeCall })`.",
      ),
  })
  .prefault({})
  .describe(
    'Where agent traffic may go: domain policy, the seen-URL rule, secret scanning, an approval webhook. Refusals are POLICY_DENIED, never charged.',
  );

export type EgressConfig = z.infer<typeof egressSchema>;
