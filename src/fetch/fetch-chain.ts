import type { CallContext } from '../call-context.ts';
import type { EgressPurpose } from '../egress/egress-check.ts';
import type { EgressRequestCheck } from '../egress/egress-gate.ts';
import { type ErrorCode, type FetchAttempt, PeriscopeError, toPeriscopeError } from '../errors.ts';
import { redactUrl } from '../net/url-policy.ts';
import { stageEnd, stageStart } from '../stage-timing.ts';
import { credentialReason } from './credential-url.ts';
import type { FetchBackend, FetchedPage, PageRequest } from './fetch-backend.ts';
import type { RobotsChecker } from './robots.ts';
import type { UrlPreflight } from './url-preflight.ts';

export interface FetchChainSettings {
  /** In the order they are tried. */
  backends: readonly FetchBackend[];
  /** `fetch.thirdParty`: false skips every reader. */
  thirdParty: boolean;
  /** The URL policy (literal host and every DNS answer); throws URL_BLOCKED, else says whether the URL is internal. */
  preflight: UrlPreflight;
  /** `fetch.robots: respect`; absent when robots.txt is ignored. */
  robots?: RobotsChecker | undefined;
}

/** The page, with the back-end that returned it and every rung's part. */
export type FetchChainResult = FetchedPage & { backend: string; attempts: FetchAttempt[] };

/** One rung of the chain as `status()` shows it: where it stands, what it is, whether it can be used now. */
export interface FetchBackendStatus {
  id: string;
  /** 1 for the first rung tried. */
  position: number;
  kind: 'origin' | 'reader';
  rendersJavaScript: boolean;
  /** Why every call skips it (no key, no browser, `fetch.thirdParty: false`), or null when it can be asked. */
  unavailable: string | null;
}

export interface FetchChain {
  readonly ids: readonly string[];
  /** The back-ends in order, read now without a request. */
  status(): FetchBackendStatus[];
  fetch(request: PageRequest, context: CallContext): Promise<FetchChainResult>;
  /** Closes what the back-ends hold (the browser). */
  close(): Promise<void>;
}

/** Failures that end the call wherever they come from: the chain never moves on from these. */
const STOP_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'URL_BLOCKED',
  'POLICY_DENIED',
  'ROBOTS_DISALLOWED',
  'INVALID_INPUT',
  'CONFIG_INVALID',
  'ABORTED',
]);

type Step = 'stop' | 'fallback' | 'escalate';
/** Why the chain is looking for a rung that runs JavaScript, and the failure that sent it there. */
type Escalation = { code: ErrorCode; why: string };
/** Why this URL stays with the origin back-ends (local, browser): it carries credentials, or names an internal host. */
type Privacy = { reason: 'credentials-in-url' | 'internal-address'; why: string };

/** Skips for the privacy rules carry this code; the chain's failure, when nothing else could run, too. */
const PRIVACY_CODE: ErrorCode = 'URL_BLOCKED';

/**
 * What a failure means for the rest of the chain (docs/decisions/0009-fetch-chain.md):
 * - URL_BLOCKED, POLICY_DENIED, ROBOTS_DISALLOWED, INVALID_INPUT, ABORTED: stop, always.
 * - A reader's failure (refused key, quota, 429, 5xx, timeout, or its own account of the page): the next rung.
 * - From the origin (local, browser): a JavaScript shell escalates to the next rung that runs JavaScript; so does
 *   a bot challenge (BLOCKED_BY_SITE) when a usable browser is still ahead (`rendererAhead`; else it falls back
 *   like other retryable failures); retryable failures (network, timeout, 429/5xx) fall back to the next rung;
 *   anything else (404, unsupported content, too large) is the page's own answer and stops the chain.
 * - INTERNAL (a bug in that back-end) says nothing about the page: the next rung.
 */
export function nextStep(backend: FetchBackend, error: PeriscopeError, rendererAhead = false): Step {
  if (STOP_CODES.has(error.code)) return 'stop';
  if (backend.kind === 'reader' || error.code === 'INTERNAL') return 'fallback';
  if (error.code === 'EMPTY_CONTENT' && error.details.reason === 'javascript-shell') return 'escalate';
  if (error.code === 'BLOCKED_BY_SITE' && rendererAhead) return 'escalate';
  return error.retryable ? 'fallback' : 'stop';
}

