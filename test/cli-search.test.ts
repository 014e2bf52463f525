// `periscope search`, `images` and `status` spawned as a user runs them, with a config that points the providers at
// local stand-ins.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openEnvelope } from '../src/testing/envelope.ts';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import { type CliRun, runCli } from './support/run-cli.ts';

const fixture = (name: string) =>
  readFileSync(new URL(`../src/search/providers/__fixtures__/${name}`, import.meta.url), 'utf8');

/**
 * Each run keeps its state (the SQLite store: usage, provider health) in a folder of its own unless `env` names one
 * (XDG_STATE_HOME): provider health carries over between runs that share it, as between a user's commands.
 */
function run(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const state = mkdtempSync(join(tmpdir(), 'periscope-cli-state-'));
  return runCli(args, { cwd: folder, env: { XDG_STATE_HOME: state, ...env } });
}

function json(response: ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

let server: TestServer;
let folder: string;
let config: string;
before(async () => {
  server = await startTestServer({
    'GET /brave/res/v1/web/search': (_request, response) =>
      json(response, 200, {
        web: {
          results: [
            { title: 'Tide tables', url: 'https://tides.example/brest', description: 'High tide at 06:12' },
          ],
        },
      }),
    'GET /brave/res/v1/news/search': (_request, response) =>
      json(response, 200, {
        type: 'news',
        results: [{ title: 'Tides rise', url: 'https://news.example/tides', description: 'A report.' }],
      }),
    'POST /ddg/html/': (_request, response) =>
      response.writeHead(202, { 'content-type': 'text/html' }).end(fixture('duckduckgo-anomaly.html')),
    'POST /ddg/lite/': (_request, response) =>
      response.writeHead(202, { 'content-type': 'text/html' }).end(fixture('duckduckgo-anomaly.html')),
    'GET /ddg/': (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html' }).end(fixture('duckduckgo-vqd-page.html')),
    'GET /ddg/i.js': (_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end(fixture('duckduckgo-images.json')),
    'GET /wiki/w/api.php': (_request, response) => json(response, 503, { error: 'down' }),
    // Marginalia's per-minute limit on the shared key (ApiV2.java): 429, a plain-text body.
    'GET /marginalia/search': (_request, response) =>
      response.writeHead(429, { 'content-type': 'text/plain' }).end('QPM Limit Exceeded'),
    'GET /limited/res/v1/web/search': (_request, response) =>
      response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '60' }).end(
        JSON.stringify({
          type: 'ErrorResponse',
          error: { code: 'RATE_LIMITED', detail: 'Too many requests' },
        }),
      ),
    'GET /refused/res/v1/web/search': (_request, response) =>
      response
        .writeHead(422, { 'content-type': 'application/json' })
        .end(fixture('brave-error-422-subscription-token-invalid.json')),
    'GET /invalid/res/v1/web/search': (_request, response) =>
      response
        .writeHead(422, { 'content-type': 'application/json' })
        .end(fixture('brave-error-422-validation.json')),
    'GET /tavily/usage': (_request, response) =>
      json(response, 200, { key: { usage: 150, limit: 1000 }, account: { current_plan: 'Bootstrap' } }),
  });
  folder = mkdtempSync(join(tmpdir(), 'periscope-cli-search-'));
  config = join(folder, 'periscope.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      search: { chain: 'auto', timeoutMs: 2000 },
      providers: {
        brave: { baseUrl: `${server.url}/brave`, minIntervalMs: 0 },
        tavily: { baseUrl: `${server.url}/tavily` },
        duckduckgo: { baseUrl: `${server.url}/ddg`, minIntervalMs: 0 },
        marginalia: { baseUrl: `${server.url}/marginalia`, minIntervalMs: 0 },
        wikipedia: { baseUrl: `${server.url}/wiki`, minIntervalMs: 0 },
      },
    }),
  );
});
after(() => server.close());

test('search prints the results to stdout, the start line and the summary to stderr', async () => {
  const result = await run(['search', 'tide', 'tables', 'brest'], { BRAVE_API_KEY: 'key-from-env' });
  assert.equal(result.code, 0, result.stderr);
  // What the model would read: the results inside the untrusted-content envelope (stdout may well feed a model).
  const envelope = openEnvelope(result.stdout);
  assert.equal(envelope.before, 'Results for: tide tables brest\n\n');
  assert.equal(envelope.body, '1. Tide tables\n   https://tides.example/brest\n   High tide at 06:12');
  assert.equal(envelope.after, '\n');
  assert.match(result.stderr, /^search "tide tables brest"\nbrave → 1 result in \d+ ms\n$/);
  assert.equal(server.calls.at(-1)?.headers['x-subscription-token'], 'key-from-env');
});

