import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isPeriscopeError } from '../errors.ts';
import { fetchFingerprint } from '../policy/fingerprint.ts';
import { findConfigFile, loadConfig, validateConfig } from './load-config.ts';
import { redactConfig, redactUrlCredentials } from './redact.ts';

function scratch(): { cwd: string; home: string } {
  const root = mkdtempSync(join(tmpdir(), 'periscope-config-'));
  const cwd = join(root, 'work');
  const home = join(root, 'home');
  mkdirSync(cwd);
  mkdirSync(home);
  return { cwd, home };
}

function configProblems(run: () => unknown): { message: string; problems: string[] } {
  try {
    run();
  } catch (error) {
    assert.ok(isPeriscopeError(error));
    assert.equal(error.code, 'CONFIG_INVALID');
    return { message: error.message, problems: (error.details.problems as string[]) ?? [] };
  }
  assert.fail('expected CONFIG_INVALID');
}

test('no file: every default is filled', () => {
  const { cwd, home } = scratch();
  const { config, source } = loadConfig({ cwd, homeDir: home, env: {} });
  assert.equal(source, undefined);
  assert.equal(config.network.maxRedirects, 5);
  assert.equal(config.network.maxBytes, 10_000_000);
  assert.deepEqual(config.fetch.chain, ['local']);
  assert.equal(config.fetch.maxChars, 50_000);
  assert.equal(config.tools.web_fetch.enabled, true);
});

test('search order: --config, PERISCOPE_CONFIG, working directory, ~/.config/periscope', () => {
  const { cwd, home } = scratch();
  mkdirSync(join(home, '.config', 'periscope'), { recursive: true });
  const inHome = join(home, '.config', 'periscope', 'config.yaml');
  writeFileSync(inHome, 'fetch: { maxChars: 111 }\n');
  assert.equal(findConfigFile({ cwd, homeDir: home, env: {} }), inHome);
  const inCwd = join(cwd, 'periscope.config.json');
  writeFileSync(inCwd, '{"fetch": {"maxChars": 222}}');
  assert.equal(findConfigFile({ cwd, homeDir: home, env: {} }), inCwd);
  const fromEnv = join(cwd, 'env.yaml');
  writeFileSync(fromEnv, 'fetch:\n  maxChars: 333\n');
  assert.equal(findConfigFile({ cwd, homeDir: home, env: { PERISCOPE_CONFIG: fromEnv } }), fromEnv);
  assert.equal(
    findConfigFile({ cwd, homeDir: home, env: { PERISCOPE_CONFIG: fromEnv }, configPath: inHome }),
    inHome,
  );
  assert.equal(
    loadConfig({ cwd, homeDir: home, env: { PERISCOPE_CONFIG: fromEnv } }).config.fetch.maxChars,
    333,
  );
});

test('a missing --config file is a one-line error naming the path', () => {
  const { cwd } = scratch();
  const { message } = configProblems(() => loadConfig({ cwd, env: {}, configPath: 'nope.yaml' }));
  assert.match(message, /nope\.yaml \(from --config\) does not exist/);
});

test('${VAR} references: all missing variables reported at once with their paths; defaults allowed', () => {
  const { cwd, home } = scratch();
  writeFileSync(
    join(cwd, 'periscope.config.yaml'),
    'network:\n  proxy: ${PROXY_URL}\n  userAgent: ${AGENT:-bot/1}\n  allowPrivateNetwork: ["${NET_A}", "${NET_B}"]\n',
  );
  const { problems } = configProblems(() => loadConfig({ cwd, homeDir: home, env: { NET_B: '10.0.0.0/8' } }));
  assert.deepEqual(problems, [
    'network.proxy: ${PROXY_URL} is not set',
    'network.allowPrivateNetwork[0]: ${NET_A} is not set',
  ]);
  const { config } = loadConfig({
    cwd,
    homeDir: home,
    env: { PROXY_URL: 'http://p:3128', NET_A: 'a', NET_B: 'b' },
  });
  assert.equal(config.network.proxy, 'http://p:3128');
  assert.equal(config.network.userAgent, 'bot/1');
  assert.deepEqual(config.network.allowPrivateNetwork, ['a', 'b']);
});

test('invalid values and unknown keys: every problem on its own line', () => {
  const { problems } = configProblems(() =>
    validateConfig({
      network: { timeoutMS: 5, maxBytes: -1 },
      fetch: { extractMode: 'html' },
      surprise: true,
    }),
  );
  assert.equal(problems.length, 4);
  assert.ok(problems.some((line) => line.startsWith('network.maxBytes:')));
  assert.ok(problems.some((line) => line.includes('timeoutMS')));
  assert.ok(problems.some((line) => line.startsWith('fetch.extractMode:')));
  assert.ok(problems.some((line) => line.includes('surprise')));
});

test('broken YAML and JSON name the file and the problem', () => {
  const { cwd, home } = scratch();
  writeFileSync(join(cwd, 'periscope.config.json'), '{ "fetch": ');
  assert.match(
    configProblems(() => loadConfig({ cwd, homeDir: home, env: {} })).message,
    /is not valid JSON/,
  );
  const yamlPath = join(cwd, 'bad.yaml');
  writeFileSync(yamlPath, 'fetch: [unclosed\n');
  assert.match(
    configProblems(() => loadConfig({ cwd, env: {}, configPath: yamlPath })).message,
    /is not valid YAML/,
  );
  writeFileSync(yamlPath, '- a list\n');
  assert.match(
    configProblems(() => loadConfig({ cwd, env: {}, configPath: yamlPath })).message,
    /top level must be a mapping/,
  );
});

