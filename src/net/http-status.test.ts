import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPeriscopeError, type PeriscopeError } from '../errors.ts';
import { isRetryableStatus, parseRetryAfterMs, throwForStatus } from './http-status.ts';
import type { HttpResponse } from './types.ts';

function response(status: number, headers: Record<string, string> = {}, body = ''): HttpResponse {
  return {
    url: 'https://api.example/search?q=x&api_key=SECRET',
    finalUrl: 'https://api.example/search?q=x&api_key=SECRET',
    status,
    statusText: status === 429 ? 'Too Many Requests' : 'Error',
    headers,
    body: Buffer.from(body),
    redirects: [],
  };
}

function thrown(run: () => void): PeriscopeError {
  try {
    run();
  } catch (error) {
    if (isPeriscopeError(error)) return error;
    throw error;
  }
  assert.fail('expected a PeriscopeError');
}

describe('throwForStatus', () => {
  it('passes 2xx and unfollowed 3xx', () => {
    assert.doesNotThrow(() => throwForStatus(response(200)));
    assert.doesNotThrow(() => throwForStatus(response(204)));
    assert.doesNotThrow(() => throwForStatus(response(304)));
  });

  it('429 → RATE_LIMITED with retryAfterMs; the message names provider, method, URL (redacted) and status', () => {
    const error = thrown(() =>
      throwForStatus(response(429, { 'retry-after': '20' }, '{"error":"slow down"}'), { provider: 'brave' }),
    );
    assert.equal(error.code, 'RATE_LIMITED');
    assert.equal(error.retryable, true);
    assert.equal(error.retryAfterMs, 20_000);
    assert.equal(
      error.message,
      'brave: GET https://api.example/search?q=x&api_key=*** failed with 429 Too Many Requests',
    );
    assert.equal(error.details.provider, 'brave');
    assert.equal(error.details.body, '{"error":"slow down"}');
    assert.doesNotMatch(JSON.stringify(error.toJSON()), /SECRET/);
  });

  it('other statuses → HTTP_STATUS, retryable per status', () => {
    for (const [status, retryable] of [
      [400, false],
      [401, false],
      [404, false],
      [408, true],
      [500, true],
      [503, true],
    ] as const) {
      const error = thrown(() => throwForStatus(response(status), { method: 'POST', bodyChars: 0 }));
      assert.equal(error.code, 'HTTP_STATUS');
      assert.equal(error.retryable, retryable, String(status));
      assert.equal(error.details.status, status);
      assert.equal(error.details.body, undefined);
      assert.match(error.message, /^POST /);
    }
    assert.equal(isRetryableStatus(409), true);
  });

  it('parses Retry-After seconds and dates', () => {
    assert.equal(parseRetryAfterMs('1.5'), 1500);
    assert.equal(
      parseRetryAfterMs('Wed, 21 Oct 2015 07:28:10 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT')),
      10_000,
    );
    assert.equal(
      parseRetryAfterMs('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('Wed, 21 Oct 2015 07:29:00 GMT')),
      0,
    );
    assert.equal(parseRetryAfterMs('soon'), undefined);
    assert.equal(parseRetryAfterMs(undefined), undefined);
  });
});
