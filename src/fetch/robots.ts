import robotsParserModule from 'robots-parser';
import { isPeriscopeError, PeriscopeError } from '../errors.ts';
import type { HttpFetch } from '../net/types.ts';
import { redactUrl } from '../net/url-policy.ts';

/** RFC 9309 §2.5: parse at least 500 KiB; what is past it is ignored. */
const ROBOTS_MAX_BYTES = 512_000;
/** RFC 9309 §2.4: a cached robots.txt should not be used for more than 24 hours. */
const ALLOW_TTL_MS = 24 * 60 * 60 * 1000;
/** An unreachable robots.txt (5xx, timeout) is asked again after this long. */
const UNREACHABLE_TTL_MS = 60_000;
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

type Verdict =
  | { kind: 'rules'; rules: RobotsRules; lines: string[]; robotsUrl: string }
  | { kind: 'allow-all'; why: string }
  | { kind: 'unreachable'; why: string; robotsUrl: string };

export interface RobotsCheckerSettings {
  httpFetch: HttpFetch;
  /** The user agent whose product token (`Periscope` of `Periscope/0.1 (+…)`) selects the group. */
  userAgent: string;
  timeoutMs: number;
  now?: () => number;
}

export interface RobotsChecker {
  /** Throws ROBOTS_DISALLOWED (naming the rule) when robots.txt forbids the URL or cannot be read. */
  check(url: URL, signal: AbortSignal): Promise<void>;
}

/**
 * robots.txt, read once per origin through the guarded client with a short timeout and cached (RFC 9309):
 * 2xx → its rules for our product token, else `*`; 4xx → no restrictions (the file is "unavailable");
 * 5xx, 429, a timeout or a network failure → "unreachable", which RFC 9309 §2.3.1.4 says to read as complete
 * disallow — never as allow-all. Unreachable answers are cached for a minute, others for 24 hours.
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
        entry.expiresAt = now() + (verdict.kind === 'unreachable' ? UNREACHABLE_TTL_MS : ALLOW_TTL_MS);
      },
      () => cache.delete(origin),
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
      if (response.status >= 500 || response.status === 429) {
        return { kind: 'unreachable', why: `HTTP ${response.status}`, robotsUrl };
      }
      if (response.status >= 400) return { kind: 'allow-all', why: `HTTP ${response.status}` };
      if (response.status >= 300)
        return { kind: 'allow-all', why: `HTTP ${response.status} without Location` };
      const text = Buffer.from(response.body).toString('utf8');
      return {
        kind: 'rules',
        rules: robotsParser(robotsUrl, text),
        lines: text.split(/\r\n|\r|\n/),
        robotsUrl,
      };
    } catch (error) {
      if (isPeriscopeError(error) && error.code === 'BODY_TOO_LARGE') {
        return { kind: 'unreachable', why: 'larger than 512 KB', robotsUrl };
      }
      const why = isPeriscopeError(error) ? `${error.code}: ${error.message}` : String(error);
      return { kind: 'unreachable', why, robotsUrl };
    }
  }

  return {
    async check(url, signal) {
      const verdict = await untilAborted(verdictFor(url.origin), signal);
      if (verdict.kind === 'allow-all') return;
      const shown = redactUrl(url);
      if (verdict.kind === 'unreachable') {
        throw new PeriscopeError(
          'ROBOTS_DISALLOWED',
          `${verdict.robotsUrl} could not be read (${verdict.why}); an unreachable robots.txt counts as disallow (RFC 9309), so ${shown} was not fetched`,
          {
            retryable: true,
            details: { url: shown, reason: 'robots-unreachable', robotsUrl: verdict.robotsUrl },
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
