import robotsParserModule from 'robots-parser';
import { isPeriscopeError, PeriscopeError } from '../errors.ts';
import { throwForStatus } from '../net/http-status.ts';
import type { HttpFetch } from '../net/types.ts';
import { redactUrl } from '../net/url-policy.ts';

/** RFC 9309 §2.5: parse at least 500 KiB; what is past it is ignored. */
const ROBOTS_MAX_BYTES = 512_000;
/** RFC 9309 §2.4: a cached robots.txt should not be used for more than 24 hours. */
const ALLOW_TTL_MS = 24 * 60 * 60 * 1000;
/** A robots.txt that answered but cannot be used (too large, a refused redirect) is asked again after this long. */
const UNREADABLE_TTL_MS = 60_000;
/** Origins remembered at once; the oldest go first. */
const MAX_ORIGINS = 1_000;

interface RobotsRules {
  isAllowed(url: string, userAgent?: string): boolean | undefined;
  getMatchingLineNumber(url: string, userAgent?: string): number;
}
type RobotsParser = (url: string, text: string) => RobotsRules;
/** robots-parser is CommonJS (`module.exports = fn`) with an ESM-style `export default` declaration. */
const robotsParser: RobotsParser =
  typeof robotsParserModule === 'function'
    ? (robotsParserModule as RobotsParser)
    : (robotsParserModule as unknown as { default: RobotsParser }).default;

type Verdict = (
  | { kind: 'rules'; rules: RobotsRules; lines: string[]; robotsUrl: string }
  | { kind: 'allow-all'; why: string }
  | { kind: 'unreadable'; why: string; robotsUrl: string }
) & {
  /** How long the answer may be used (its Cache-Control, at most 24 hours); unset: the default for its kind. */
  ttlMs?: number;
};

/** The robots.txt request failed because the site is down or refusing: the call fails with it (not cached). */
const SITE_FAILURES: ReadonlySet<string> = new Set(['NETWORK', 'TIMEOUT', 'HTTP_STATUS', 'RATE_LIMITED']);

export interface RobotsCheckerSettings {
  httpFetch: HttpFetch;
  /** The user agent whose product token (`Periscope` of `Periscope/0.1 (+…)`) selects the group. */
  userAgent: string;
  timeoutMs: number;
  now?: () => number;
}

export interface RobotsChecker {
  /**
   * Throws ROBOTS_DISALLOWED (naming the rule) when robots.txt forbids the URL or cannot be used; NETWORK, TIMEOUT,
   * HTTP_STATUS (5xx) or RATE_LIMITED (429) when the site could not give it.
   */
  check(url: URL, signal: AbortSignal): Promise<void>;
}

/**
 * robots.txt, read once per origin through the guarded client with a short timeout and cached (RFC 9309):
 * 2xx → its rules for our product token, else `*`; 4xx → no restrictions (the file is "unavailable").
 * A site that cannot give its robots.txt — connection refused, a timeout, 5xx, 429 — is a site that is down or
 * refusing: RFC 9309 §2.3.1.4 says not to crawl it then, and we do not (never allow-all), but the call fails as
 * what happened (NETWORK, TIMEOUT, HTTP_STATUS with the status, RATE_LIMITED), so it is refunded like any call to
 * a site that is down (decision 0008), and nothing is cached: the next call asks again. A robots.txt that answered
 * but cannot be used (larger than 512 KB, a redirect the URL policy refuses) is ROBOTS_DISALLOWED, remembered for
 * a minute; rules and allow-all for 24 hours, or less when its Cache-Control says so (`cacheControlTtl`).
 */
