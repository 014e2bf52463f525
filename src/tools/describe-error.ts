import { wrapUntrusted } from '../content/untrusted-envelope.ts';
import type { ErrorCode, ErrorReason, PeriscopeError, ReasonsByCode } from '../errors.ts';

/**
 * The sentence for one code, in two forms: `retryable` invites the model to make the same call again, `final` says
 * that doing so will not help. Which one the model reads is decided by the error's own `retryable` flag, so the
 * sentence and the flag can never disagree (describe-error.test.ts checks every code both ways).
 */
interface Sentence {
  retryable: string;
  final: string;
}

/**
 * One sentence per code: what happened, and what the model can do next.
 * The error's own message (which names the URL, status or limit) is appended after it.
 */
const SENTENCES: Record<ErrorCode, Sentence> = {
  INVALID_INPUT: {
    retryable: 'The tool call had invalid arguments; fix them as described and retry.',
    final:
      'The tool call had invalid arguments; retrying the same call will not help, fix them as described.',
  },
  CONFIG_INVALID: {
    retryable: 'Periscope is misconfigured; tell the user, and retry once later.',
    final: 'Periscope is misconfigured; tell the user, since retrying will not help.',
  },
  NOT_CONFIGURED: {
    retryable:
      'This provider is not configured right now; retry once later, or use another provider or tool.',
    final: 'This provider has no API key configured; retrying will not help, use another provider or tool.',
  },
  URL_BLOCKED: {
    retryable:
      'That URL could not be checked as a public web address right now; retry once later, or use a public http(s) URL.',
    final:
      'That URL points to a private, local or non-web address and cannot be fetched; do not retry it, use a public http(s) URL.',
  },
  ROBOTS_DISALLOWED: {
    retryable:
      "The site's robots.txt keeps this page from being fetched right now; retry once later, or use another source.",
    final: "The site's robots.txt forbids fetching this page; retrying will not help, use another source.",
  },
  HTTP_STATUS: {
    retryable: 'The server answered with an error status; retry once later, or try another source.',
    final:
      'The server answered with an error status; retrying will not help, check the URL or try another source.',
  },
  NETWORK: {
    retryable: 'The site could not be reached; retry once later, or use another source.',
    final: 'The site could not be reached; retrying will not help, use another source.',
  },
  TIMEOUT: {
    retryable: 'The request took too long and was stopped; retry once, or use another source.',
    final: 'The request took too long and was stopped; retrying will not help, use another source.',
  },
  BODY_TOO_LARGE: {
    retryable:
      'The response was larger than allowed and was not read; retry once, or use a more specific URL or another source.',
    final:
      'The response was larger than allowed and was not read; retrying will not help, use a more specific URL or another source.',
  },
  UNSUPPORTED_CONTENT: {
    retryable:
      'The content type is not something that can be turned into readable text; retry once later, or use another source.',
    final:
      'The content type is not something that can be turned into readable text; retrying will not help, use another source.',
  },
  EMPTY_CONTENT: {
    retryable:
      'The page had no readable text; retry once later, or, for a JavaScript application that needs a browser back-end to render, use one if it is configured, or try another source.',
    final:
      'The page had no readable text; retrying will not help: a JavaScript application needs a browser back-end to render, so use one if it is configured, or try another source.',
  },
  BLOCKED_BY_SITE: {
    retryable:
      'The site is blocking automated access right now (a CAPTCHA or challenge page); try again later or use another source.',
    final:
      'The site is blocking automated access (a CAPTCHA or challenge page); retrying will not help, use another source.',
  },
  RATE_LIMITED: {
    retryable:
      'Too many calls right now; do not retry at once: answer from what you already have, or wait the time given below before calling again.',
    final: 'Too many calls right now; retrying will not help, answer from what you already have.',
  },
  CREDITS_EXHAUSTED: {
    retryable:
      'This agent does not have enough credits left for this call (balance and cost below); answer from what you already have, or retry later once the user has granted more credits.',
    final:
      'This agent does not have enough credits left for this call (balance and cost below); answer from what you already have, or tell the user that more credits are needed. Retrying will not help until credits are granted.',
  },
  REPEATED_LOOKUP: {
    retryable:
      'You already made this exact lookup in this session; use the results you already have, and retry later only if you really need it again.',
    final:
      'You already made this exact lookup in this session; use the results you already have instead of repeating it, since retrying will not help (change the query or URL only if you need something different).',
  },
  ALL_FAILED: {
    retryable:
      'Every provider failed (this is not an empty result); see the reasons below, and answer from what you have or try again later.',
    final:
      'Every provider failed (this is not an empty result); see the reasons below: retrying will not help, so answer from what you have.',
  },
  ABORTED: {
    retryable: 'The call was cancelled; retry it if you still need it.',
    final: 'The call was cancelled; do not retry it unless you are asked to.',
  },
  INTERNAL: {
    retryable:
      'Periscope failed internally (not the site, and not your request); retry once, and tell the user if it fails again.',
    final:
      'Periscope failed internally (not the site, and not your request: a bug); retrying will not help, tell the user, and use another source meanwhile.',
  },
  POLICY_DENIED: {
    retryable:
      "This deployment's policy refused the call before anything was sent; retry once later, or answer from what you already have.",
    final:
      "This deployment's policy refused the call before anything was sent; retrying will not help, and do not try to get around it: answer from what you already have.",
  },
};

