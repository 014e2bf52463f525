import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isPeriscopeError } from '../errors.ts';
import { createPeriscope } from '../index.ts';
import { validateConfig } from './load-config.ts';
import { redactConfig } from './redact.ts';

test('search and providers have defaults; no file needed', () => {
  const config = validateConfig({});
  assert.deepEqual(config.search, {
    chain: 'auto',
    mode: 'failover',
    fanout: 2,
    maxResults: 5,
    timeoutMs: 10_000,
    safeSearch: 'moderate',
  });
  assert.deepEqual(config.providers, { custom: [] });
  assert.deepEqual(config.tools.web_search, { enabled: true });
  assert.deepEqual(config.tools.image_search, { enabled: true });
});

test('provider entries are strict, and typos are reported with their path', () => {
  const problems = (input: unknown) => {
    try {
      validateConfig(input);
    } catch (error) {
      assert.ok(isPeriscopeError(error));
      return (error.details.problems as string[]).join('\n');
    }
    return '';
  };
  assert.match(
    problems({ providers: { brave: { apikey: 'x' } } }),
    /providers\.brave: Unrecognized key: "apikey"/,
  );
  assert.match(
    problems({ providers: { searxng: { baseUrl: 'searx.local' } } }),
    /providers\.searxng\.baseUrl: an http\(s\) URL/,
  );
  assert.match(
    problems({ providers: { custom: [{ id: 'Acme Search', module: './a.js' }] } }),
    /providers\.custom\.0\.id/,
  );
  assert.match(problems({ search: { chain: [] } }), /search\.chain/);
  assert.match(problems({ search: { mode: 'parallel' } }), /search\.mode/);
  assert.match(problems({ search: { maxResults: 50 } }), /search\.maxResults/);
});

test('unknown provider ids in search.chain or providers fail createPeriscope with CONFIG_INVALID', () => {
  assert.throws(
    () =>
      createPeriscope({ search: { chain: ['brave', 'bing'] }, providers: { duckduckgoo: {} } }, { env: {} }),
    (error: unknown) =>
      isPeriscopeError(error) &&
      error.code === 'CONFIG_INVALID' &&
      (error.details.problems as string[]).some((problem) =>
        problem.startsWith('search.chain.1: unknown provider "bing"'),
      ) &&
      (error.details.problems as string[]).some((problem) =>
        problem.startsWith('providers.duckduckgoo: unknown provider'),
      ),
  );
});

test('API keys are redacted wherever they appear, extras included', () => {
  const config = validateConfig({
    providers: {
      brave: { apiKey: 'BSA-very-secret' },
      'google-cse': { apiKey: 'AIza-secret', extras: { cx: 'engine-1', accessToken: 'tok' } },
      searxng: { baseUrl: 'https://user:pass@searx.example' },
    },
  });
  const shown = JSON.stringify(redactConfig(config));
  for (const secret of ['BSA-very-secret', 'AIza-secret', 'tok"', 'pass@'])
    assert.ok(!shown.includes(secret), secret);
  assert.match(shown, /"cx":"engine-1"/);
});