export function createRobotsChecker(settings: RobotsCheckerSettings): RobotsChecker {
  const now = settings.now ?? Date.now;
  const token = productToken(settings.userAgent);
  const cache = new Map<string, { verdict: Promise<Verdict>; expiresAt: number }>();

  function verdictFor(origin: string): Promise<Verdict> {
    const cached = cache.get(origin);
    if (cached && cached.expiresAt > now()) return cached.verdict;
    cache.delete(origin);
    const entry = { verdict: readRobots(origin), expiresAt: Number.POSITIVE_INFINITY };
    cache.set(origin, entry);
    for (const oldest of cache.keys()) {
      if (cache.size <= MAX_ORIGINS) break;
      cache.delete(oldest);
    }
    entry.verdict.then(
      (verdict) => {
        const defaultTtl = verdict.kind === 'unreadable' ? UNREADABLE_TTL_MS : ALLOW_TTL_MS;
        entry.expiresAt = now() + (verdict.ttlMs ?? defaultTtl);
      },
      () => {
        if (cache.get(origin) === entry) cache.delete(origin);
      },
    );
    return entry.verdict;
  }

  /** Not tied to one caller's signal: callers share it, and `timeoutMs` bounds it. */
  async function readRobots(origin: string): Promise<Verdict> {
    const robotsUrl = `${origin}/robots.txt`;
    try {
      const response = await settings.httpFetch(robotsUrl, {
        headers: { accept: 'text/plain, */*;q=0.5' },
        limits: { totalTimeoutMs: settings.timeoutMs, maxBytes: ROBOTS_MAX_BYTES },
      });
      if (response.status >= 500 || response.status === 429) throwForStatus(response);
      const ttl = cacheControlTtl(response.headers['cache-control']);
      const ttlMs = ttl === undefined ? {} : { ttlMs: ttl };
      if (response.status >= 400) return { kind: 'allow-all', why: `HTTP ${response.status}`, ...ttlMs };
      if (response.status >= 300)
        return { kind: 'allow-all', why: `HTTP ${response.status} without Location`, ...ttlMs };
      const text = Buffer.from(response.body).toString('utf8');
      return {
        kind: 'rules',
        rules: robotsParser(robotsUrl, text),
        lines: text.split(/\r\n|\r|\n/),
        robotsUrl,
        ...ttlMs,
      };
    } catch (error) {
      if (!isPeriscopeError(error)) throw error; // a bug: INTERNAL, not a verdict about the site
      if (error.code === 'TIMEOUT') {
        throw new PeriscopeError(
          'TIMEOUT',
          `${robotsUrl} did not answer within ${settings.timeoutMs} ms (fetch.robotsTimeoutMs)`,
          {
            cause: error,
            details: { phase: 'total', limit: 'robotsTimeoutMs', limitValue: settings.timeoutMs },
          },
        );
      }
      if (SITE_FAILURES.has(error.code)) throw error;
      if (error.code === 'BODY_TOO_LARGE') {
        return { kind: 'unreadable', why: 'larger than 512 KB', robotsUrl };
      }
      return { kind: 'unreadable', why: `${error.code}: ${error.message}`, robotsUrl };
    }
  }

  /** The site could not give its robots.txt: the call fails with that failure, naming the page not fetched. */
  function siteFailure(error: PeriscopeError, url: URL, shown: string): PeriscopeError {
    const robotsUrl = `${url.origin}/robots.txt`;
    return new PeriscopeError(
      error.code,
      `${error.message}, so ${shown} was not fetched (its robots.txt could not be read)`,
      {
        cause: error,
        retryable: error.retryable,
        retryAfterMs: error.retryAfterMs,
        details: { ...error.details, url: shown, robotsUrl, reason: 'robots-unreachable' },
      },
    );
  }

  return {
    async check(url, signal) {
      const shown = redactUrl(url);
      let verdict: Verdict;
      try {
        verdict = await untilAborted(verdictFor(url.origin), signal);
      } catch (error) {
        if (signal.aborted || !isPeriscopeError(error) || !SITE_FAILURES.has(error.code)) throw error;
        throw siteFailure(error, url, shown);
      }
      if (verdict.kind === 'allow-all') return;
      if (verdict.kind === 'unreadable') {
        throw new PeriscopeError(
          'ROBOTS_DISALLOWED',
          `${verdict.robotsUrl} could not be used (${verdict.why}); a robots.txt that cannot be read counts as disallow (RFC 9309), so ${shown} was not fetched`,
          {
            retryable: false,
            details: { url: shown, reason: 'robots-unreadable', robotsUrl: verdict.robotsUrl },
          },
        );
      }
      const target = withoutCredentials(url);
      if (verdict.rules.isAllowed(target, token) !== false) return;
      const lineNumber = verdict.rules.getMatchingLineNumber(target, token);
      const rule = lineNumber > 0 ? verdict.lines[lineNumber - 1]?.trim() : undefined;
      const named = rule ? `"${rule}" (line ${lineNumber})` : 'a Disallow rule';
      throw new PeriscopeError(
        'ROBOTS_DISALLOWED',
        `${verdict.robotsUrl} disallows ${shown} for ${token}: ${named}`,
        {
          retryable: false,
          details: {
            url: shown,
            reason: 'robots-disallowed',
            robotsUrl: verdict.robotsUrl,
            userAgent: token,
            ...(rule ? { rule, line: lineNumber } : {}),
          },
        },
      );
    },
  };
}

/**
 * How long a robots.txt answer may be used, from its Cache-Control (RFC 9309 §2.4 allows standard cache control,
 * RFC 9111): `no-store` or `no-cache` → 0 (read again by the next call; calls at the same time still share one
 * read); `max-age` (or `s-maxage`, which wins for a shared cache) → that many seconds, at most 24 hours; otherwise
 * undefined (the default for the answer's kind: 24 hours).
 */
export function cacheControlTtl(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const directives = new Map<string, string>();
  for (const part of header.toLowerCase().split(',')) {
    const [name = '', value = ''] = part.trim().split('=', 2);
    if (name !== '') directives.set(name, value.replace(/^"|"$/g, ''));
  }
  if (directives.has('no-store') || directives.has('no-cache')) return 0;
  const seconds = directives.get('s-maxage') ?? directives.get('max-age');
  if (seconds === undefined || !/^\d+$/.test(seconds)) return undefined;
  return Math.min(ALLOW_TTL_MS, Number(seconds) * 1000);
}

/** `Periscope/0.1 (+https://…)` → `Periscope`. */
export function productToken(userAgent: string): string {
  return /^[A-Za-z0-9_-]+/.exec(userAgent.trim())?.[0] ?? '*';
}

function withoutCredentials(url: URL): string {
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  copy.hash = '';
  return copy.href;
}

/** The promise, or the signal's reason as soon as it aborts (the shared robots.txt read goes on for others). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