/**
 * POLICY_DENIED per `details.reason`: what the model should do instead of the refused call. Egress refusals are
 * never retryable (src/egress/policy-denied.ts), so `retryable` forms only keep the sentence and a hand-made flag
 * in agreement.
 */
const POLICY_DENIED_SENTENCES: Record<ReasonsByCode['POLICY_DENIED'], Sentence> = {
  domain: {
    retryable:
      'This deployment does not let you reach that domain; retry once later, or use a source on a domain you may reach.',
    final:
      'This deployment does not let you reach that domain; retrying will not help, and do not try to reach it another way: use a source on a domain you may reach (search again, narrowed to those).',
  },
  'not-seen': {
    retryable:
      'web_fetch here only takes URLs that came from this task; retry once with a URL from a search result or a page you read.',
    final:
      'web_fetch here only takes URLs that came from this task (search results, links on pages you read, the task itself), not URLs you build; retrying will not help: search for the page with web_search and fetch a result URL as given.',
  },
  secret: {
    retryable:
      'The query or URL contained something that looks like a secret, so it was not sent; retry once without it.',
    final:
      'The query or URL contained something that looks like a secret (a key, token or password), so it was not sent; do not retry it: never put credentials or private data into a query or URL, rephrase without them.',
  },
  budget: {
    retryable: "This session's budget for this tool is used up; retry later only if the user raises it.",
    final:
      "This session's budget for this tool is used up; retrying will not help, answer from what you already have.",
  },
  hook: {
    retryable:
      'The person or program overseeing these calls refused this one (the reason follows); retry once later, or answer from what you already have.',
    final:
      'The person or program overseeing these calls refused this one (the reason follows); retrying will not help, and do not try to get around it: follow the reason, or answer from what you already have.',
  },
};

/** Sentences for one provider's failure, where its own wording helps more than the generic one. */
const PROVIDER_SENTENCES: Record<string, Partial<Record<ErrorCode, Sentence>>> = {
  duckduckgo: {
    BLOCKED_BY_SITE: {
      retryable:
        'DuckDuckGo is blocking automated queries right now (a bot check, not an empty result); try again in a minute or two, or answer from what you already have.',
      final:
        'DuckDuckGo is blocking automated queries right now (a bot check, not an empty result); retrying will not help, answer from what you already have.',
    },
    RATE_LIMITED: {
      retryable:
        'DuckDuckGo is rate-limiting automated queries right now (not an empty result); try again in a minute or two, or answer from what you already have.',
      final:
        'DuckDuckGo is rate-limiting automated queries right now (not an empty result); retrying will not help, answer from what you already have.',
    },
  },
};

/** A store outage (`details.reason: 'store-unavailable'`): the controls refused the call rather than skip it. */
const STORE_UNAVAILABLE_SENTENCE: Sentence = {
  retryable:
    "Periscope's state store (rate limits, credits, repeat checks) is unavailable, so the call was refused rather than run unchecked; tell the user, and try again in a minute.",
  final:
    "Periscope's state store (rate limits, credits, repeat checks) is unavailable, so the call was refused rather than run unchecked; retrying will not help until it is fixed, tell the user.",
};

