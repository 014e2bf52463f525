// Every `egress.*` and `limits.session.*` key has its CLI flag twin (src/surfaces/cli/egress-flags.ts), as the
// `network.*` keys do, and each flag sets the key it names.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configKeys } from '../scripts/config-reference.ts';
import { configJsonSchema } from '../src/config/config-json-schema.ts';
import { validateConfig } from '../src/config/load-config.ts';
import { UsageError } from '../src/surfaces/cli/cli-error.ts';
import { EGRESS_FLAG_KEYS, EGRESS_FLAGS, egressOverrides } from '../src/surfaces/cli/egress-flags.ts';
import { parseFlags } from '../src/surfaces/cli/flags.ts';

/** The keys a flag sets: the leaves under `egress` and `limits.session`, `limits.session.maxCalls` as one map. */
function twinnedKeys(): string[] {
  return configKeys(configJsonSchema())
    .filter(({ path }) => path.startsWith('egress.') || path.startsWith('limits.session.'))
    .filter(({ path, isLeaf }) => isLeaf && !path.startsWith('limits.session.maxCalls.'))
    .map(({ path }) => path)
    .concat('limits.session.maxCalls')
    .sort();
}

test('every egress and limits.session key has a flag, and every flag a key', () => {
  assert.deepEqual(Object.values(EGRESS_FLAG_KEYS).sort(), twinnedKeys());
  assert.deepEqual(Object.keys(EGRESS_FLAG_KEYS).sort(), Object.keys(EGRESS_FLAGS).sort());
});

test('each flag sets its key, and the config it makes is valid', () => {
  const argv = [
    '--allow-domain',
    'example.com',
    '--allow-domain',
    '*.bücher.de',
    '--block-domain',
    '=ads.example.com',
    '--asset-domain',
    'cdn.example.net',
    '--seen-urls-only',
    '--secret-scan',
    'off',
    '--secret-scan-entropy',
    'on',
    '--session-max-calls',
    'web_fetch=20',
    '--session-max-calls',
    'web_search=5',
    '--session-max-credits',
    '100',
    '--before-call-webhook',
    'http://10.0.0.5:8080/approve',
    '--before-call-webhook-timeout-ms',
    '2500',
    '--before-call-webhook-on-failure',
    'allow',
    '--before-call-webhook-header',
    'Authorization: Bearer s3cret',
    '--before-call-webhook-header',
    'X-Team:search',
  ];
  const { values } = parseFlags('fetch', argv, EGRESS_FLAGS);
  const overrides = egressOverrides(values);
  const config = validateConfig(overrides);
  assert.deepEqual(config.egress, {
    domains: {
      allow: ['example.com', '*.bücher.de'],
      block: ['=ads.example.com'],
      assets: ['cdn.example.net'],
    },
    seenUrlsOnly: true,
    secretScan: { enabled: false, entropy: true },
    beforeCallWebhook: {
      url: 'http://10.0.0.5:8080/approve',
      timeoutMs: 2500,
      onFailure: 'allow',
      headers: { Authorization: 'Bearer s3cret', 'X-Team': 'search' },
    },
  });
  assert.deepEqual(config.limits.session, { maxCalls: { web_fetch: 20, web_search: 5 }, maxCredits: 100 });
  for (const [flag, key] of Object.entries(EGRESS_FLAG_KEYS)) {
    const path = key.split('.');
    let node: unknown = overrides;
    for (const part of path) node = (node as Record<string, unknown> | undefined)?.[part];
    assert.notEqual(node, undefined, `--${flag} sets ${key}`);
  }
  assert.deepEqual(egressOverrides(parseFlags('fetch', [], EGRESS_FLAGS).values), {});
});

test('a bad flag value is a one-line usage error naming the flag, a bad domain pattern too', () => {
  const bad = (argv: string[]) => () => egressOverrides(parseFlags('fetch', argv, EGRESS_FLAGS).values);
  assert.throws(bad(['--secret-scan', 'maybe']), (error) => {
    assert.ok(error instanceof UsageError);
    assert.equal(error.message, "--secret-scan expects on or off, got 'maybe'");
    return true;
  });
  assert.throws(bad(['--session-max-calls', 'web_crawl=3']), /--session-max-calls expects TOOL=N/);
  assert.throws(bad(['--session-max-credits', '-1']), /--session-max-credits expects a whole number ≥ 0/);
  assert.throws(
    bad(['--before-call-webhook-on-failure', 'maybe']),
    /--before-call-webhook-on-failure expects allow or deny, got 'maybe'/,
  );
  assert.throws(bad(['--before-call-webhook-header', 'no colon']), /expects 'NAME: VALUE', got 'no colon'/);
  assert.throws(
    () =>
      validateConfig(
        egressOverrides(parseFlags('fetch', ['--before-call-webhook', 'ftp://x/'], EGRESS_FLAGS).values),
      ),
    (error: { details: { problems: string[] } }) => {
      assert.match(error.details.problems.join('\n'), /egress\.beforeCallWebhook\.url/);
      return true;
    },
  );
  // A domain pattern is checked as egress.domains checks it, and the mistake names the flag, not the key.
  assert.throws(
    () => egressOverrides(parseFlags('fetch', ['--block-domain', 'https://x.com/'], EGRESS_FLAGS).values),
    (error: Error) => {
      assert.ok(error instanceof UsageError);
      assert.equal(
        error.message,
        "--block-domain expects a domain pattern (example.com, *.example.com or =www.example.com), not a URL, got 'https://x.com/'",
      );
      return true;
    },
  );
});