/**
 * Runs `web_fetch` over the configured back-ends. Before any back-end is chosen: a URL with a user name or
 * password is refused (INVALID_INPUT, whatever the chain), then the URL policy (a private URL reaches no back-end,
 * not even a reader as a string) and robots.txt. Then each rung in order, with the privacy rules (a URL carrying
 * credential-like query parameters, or naming an internal host that `network.allowPrivateNetwork` opens, never
 * goes to a third-party reader) and `fetch.thirdParty`; every rung's part is an attempt: `ok`, `failed` (with its
 * code, status and reason) or `skipped` (with why).
 */
export function createFetchChain(settings: FetchChainSettings): FetchChain {
  const { backends } = settings;
  return {
    ids: backends.map((backend) => backend.id),
    status: () =>
      backends.map((backend, index) => ({
        id: backend.id,
        position: index + 1,
        kind: backend.kind,
        rendersJavaScript: backend.rendersJavaScript,
        unavailable:
          backend.kind === 'reader' && !settings.thirdParty
            ? 'third-party readers are off (fetch.thirdParty: false)'
            : (backend.unavailableReason() ?? null),
      })),
    async fetch(request, context) {
      refuseUserinfo(request.url);
      let started = stageStart();
      const verdict = await settings.preflight(request.url);
      stageEnd('url-check', started);
      started = stageStart();
      await settings.robots?.check(request.url, context.signal);
      stageEnd('robots', started);
      const privacy = privacyOf(request.url, verdict.internal);
      const attempts: FetchAttempt[] = [];
      const failures: PeriscopeError[] = [];
      let escalation: Escalation | undefined;
      for (const [index, backend] of backends.entries()) {
        const skip = skipReason(backend, settings.thirdParty, privacy, escalation);
        if (skip !== undefined) {
          attempts.push({
            backend: backend.id,
            outcome: 'skipped',
            code: skip.code,
            message: skip.message,
            ms: 0,
          });
          continue;
        }
        const started = performance.now();
        try {
          const page = await fetchThroughEgress(backend, request, context);
          attempts.push({ backend: backend.id, outcome: 'ok', status: page.status, ms: elapsed(started) });
          return { ...page, backend: backend.id, attempts };
        } catch (caught) {
          if (context.signal.aborted) {
            throw new PeriscopeError('ABORTED', 'The call was cancelled.', { cause: caught });
          }
          const error = toPeriscopeError(caught);
          const ms = elapsed(started);
          // A challenge escalates to the browser only: once a browser has had its turn, the rest fall back as usual.
          if (
            escalation?.code === 'BLOCKED_BY_SITE' &&
            backend.kind === 'origin' &&
            backend.rendersJavaScript
          ) {
            escalation = undefined;
          }
          if (error.code === 'NOT_CONFIGURED') {
            attempts.push({
              backend: backend.id,
              outcome: 'skipped',
              code: error.code,
              message: error.message,
              ms,
            });
            continue;
          }
          const status = typeof error.details.status === 'number' ? error.details.status : undefined;
          attempts.push({
            backend: backend.id,
            outcome: 'failed',
            code: error.code,
            message: error.message,
            ...(status === undefined ? {} : { status }),
            ms,
          });
          failures.push(error);
          const rendererAhead = backends
            .slice(index + 1)
            .some(
              (later) =>
                later.kind === 'origin' && later.rendersJavaScript && later.unavailableReason() === undefined,
            );
          const step = nextStep(backend, error, rendererAhead);
          if (step === 'stop') throw withAttempts(error, attempts);
          if (step === 'escalate') {
            escalation ??= {
              code: error.code,
              why:
                error.code === 'BLOCKED_BY_SITE'
                  ? `${backend.id} met a bot challenge`
                  : `${backend.id} found a JavaScript shell`,
            };
          }
        }
      }
      throw withBrowserHint(chainFailure(failures, attempts, escalation, privacy), escalation, backends);
    },
    async close() {
      await Promise.all(backends.map((backend) => backend.close?.()));
    },
  };
}