/** Codes whose messages are Periscope's own words, whoever reported them. */
const OWN_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'INVALID_INPUT',
  'CONFIG_INVALID',
  'NOT_CONFIGURED',
  'URL_BLOCKED',
  'ROBOTS_DISALLOWED',
  'CREDITS_EXHAUSTED',
  'REPEATED_LOOKUP',
  'ABORTED',
  'INTERNAL',
  'POLICY_DENIED',
]);

/** RATE_LIMITED reasons that are Periscope's own limits, not a server's answer. */
const OWN_RATE_LIMITS: ReadonlySet<ErrorReason> = new Set<ErrorReason>([
  'agent-rate-limit',
  'overloaded',
  'queue',
]);

/**
 * Whether the message may quote a server — a status line's reason phrase, a provider's or reader service's error
 * detail, a block page — or gather such messages: every HTTP_STATUS, BLOCKED_BY_SITE and ALL_FAILED, a
 * RATE_LIMITED that is not one of Periscope's own limits, and any other failure a provider or back-end reported
 * (`details.provider`). The model reads such a message inside the untrusted-content envelope, as it reads a page.
 */
export function quotesServer(error: PeriscopeError): boolean {
  if (error.details.reason === 'store-unavailable') return false;
  if (error.code === 'ALL_FAILED') return !gathersOwnWordsOnly(error.details.attempts);
  if (error.code === 'HTTP_STATUS' || error.code === 'BLOCKED_BY_SITE') return true;
  if (error.code === 'RATE_LIMITED') return !OWN_RATE_LIMITS.has(error.details.reason as ErrorReason);
  return typeof error.details.provider === 'string' && !isOwnWords(error.code, error.details.reason);
}

/**
 * Periscope's own words whoever reported them: the own codes, a timeout (the client's clock), and a DNS failure
 * (`dns-*`: the resolver's answer, as Periscope words it: `host "x" does not exist (NXDOMAIN)`). Other NETWORK
 * messages may carry a server's text (a TLS certificate's names).
 */
function isOwnWords(code: ErrorCode | undefined, reason: unknown): boolean {
  if (code === undefined) return false;
  if (OWN_CODES.has(code) || code === 'TIMEOUT') return true;
  return code === 'NETWORK' && typeof reason === 'string' && reason.startsWith('dns-');
}

/** An ALL_FAILED whose every failed attempt is in Periscope's own words (offline: every host not found). */
function gathersOwnWordsOnly(attempts: unknown): boolean {
  if (!Array.isArray(attempts)) return false;
  const failed = (attempts as Array<{ outcome?: string; code?: ErrorCode; reason?: unknown }>).filter(
    (attempt) => attempt.outcome === 'failed',
  );
  return failed.length > 0 && failed.every((attempt) => isOwnWords(attempt.code, attempt.reason));
}

export function describeForModel(error: PeriscopeError): string {
  const provider = typeof error.details.provider === 'string' ? error.details.provider : undefined;
  const sentence =
    (error.details.reason === 'store-unavailable' && STORE_UNAVAILABLE_SENTENCE) ||
    (error.code === 'POLICY_DENIED' &&
      POLICY_DENIED_SENTENCES[error.details.reason as ReasonsByCode['POLICY_DENIED']]) ||
    (provider && PROVIDER_SENTENCES[provider]?.[error.code]) ||
    SENTENCES[error.code];
  const lines = [error.retryable ? sentence.retryable : sentence.final];
  if (quotesServer(error)) {
    const source = typeof error.details.url === 'string' ? error.details.url : (provider ?? 'server');
    lines.push(`Error ${error.code}, quoting the server:`, wrapUntrusted(error.message, source).text);
  } else lines.push(`Error ${error.code}: ${error.message}`);
  // A wait is advice to retry after it: given only with a retryable error, so it cannot contradict the flag.
  if (error.retryable && error.retryAfterMs !== undefined)
    lines.push(`Retry after about ${Math.ceil(error.retryAfterMs / 1000)} s.`);
  return lines.join('\n');
}
