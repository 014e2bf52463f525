import type { ErrorCode, PeriscopeError } from '../errors.ts';

/**
 * One sentence per code: what happened, and what the model can do next.
 * The error's own message (which names the URL, status or limit) is appended after it.
 */
const SENTENCES: Record<ErrorCode, string> = {
  INVALID_INPUT: 'The tool call had invalid arguments; fix them as described and call again.',
  CONFIG_INVALID: 'Periscope is misconfigured; tell the user, since retrying will not help.',
  NOT_CONFIGURED: 'This provider has no API key configured; use another provider or tool.',
  URL_BLOCKED:
    'That URL points to a private, local or non-web address and cannot be fetched; do not retry it, use a public http(s) URL.',
  ROBOTS_DISALLOWED: "The site's robots.txt forbids fetching this page; use another source.",
  HTTP_STATUS: 'The server answered with an error status; check the URL, or try another source.',
  NETWORK: 'The site could not be reached; retry once later, or use another source.',
  TIMEOUT: 'The request took too long and was stopped; retry once, or use another source.',
  BODY_TOO_LARGE:
    'The response was larger than allowed and was not read; use a more specific URL or another source.',
  UNSUPPORTED_CONTENT:
    'The content type is not something that can be turned into readable text; use another source.',
  EMPTY_CONTENT:
    'The page had no readable text; a JavaScript application needs a browser back-end to render, so use one if it is configured, or try another source.',
  BLOCKED_BY_SITE:
    'The site is blocking automated access right now (a CAPTCHA or challenge page); try again later or use another source.',
  RATE_LIMITED:
    'Too many calls right now; do not retry at once: answer from what you already have, or wait the time given below before calling again.',
  CREDITS_EXHAUSTED:
    'This agent does not have enough credits left for this call (balance and cost below); answer from what you already have, or tell the user that more credits are needed. Retrying will not help until credits are granted.',
  REPEATED_LOOKUP:
    'You already made this exact lookup in this session; use the results you already have instead of repeating it (change the query or URL only if you need something different).',
  ALL_FAILED:
    'Every provider failed (this is not an empty result); see the reasons below, and answer from what you have or try again later.',
  ABORTED: 'The call was cancelled.',
};

/** Sentences for one provider's failure, where its own wording helps more than the generic one. */
const PROVIDER_SENTENCES: Record<string, Partial<Record<ErrorCode, string>>> = {
  duckduckgo: {
    BLOCKED_BY_SITE:
      'DuckDuckGo is blocking automated queries right now (a bot check, not an empty result); try again in a minute or two, or answer from what you already have.',
    RATE_LIMITED:
      'DuckDuckGo is rate-limiting automated queries right now (not an empty result); try again in a minute or two, or answer from what you already have.',
  },
};

/** A store outage (`details.reason: 'store_unavailable'`): the controls refused the call rather than skip it. */
const STORE_UNAVAILABLE_SENTENCE =
  "Periscope's state store (rate limits, credits, repeat checks) is unavailable, so the call was refused rather than run unchecked; tell the user, and try again in a minute.";

export function describeForModel(error: PeriscopeError): string {
  const provider = typeof error.details.provider === 'string' ? error.details.provider : undefined;
  const sentence =
    (error.details.reason === 'store_unavailable' && STORE_UNAVAILABLE_SENTENCE) ||
    (provider && PROVIDER_SENTENCES[provider]?.[error.code]) ||
    SENTENCES[error.code];
  const lines = [sentence, `Error ${error.code}: ${error.message}`];
  if (error.retryAfterMs !== undefined)
    lines.push(`Retry after about ${Math.ceil(error.retryAfterMs / 1000)} s.`);
  return lines.join('\n');
}