test('search --json prints the whole ToolResult; --provider forces one provider', async () => {
  const result = await run(['search', 'tide', '--json', '--count', '3'], { BRAVE_API_KEY: 'k' });
  assert.equal(result.code, 0, result.stderr);
  const parsed = JSON.parse(result.stdout) as {
    isError: boolean;
    data: { provider: string; attempts: unknown[] };
  };
  assert.equal(parsed.isError, false);
  assert.equal(parsed.data.provider, 'brave');
  assert.equal(server.calls.at(-1)?.url.searchParams.get('count'), '3');

  const forced = await run(['search', 'tide', '--provider', 'duckduckgo'], { BRAVE_API_KEY: 'k' });
  assert.equal(forced.code, 1);
  assert.equal(forced.stdout, '');
  const lines = forced.stderr.trim().split('\n');
  assert.equal(lines[0], 'search "tide"');
  assert.match(lines[1] ?? '', /^search "tide" → BLOCKED_BY_SITE in \d+ ms \(duckduckgo failed: blocked\)$/);
  assert.match(lines[2] ?? '', /^periscope: duckduckgo: .*answered 202/);
});

test('with no key, auto falls back to the keyless providers and reports each failure (exit 1)', async () => {
  const result = await run(['search', 'tide']);
  assert.equal(result.code, 1);
  assert.match(
    result.stderr,
    /ALL_FAILED in \d+ ms \(duckduckgo failed: blocked, marginalia failed: rate limited, wikipedia failed: HTTP 503\)/,
  );
  assert.match(
    result.stderr,
    /periscope: every search provider failed, so there are no results to show \(this is not an empty result\)/,
  );
});

test('images walks the vqd flow and prints image URLs with their source pages', async () => {
  const result = await run(['images', 'minecraft', '--count', '1']);
  assert.equal(result.code, 0, result.stderr);
  const envelope = openEnvelope(result.stdout);
  assert.equal(envelope.before, 'Image results for: minecraft\n\n');
  assert.equal(
    envelope.body,
    [
      '1. Minecraft Earth - How to Craft and Smelt',
      '   https://www.gamepur.com/files/images/2019-11/minecraft-earth-how-to-craft-and-smelt.jpg',
      '   source: https://www.gamepur.com/guide/44494-minecraft-earth-how-craft-smelt.html (1214×933)',
    ].join('\n'),
  );
  assert.equal(envelope.after, '\n');
  assert.match(result.stderr, /^images "minecraft"\nduckduckgo → 1 image in \d+ ms\n$/);
});

test('status lists every provider: chain position, credentials, health, live quota', async () => {
  const result = await run(['status'], { BRAVE_API_KEY: 'k', TAVILY_API_KEY: 'tvly-k' });
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stdout,
    /^web search chain \(auto, failover\): brave → tavily → duckduckgo → marginalia → wikipedia\n/,
  );
  assert.match(result.stdout, /\nimage search chain: brave → tavily → duckduckgo\n/);
  assert.match(result.stdout, /\nbrave +1 +env BRAVE_API_KEY +ok +–\n/);
  assert.match(
    result.stdout,
    /\ntavily +2 +env TAVILY_API_KEY +ok +850\/1000 left, plan Bootstrap, 150 of 1000 credits used\n/,
  );
  assert.match(result.stdout, /\nserper +– +missing \(SERPER_API_KEY\) +ok/);
  assert.match(result.stdout, /\nduckduckgo +3 +keyless/);
  assert.match(result.stdout, /\nmarginalia +4 +keyless/);
  assert.match(result.stdout, /\nnote on marginalia: results are CC BY-NC-SA 4\.0/);
  assert.match(result.stdout, /\nnote on google-cse: closed to new customers/);
  // The parameters each provider takes, from its parameter table: ✓ native, ~ approximated, – not at all.
  assert.match(result.stdout, /\nprovider +news +date range +safe search +offset\n/);
  assert.match(result.stdout, /\nbrave +✓ +✓ +✓ +✓\n/);
  assert.match(result.stdout, /\nsearxng +✓ +~ +✓ +✓\n/);
  assert.match(result.stdout, /\ngoogle-cse +– +✓ +✓ +✓\n/);
  assert.equal(server.calls.at(-1)?.headers.authorization, 'Bearer tvly-k');

  const parsed = JSON.parse((await run(['status', '--json'])).stdout) as {
    search: { chain: string[] };
    providers: Array<{ id: string; configured: boolean; parameters: Record<string, string> }>;
  };
  assert.deepEqual(parsed.search.chain, ['duckduckgo', 'marginalia', 'wikipedia']);
  assert.equal(parsed.providers.length, 14);
  assert.equal(parsed.providers.find((provider) => provider.id === 'brave')?.configured, false);
  assert.deepEqual(parsed.providers.find((provider) => provider.id === 'tavily')?.parameters, {
    news: 'native',
    dateRange: 'native',
    safeSearch: 'none',
    offset: 'none',
  });
});