/**
 * One rung under the call's egress check (src/egress/): an origin back-end's client checks the first hop and every
 * redirect (`page`, `redirect`), and for the browser every navigation and sub-request (`navigation`,
 * `subresource`); a reader is checked with the URL it is handed (`reader`) before it is asked, and with the final
 * URL it reports (`redirect`) before its page is used. A refusal is POLICY_DENIED, which stops the chain.
 */
async function fetchThroughEgress(
  backend: FetchBackend,
  request: PageRequest,
  context: CallContext,
): Promise<FetchedPage> {
  const { egress } = request;
  if (egress === undefined) return backend.fetchPage(request, context);
  if (backend.kind === 'reader') {
    await egress({ url: request.url, purpose: 'reader' });
    const page = await backend.fetchPage(request, context);
    await checkFinalUrl(page, request.url, egress);
    return page;
  }
  const fetch: CallContext['fetch'] = (url, httpRequest = {}) =>
    context.fetch(url, {
      ...httpRequest,
      beforeHop: async (hopUrl, hop, resource) => {
        await httpRequest.beforeHop?.(hopUrl, hop, resource);
        await egress({ url: hopUrl, purpose: hopPurpose(resource, hop) });
      },
    });
  return backend.fetchPage(request, { ...context, fetch });
}

function hopPurpose(resource: 'document' | 'navigation' | 'subresource', hop: number): EgressPurpose {
  if (resource === 'document') return hop === 0 ? 'page' : 'redirect';
  return resource;
}

/** A page's final URL (a reader's own redirects, a cached document's) under the call's egress check. */
export async function checkFinalUrl(
  page: Pick<FetchedPage, 'finalUrl'>,
  asked: URL,
  egress: EgressRequestCheck,
): Promise<void> {
  const final = URL.parse(page.finalUrl);
  if (final === null || final.href === asked.href) return;
  await egress({ url: final, purpose: 'redirect' });
}

/**
 * A user name or password in the URL is refused before anything else, whatever the chain: a reader may never be
 * sent it, and a password in a tool call's argument is one the model should not be handling at all (it would land
 * in transcripts, logs and cache keys). One code, one sentence, telling the model what to do instead.
 */
function refuseUserinfo(url: URL): void {
  if (url.username === '' && url.password === '') return;
  throw new PeriscopeError(
    'INVALID_INPUT',
    `web_fetch does not take a URL with a user name or password in it (user:password@host); call it again with the URL without them: ${redactUrl(url)}`,
    { details: { url: redactUrl(url), reason: 'credentials-in-url' } },
  );
}

function privacyOf(url: URL, internal: string | undefined): Privacy | undefined {
  const credentials = credentialReason(url);
  if (credentials !== undefined) return { reason: 'credentials-in-url', why: credentials };
  if (internal !== undefined) return { reason: 'internal-address', why: internal };
  return undefined;
}

function skipReason(
  backend: FetchBackend,
  thirdParty: boolean,
  privacy: Privacy | undefined,
  escalation: Escalation | undefined,
): { code: ErrorCode; message: string } | undefined {
  if (backend.kind === 'reader' && !thirdParty) {
    return { code: 'NOT_CONFIGURED', message: 'third-party readers are off (fetch.thirdParty: false)' };
  }
  if (backend.kind === 'reader' && privacy !== undefined) {
    return {
      code: PRIVACY_CODE,
      message: `${privacy.why}, and such a URL is never sent to a third-party reader`,
    };
  }
  const unavailable = backend.unavailableReason();
  if (unavailable !== undefined) return { code: 'NOT_CONFIGURED', message: unavailable };
  if (escalation !== undefined && !backend.rendersJavaScript) {
    return {
      code: escalation.code,
      message: `${escalation.why}; escalating to a back-end that runs JavaScript`,
    };
  }
  return undefined;
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}

/** The error with every attempt in its details, when more than one back-end took part. */
function withAttempts(error: PeriscopeError, attempts: FetchAttempt[]): PeriscopeError {
  if (attempts.length <= 1) return error;
  return new PeriscopeError(error.code, error.message, {
    retryable: error.retryable,
    retryAfterMs: error.retryAfterMs,
    details: { ...error.details, attempts },
    cause: error.cause ?? error,
  });
}

