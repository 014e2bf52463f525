import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PeriscopeError } from '../errors.ts';
import {
  expectProviderError,
  jsonReply,
  standInContext,
  startProviderStandIn,
  withStandIn,
} from '../testing/provider-stand-in.ts';
import { readProviderError } from './provider-errors.ts';
import { quotaFromHeaders, retryAfterFromHeaders } from './provider-headers.ts';
import { providerUrl, requestProviderJson } from './provider-http.ts';

test('providerUrl appends the path to the base path and sets the defined parameters', () => {
  const url = providerUrl('searxng', 'https://search.example/searx/', '/search', {
    q: 'a b',
    lang: undefined,
    n: 3,
  });
  assert.equal(url.href, 'https://search.example/searx/search?q=a+b&n=3');
  assert.throws(
    () => providerUrl('searxng', 'ftp://search.example', '/search'),
    (error: unknown) => error instanceof PeriscopeError && error.code === 'CONFIG_INVALID',
  );
});

test('retryAfterFromHeaders: Retry-After first, then the exhausted X-RateLimit window, epoch resets too', () => {
  const now = 1_700_000_000_000;
  assert.equal(retryAfterFromHeaders({ 'retry-after': '7', 'x-ratelimit-reset': '99' }, now), 7_000);
  assert.equal(
    retryAfterFromHeaders({ 'x-ratelimit-remaining': '0, 1000', 'x-ratelimit-reset': '1, 1419704' }, now),
    1_000,
  );
  assert.equal(
    retryAfterFromHeaders({ 'x-ratelimit-remaining': '5, 0', 'x-ratelimit-reset': '1, 3600' }, now),
    3_600_000,
  );
  assert.equal(retryAfterFromHeaders({ 'x-ratelimit-reset': String(now / 1000 + 30) }, now), 30_000);
  assert.equal(retryAfterFromHeaders({ 'ratelimit-reset': '12' }, now), 12_000);
  assert.equal(retryAfterFromHeaders({}, now), undefined);
});

test('quotaFromHeaders reads the longest window', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.deepEqual(
    quotaFromHeaders(
      {
        'x-ratelimit-limit': '1, 15000',
        'x-ratelimit-remaining': '0, 1000',
        'x-ratelimit-reset': '1, 86400',
      },
      now,
    ),
    { remaining: 1000, limit: 15000, resetsAt: '2026-01-02T00:00:00.000Z' },
  );
  assert.equal(quotaFromHeaders({ 'content-type': 'application/json' }, now), undefined);
});

test('readProviderError understands every recorded error shape', () => {
  const cases: Array<[unknown, { code?: string; message?: string }]> = [
    [
      {
        type: 'ErrorResponse',
        error: { code: 'SUBSCRIPTION_TOKEN_INVALID', detail: 'bad token', status: 422 },
      },
      { code: 'SUBSCRIPTION_TOKEN_INVALID', message: 'bad token' },
    ],
    [
      { detail: { error: 'Your API key is wrong or missing.' } },
      { message: 'Your API key is wrong or missing.' },
    ],
    [{ message: 'Unauthorized.', statusCode: 403 }, { message: 'Unauthorized.' }],
    [
      { error: 'Invalid API key', tag: 'INVALID_API_KEY' },
      { code: 'INVALID_API_KEY', message: 'Invalid API key' },
    ],
    [
      { meta: {}, error: { code: 2, msg: 'Unauthorized' } },
      { code: '2', message: 'Unauthorized' },
    ],
    [
      { meta: {}, data: [], error: [{ code: 'x', message: 'nope' }] },
      { code: 'x', message: 'nope' },
    ],
    [
      { error: { code: 403, message: 'Daily Limit Exceeded', errors: [{ reason: 'dailyLimitExceeded' }] } },
      { code: 'dailyLimitExceeded', message: 'Daily Limit Exceeded' },
    ],
    [{ error: { code: 'ratelimited', info: 'slow down' } }, { code: 'ratelimited', message: 'slow down' }],
    [
      {
        data: null,
        code: 429,
        name: 'RateLimitTriggeredError',
        message: 'm',
        readableMessage: 'RateLimit: m',
      },
      { code: 'RateLimitTriggeredError', message: 'RateLimit: m' },
    ],
    ['<html>', {}],
    [undefined, {}],
  ];
  for (const [body, expected] of cases)
    assert.deepEqual(readProviderError(body), expected, JSON.stringify(body));
});

test('the chain deadline (an abort whose reason is a TIMEOUT) surfaces as that TIMEOUT, not as ABORTED', async () => {
  await withStandIn({ ...jsonReply({}), delayMs: 2_000 }, async (server) => {
    const controller = new AbortController();
    const deadline = new PeriscopeError('TIMEOUT', 'brave: attempt deadline of 50 ms passed', {
      details: { phase: 'total' },
    });
    setTimeout(() => controller.abort(deadline), 50);
    const context = standInContext(server, {}, { signal: controller.signal });
    const error = await expectProviderError(
      requestProviderJson(context, { provider: 'brave', url: new URL(`${server.url}/x`) }),
      { code: 'TIMEOUT' },
    );
    assert.equal(error, deadline);
  });
});

test('a caller cancellation is ABORTED, with the provider named', async () => {
  await withStandIn({ ...jsonReply({}), delayMs: 2_000 }, async (server) => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const context = standInContext(server, {}, { signal: controller.signal });
    await expectProviderError(
      requestProviderJson(context, { provider: 'exa', url: new URL(`${server.url}/x`) }),
      {
        code: 'ABORTED',
        message: ['exa: '],
      },
    );
  });
});

test('the configured endpoint is trusted, a redirect away from it is not (no hop into a private address)', async () => {
  const other = await startProviderStandIn(() => jsonReply({ secret: true }));
  const server = await startProviderStandIn(() => ({
    status: 302,
    headers: { location: `${other.url}/internal` },
  }));
  try {
    await expectProviderError(
      requestProviderJson(standInContext(server, {}), {
        provider: 'searxng',
        url: new URL(`${server.url}/search`),
      }),
      { code: 'URL_BLOCKED', message: ['searxng'] },
    );
    assert.equal(other.calls.length, 0);
  } finally {
    await server.close();
    await other.close();
  }
});