test('a 429 with Retry-After: 60 in one run benches the provider for the next runs; status shows until when', async () => {
  const limited = join(folder, 'limited.config.json');
  writeFileSync(
    limited,
    JSON.stringify({
      search: { chain: ['brave', 'wikipedia'], timeoutMs: 2000 },
      providers: {
        brave: { baseUrl: `${server.url}/limited`, minIntervalMs: 0 },
        wikipedia: { baseUrl: `${server.url}/wiki`, minIntervalMs: 0 },
      },
    }),
  );
  const env = { BRAVE_API_KEY: 'k', XDG_STATE_HOME: mkdtempSync(join(tmpdir(), 'periscope-cli-state-')) };
  const asked = () => server.calls.filter((call) => call.url.pathname.startsWith('/limited/')).length;
  const before = Date.now();
  const first = await run(['search', 'tide', '--config', limited], env);
  assert.equal(first.code, 1);
  assert.match(first.stderr, /\(brave failed: rate limited[^,]*, wikipedia failed: HTTP 503\)/);
  assert.equal(asked(), 1);

  const status = await run(['status', '--config', limited], env);
  assert.equal(status.code, 0, status.stderr);
  const row = /\nbrave +1 +env BRAVE_API_KEY +cooling down until (\S+) \(RATE_LIMITED\) +–\n/.exec(
    status.stdout,
  );
  assert.ok(row, status.stdout);
  const untilMs = Date.parse(row[1] as string);
  assert.ok(untilMs >= before + 55_000 && untilMs <= Date.now() + 60_000, row[1]);

  const asking = Date.now();
  const second = await run(['search', 'tide', '--config', limited], env);
  const answered = Date.now();
  assert.match(second.stderr, /\(brave skipped: rate limited, wikipedia failed: HTTP 503\)/);
  // What is left of the 60 s when the second run looked (a loaded machine takes seconds between the runs).
  const left = /brave skipped \(RATE_LIMITED\): cooling down for (\d+) s after: rate limited/.exec(
    second.stderr,
  );
  assert.ok(left, second.stderr);
  const seconds = Number(left[1]);
  assert.ok(seconds >= Math.floor((untilMs - answered) / 1000) - 1, `${seconds} s left`);
  assert.ok(seconds <= Math.ceil((untilMs - asking) / 1000) + 1, `${seconds} s left`);
  assert.equal(asked(), 1, 'the second run did not ask brave');
  // Another state folder: another user, nothing carried over.
  const fresh = await run(['status', '--config', limited], { BRAVE_API_KEY: 'k' });
  assert.match(fresh.stdout, /\nbrave +1 +env BRAVE_API_KEY +ok +–\n/);
});

interface FailedSearch {
  isError: boolean;
  data: {
    error: {
      code: string;
      retryable: boolean;
      details: { provider?: string; status?: number; reason?: string; providerCode?: string };
    };
    attempts: Array<Record<string, unknown>>;
  };
}

/** The fields of a failure that must survive from the provider to the JSON a user or a program reads. */
const saidBy = (value: Record<string, unknown>) => ({
  code: value.code,
  retryable: value.retryable,
  status: value.status,
  reason: value.reason,
  providerCode: value.providerCode,
});