function chainFailure(
  failures: readonly PeriscopeError[],
  attempts: FetchAttempt[],
  escalation: Escalation | undefined,
  privacy: Privacy | undefined,
): PeriscopeError {
  const only = failures[0];
  if (failures.length === 1 && only) {
    // A shell with nowhere to escalate to stays EMPTY_CONTENT (its message says a browser is needed).
    return withAttempts(only, attempts);
  }
  const reasons = attempts.map(
    (attempt) => `${attempt.backend} ${attempt.outcome}: ${attempt.message ?? ''}`,
  );
  if (
    failures.length === 0 &&
    privacy !== undefined &&
    attempts.some((attempt) => attempt.code === PRIVACY_CODE)
  ) {
    // Not a deployment without keys: the URL itself may only be fetched from here, and nothing here could.
    return new PeriscopeError(
      PRIVACY_CODE,
      `${privacy.why}, and such a URL is never sent to a third-party reader; only local or browser fetch it, and fetch.chain has none that could (${reasons.join('; ')})`,
      { details: { attempts, reason: privacy.reason } },
    );
  }
  if (failures.length === 0) {
    return new PeriscopeError(
      'NOT_CONFIGURED',
      `no back-end in fetch.chain could take this URL (${reasons.join('; ')})`,
      { details: { attempts, reason: 'no-usable-backend' } },
    );
  }
  const retryAfter = failures
    .map((failure) => failure.retryAfterMs)
    .filter((value): value is number => value !== undefined);
  const why = escalation === undefined ? '' : ` (${escalation.why})`;
  return new PeriscopeError('ALL_FAILED', `every fetch back-end failed${why}: ${reasons.join('; ')}`, {
    retryable: failures.some((failure) => failure.retryable),
    retryAfterMs: retryAfter.length > 0 ? Math.min(...retryAfter) : undefined,
    details: { attempts },
  });
}

/**
 * A JavaScript shell that no rung could render, because the chain has no browser or its browser cannot run: the
 * failure says how to turn one on, by its config key (`details.browser`: `not-in-chain` or `unavailable`; the CLI
 * adds its `--browser` flag for the first).
 */
function withBrowserHint(
  error: PeriscopeError,
  escalation: Escalation | undefined,
  backends: readonly FetchBackend[],
): PeriscopeError {
  const isShell = error.details.reason === 'javascript-shell' || escalation?.code === 'EMPTY_CONTENT';
  if (!isShell) return error;
  const browser = backends.find((backend) => backend.kind === 'origin' && backend.rendersJavaScript);
  const unavailable = browser?.unavailableReason();
  if (browser !== undefined && unavailable === undefined) return error;
  const hint =
    browser === undefined
      ? "to render it, add browser to fetch.chain, e.g. fetch.chain: [local, browser] (it drives the system's Chromium)"
      : `the browser in fetch.chain cannot run: ${unavailable}`;
  return new PeriscopeError(error.code, `${error.message}; ${hint}`, {
    retryable: error.retryable,
    retryAfterMs: error.retryAfterMs,
    details: { ...error.details, browser: browser === undefined ? 'not-in-chain' : 'unavailable' },
    cause: error.cause ?? error,
  });
}

/** `jina-reader failed (429) → local 200`: the display line's account of the chain. */
export function attemptTrail(attempts: readonly FetchAttempt[]): string {
  return attempts
    .map((attempt) => {
      if (attempt.outcome === 'ok') return `${attempt.backend} ${attempt.status ?? 'ok'}`;
      if (attempt.outcome === 'skipped') return `${attempt.backend} skipped (${skipLabel(attempt)})`;
      return `${attempt.backend} failed (${attempt.status ?? attempt.code})`;
    })
    .join(' → ');
}

function skipLabel(attempt: FetchAttempt): string {
  if (attempt.code === PRIVACY_CODE)
    return /credential|user name/.test(attempt.message ?? '') ? 'credentials in URL' : 'internal address';
  if (attempt.code === 'EMPTY_CONTENT' || attempt.code === 'BLOCKED_BY_SITE') return 'escalating';
  if (attempt.message?.includes('fetch.thirdParty')) return 'third-party off';
  return 'not configured';
}