test('a $schema key (for editors) is ignored in JSON and YAML files; elsewhere it is still an unknown key', () => {
  const { cwd, home } = scratch();
  const jsonPath = join(cwd, 'periscope.config.json');
  writeFileSync(jsonPath, '{ "$schema": "./periscope.schema.json", "fetch": { "maxChars": 444 } }');
  const fromJson = loadConfig({ cwd, homeDir: home, env: {} });
  assert.equal(fromJson.source, jsonPath);
  assert.equal(fromJson.config.fetch.maxChars, 444);
  assert.ok(!('$schema' in fromJson.config));
  const yamlPath = join(cwd, 'other.yaml');
  // A ${VAR} inside it is not a setting either, so it is never reported as missing.
  writeFileSync(yamlPath, '$schema: "${SCHEMA_HOME}/periscope.schema.json"\nfetch: { maxChars: 555 }\n');
  assert.equal(loadConfig({ cwd, env: {}, configPath: yamlPath }).config.fetch.maxChars, 555);
  writeFileSync(yamlPath, 'fetch: { $schema: x }\n');
  assert.match(
    configProblems(() => loadConfig({ cwd, env: {}, configPath: yamlPath })).problems.join('\n'),
    /^fetch: .*\$schema/,
  );
});

test('flag overrides win over the file', () => {
  const { cwd, home } = scratch();
  writeFileSync(join(cwd, 'periscope.config.yaml'), 'network: { maxRedirects: 2, maxBytes: 1000 }\n');
  const { config } = loadConfig({ cwd, homeDir: home, env: {}, overrides: { network: { maxRedirects: 9 } } });
  assert.equal(config.network.maxRedirects, 9);
  assert.equal(config.network.maxBytes, 1000);
});

test('secrets are redacted wherever config is printed', () => {
  const shown = redactConfig({
    providers: { brave: { apiKey: 'sk-123' } },
    network: { proxy: 'http://user:hunter2@proxy:3128', userAgent: 'x' },
    headers: { Authorization: 'Bearer abc' },
  });
  const text = JSON.stringify(shown);
  assert.ok(!text.includes('sk-123'));
  assert.ok(!text.includes('hunter2'));
  assert.ok(!text.includes('Bearer abc'));
  assert.match(text, /http:\/\/user:\[redacted\]@proxy:3128/);
  assert.equal(
    redactUrlCredentials('socks5://a:b@h:1 and https://x.org'),
    'socks5://a:[redacted]@h:1 and https://x.org',
  );
});

test("network.totalTimeoutMs, the client's own name; timeoutMs, its former name, still sets it", () => {
  assert.equal(validateConfig({}).network.totalTimeoutMs, 30_000);
  const former = validateConfig({ network: { timeoutMs: 5_000 } }).network;
  assert.equal(former.totalTimeoutMs, 5_000);
  assert.equal('timeoutMs' in former, false, 'one name in the validated config');
  assert.equal(
    validateConfig({ network: { totalTimeoutMs: 7_000, timeoutMs: 5_000 } }).network.totalTimeoutMs,
    7_000,
  );
  // A flag (--total-timeout-ms, or --timeout-ms) wins over a file that still uses the former name.
  const { cwd, home } = scratch();
  writeFileSync(join(cwd, 'periscope.config.yaml'), 'network: { timeoutMs: 5000 }\n');
  const overrides = { network: { totalTimeoutMs: 300 } };
  assert.equal(loadConfig({ cwd, homeDir: home, env: {}, overrides }).config.network.totalTimeoutMs, 300);
  const { problems } = configProblems(() => validateConfig({ network: { timeoutMs: 0 } }));
  assert.ok(problems.some((line) => line.startsWith('network.timeoutMs:')));
});

test('the resolver limits network.dnsTimeoutMs and network.dnsTries: defaults, range', () => {
  const { network } = validateConfig({});
  assert.equal(network.dnsTimeoutMs, 2_000);
  assert.equal(network.dnsTries, 2);
  const { problems } = configProblems(() => validateConfig({ network: { dnsTimeoutMs: 0, dnsTries: 0 } }));
  assert.ok(problems.some((line) => line.startsWith('network.dnsTimeoutMs:')));
  assert.ok(problems.some((line) => line.startsWith('network.dnsTries:')));
});

test('renaming the timeout and adding the resolver limits leaves the fetch fingerprint (cached pages) as it was', () => {
  const plain = fetchFingerprint(validateConfig({}));
  assert.equal(fetchFingerprint(validateConfig({ network: { timeoutMs: 5_000 } })), plain);
  assert.equal(fetchFingerprint(validateConfig({ network: { dnsTimeoutMs: 500, dnsTries: 1 } })), plain);
  assert.doesNotMatch(plain, /totalTimeoutMs|dnsTimeoutMs|dnsTries/);
});