test('search --json: what brave said (a refused key, a 422 VALIDATION) reaches data.error and data.attempts', async () => {
  const configFor = (name: string, chain: string[], bravePath: string) => {
    const file = join(folder, `${name}.config.json`);
    writeFileSync(
      file,
      JSON.stringify({
        search: { chain, timeoutMs: 2000 },
        providers: {
          brave: { baseUrl: `${server.url}/${bravePath}`, minIntervalMs: 0 },
          wikipedia: { baseUrl: `${server.url}/wiki`, minIntervalMs: 0 },
        },
      }),
    );
    return file;
  };
  const env = { BRAVE_API_KEY: 'k' };
  const refusedKey = {
    code: 'HTTP_STATUS',
    retryable: false,
    status: 422,
    reason: 'invalid-key',
    providerCode: 'SUBSCRIPTION_TOKEN_INVALID',
  };

  const forcedRun = await run(
    [
      'search',
      'tide',
      '--json',
      '--provider',
      'brave',
      '--config',
      configFor('refused', ['brave'], 'refused'),
    ],
    env,
  );
  assert.equal(forcedRun.code, 1, forcedRun.stderr);
  assert.match(forcedRun.stderr, /→ HTTP_STATUS in \d+ ms \(brave failed: key refused\)/);
  const forced = JSON.parse(forcedRun.stdout) as FailedSearch;
  assert.equal(forced.isError, true);
  assert.deepEqual(saidBy({ ...forced.data.error, ...forced.data.error.details }), refusedKey);
  assert.deepEqual(
    forced.data.attempts.map((attempt) => ({ provider: attempt.provider, ...saidBy(attempt) })),
    [{ provider: 'brave', ...refusedKey }],
  );

  const allRun = await run(
    ['search', 'tide', '--json', '--config', configFor('invalid', ['brave', 'wikipedia'], 'invalid')],
    env,
  );
  assert.equal(allRun.code, 1, allRun.stderr);
  const all = JSON.parse(allRun.stdout) as FailedSearch;
  assert.equal(all.data.error.code, 'ALL_FAILED');
  assert.equal(all.data.error.retryable, true, 'wikipedia’s 503 may pass');
  assert.match(
    allRun.stderr,
    /\(brave failed: HTTP 422, wikipedia failed: HTTP 503\)/,
    'the summary says what each said',
  );
  assert.deepEqual(
    all.data.attempts.map((attempt) => ({ provider: attempt.provider, ...saidBy(attempt) })),
    [
      {
        provider: 'brave',
        code: 'HTTP_STATUS',
        retryable: false,
        status: 422,
        reason: undefined,
        providerCode: 'VALIDATION',
      },
      {
        provider: 'wikipedia',
        code: 'HTTP_STATUS',
        retryable: true,
        status: 503,
        reason: undefined,
        providerCode: undefined,
      },
    ],
  );
});

test('search --topic, --after, --before, --safe and --offset reach the provider as Brave takes them', async () => {
  const result = await run(
    [
      'search',
      'tide',
      '--after',
      '2025-01-01',
      '--before',
      '2025-03-31',
      '--safe',
      'strict',
      '--offset',
      '5',
    ],
    { BRAVE_API_KEY: 'k' },
  );
  assert.equal(result.code, 0, result.stderr);
  const sent = Object.fromEntries(server.calls.at(-1)?.url.searchParams ?? []);
  assert.deepEqual(
    { freshness: sent.freshness, safesearch: sent.safesearch, offset: sent.offset, count: sent.count },
    { freshness: '2025-01-01to2025-03-31', safesearch: 'strict', offset: '1', count: '5' },
  );
  // The date range shows the day and publication line where the result has them; this one has neither.
  assert.match(
    result.stdout,
    /^Results for: tide\n\n<<<untrusted_web_content id="[0-9a-f]+" source="brave">>>\n1\. Tide tables\n {3}https:\/\/tides\.example\/brest\n {3}High tide/,
  );
  const news = await run(['search', 'tide', '--topic', 'news', '--json'], { BRAVE_API_KEY: 'k' });
  assert.equal(news.code, 0, news.stderr);
  assert.equal(server.calls.at(-1)?.url.pathname, '/brave/res/v1/news/search');
  const images = await run(['images', 'minecraft', '--safe', 'off', '--count', '1']);
  assert.equal(images.code, 0, images.stderr);
  assert.equal(server.calls.at(-1)?.url.searchParams.get('p'), '-1');
});

test('usage mistakes are exit 2 with one line; every command has --help', async () => {
  const mistakes = [
    [['search'], /missing query/],
    [['search', 'x', '--count', '50'], /--count must be 20 or less/],
    [['search', 'x', '--freshness', 'hour'], /--freshness must be one of day, week, month, year/],
    [['search', 'x', '--provider', 'bing'], /unknown search provider "bing"/],
    [['images', 'x', '--size', 'huge'], /--size must be one of/],
    [['search', 'x', '--topic', 'sports'], /--topic must be general or news, got 'sports'/],
    [
      ['search', 'x', '--after', '2025-02-30'],
      /--after must be a calendar date as YYYY-MM-DD, got '2025-02-30'/,
    ],
    [
      ['search', 'x', '--after', '2025-01-01', '--freshness', 'week'],
      /--after cannot be combined with --freshness/,
    ],
    [['search', 'x', '--offset', '101'], /--offset must be 100 or less, got 101/],
    [['images', 'x', '--safe', 'none'], /--safe must be one of off, moderate, strict, got 'none'/],
    [['status', 'extra'], /status takes no arguments/],
  ] as const;
  const results = await Promise.all(mistakes.map(([args]) => run([...args])));
  mistakes.forEach(([args, pattern], index) => {
    const result = results[index] as CliRun;
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, pattern);
    assert.doesNotMatch(result.stderr, /\n\s+at /);
  });
  const commands = ['search', 'images', 'status'];
  const helps = await Promise.all(commands.map((command) => run([command, '--help'])));
  commands.forEach((command, index) => {
    assert.equal(helps[index]?.code, 0);
    assert.match(helps[index]?.stdout ?? '', new RegExp(`^Usage: periscope ${command}`));
  });
});
