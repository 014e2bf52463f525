/**
 * Replays every recorded provider body under ../shared/fixtures/providers/<id>/ through its provider, over a real
 * socket on 127.0.0.1 with the real guarded client, and checks the normalised result: counts, a usable first
 * title and URL, and the error code for the recorded error bodies. DuckDuckGo's fixtures are replayed by its own
 * tests; Bing was retired in August 2025 and has no provider. Skipped, with the reason, when ../shared is absent
 * (a user's clone).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { ErrorCode } from '../src/errors.ts';
import { BUILT_IN_PROVIDERS } from '../src/search/providers/registry.ts';
import type { ProviderSettings, SearchProvider } from '../src/search/types.ts';
import {
  expectProviderError,
  standInContext,
  startProviderStandIn,
} from '../src/testing/provider-stand-in.ts';

const ROOT = new URL('../../shared/fixtures/providers/', import.meta.url);
const NOT_HERE: Record<string, string> = {
  duckduckgo: 'replayed by the duckduckgo provider tests',
  bing: 'Bing Web Search was retired on 2025-08-11; Periscope has no Bing provider',
};
const NOT_SEARCH = 'a reader/extract body (web_fetch back-end material), not a search-provider operation';

type Replay =
  | { op: 'search' | 'images'; results: number; settings?: ProviderSettings }
  | { op: 'search' | 'images'; code: ErrorCode; reason?: string; settings?: ProviderSettings }
  | { op: 'quota'; remaining: number; limit: number }
  | { op: 'skip'; reason: string };

/** One entry per recorded body: what to call and what must come out. */
const PLAN: Record<string, Record<string, Replay>> = {
  brave: {
    'web-search-what-is-semantic-kernel.json': { op: 'search', results: 10 },
    'web-search-python-news-videos.json': { op: 'search', results: 20 },
    'images-search-doc-example.json': { op: 'images', results: 1 },
    'error-422-subscription-token-invalid.json': { op: 'search', code: 'HTTP_STATUS', reason: 'invalid-key' },
    'error-429-rate-limited.json': { op: 'search', code: 'RATE_LIMITED', reason: 'rate-limited' },
    'error-400-option-not-in-plan.json': { op: 'search', code: 'HTTP_STATUS' },
  },
  exa: {
    'search-openapi-example.json': { op: 'search', results: 1 },
    'contents-openapi-example.json': { op: 'skip', reason: NOT_SEARCH },
  },
  firecrawl: {
    'v2-search-firecrawl.json': { op: 'search', results: 5 },
    'v2-scrape-firecrawl-dev.json': { op: 'skip', reason: NOT_SEARCH },
  },
  'google-cse': {
    'search-llm.json': { op: 'search', results: 10 },
    'search-what-is-semantic-kernel.json': { op: 'search', results: 4 },
  },
  infoquest: {
    'search-web-mock.json': { op: 'search', results: 1 },
    'search-images-mock.json': { op: 'images', results: 1 },
    'reader-mock.json': { op: 'skip', reason: NOT_SEARCH },
  },
  jina: {
    'search-jina-ai-playground.json': { op: 'search', results: 5 },
    'reader-example-com.json': { op: 'skip', reason: NOT_SEARCH },
  },
  kagi: {
    'search-v1-steve-jobs-doc-example.json': { op: 'search', results: 1 },
    'search-v0-steve-jobs-doc-example.json': { op: 'search', results: 20, settings: { apiVersion: 'v0' } },
    'search-v1-401-doc-example.json': { op: 'search', code: 'HTTP_STATUS', reason: 'invalid-key' },
  },
  searxng: {
    // 30 results, at most 20 per request.
    'search-python-format-json.json': { op: 'search', results: 20 },
  },
  serpapi: {
    'google-search-unix-bell-labs.json': { op: 'search', results: 10 },
    'error-invalid-key.json': { op: 'search', code: 'HTTP_STATUS', reason: 'invalid-key' },
    'account-doc-example.json': { op: 'quota', remaining: 5958, limit: 30000 },
  },
  serper: {
    'search-apple-inc.json': { op: 'search', results: 8 },
    'images-lion.json': { op: 'images', results: 10 },
    'error-403-unauthorized.json': { op: 'search', code: 'HTTP_STATUS', reason: 'invalid-key' },
  },
  tavily: {
    'search-euro-2024-wikipedia-only.json': { op: 'search', results: 5 },
    'search-what-is-semantic-kernel-answer-images-raw.json': { op: 'search', results: 4 },
    'error-401-doc-example.json': { op: 'search', code: 'HTTP_STATUS', reason: 'invalid-key' },
    'error-429-doc-example.json': { op: 'search', code: 'RATE_LIMITED', reason: 'rate-limited' },
    'usage-doc-example.json': { op: 'quota', remaining: 850, limit: 1000 },
    'extract-theoretical-physics-advanced.json': { op: 'skip', reason: NOT_SEARCH },
  },
};

/** The same SK capture also carries Tavily's images (with descriptions): replay it through searchImages too. */
const EXTRA: Array<{ id: string; file: string; replay: Replay }> = [
  {
    id: 'tavily',
    file: 'search-what-is-semantic-kernel-answer-images-raw.json',
    replay: { op: 'images', results: 5 },
  },
];

const BASE_SETTINGS: Record<string, ProviderSettings> = {
  'google-cse': { cx: 'fixture-engine-id' },
};

interface Recorded {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

function readRecorded(directory: URL, file: string): Recorded {
  const meta = JSON.parse(readFileSync(new URL(file.replace(/\.json$/, '.meta.json'), directory), 'utf8'));
  const headers: Record<string, string> = {};
  for (const [name, value] of (meta.response?.headers ?? []) as [string, string][]) {
    if (/^(?:content-type|retry-after|x-ratelimit-.*)$/i.test(name)) headers[name.toLowerCase()] = value;
  }
  return { status: meta.response?.status ?? 200, headers, body: readFileSync(new URL(file, directory)) };
}

async function replay(provider: SearchProvider, recorded: Recorded, plan: Exclude<Replay, { op: 'skip' }>) {
  const server = await startProviderStandIn(() => ({
    status: recorded.status,
    headers: recorded.headers,
    body: recorded.body.toString('utf8'),
  }));
  try {
    const settings = {
      apiKey: 'fixture-key',
      ...BASE_SETTINGS[provider.id],
      ...('settings' in plan ? plan.settings : {}),
    };
    const context = standInContext(server, settings);
    if (plan.op === 'quota') {
      assert.ok(provider.quota, `${provider.id} has no quota()`);
      const quota = await provider.quota(context);
      assert.equal(quota.remaining, plan.remaining);
      assert.equal(quota.limit, plan.limit);
      return;
    }
    const run = () => {
      if (plan.op === 'images') {
        assert.ok(provider.searchImages, `${provider.id} has no searchImages()`);
        return provider.searchImages({ query: 'fixture', count: 20 }, context);
      }
      assert.ok(provider.search, `${provider.id} has no search()`);
      return provider.search({ query: 'fixture', count: 20 }, context);
    };
    if ('code' in plan) {
      await expectProviderError(run(), {
        code: plan.code,
        status: recorded.status,
        message: [provider.id],
        ...(plan.reason === undefined ? {} : { reason: plan.reason }),
      });
      return;
    }
    const response = await run();
    assert.equal(response.results.length, plan.results);
    for (const result of response.results) {
      const url = 'url' in result ? result.url : result.imageUrl;
      assert.match(url, /^https?:\/\//, `${provider.id}: ${url}`);
      if ('url' in result) {
        assert.notEqual(result.title.trim(), '');
        assert.ok(!/<\/?[a-z][^>]*>/i.test(`${result.title} ${result.snippet}`), result.snippet);
      }
    }
    const [first] = response.results;
    assert.ok(first);
    assert.notEqual('url' in first ? first.url : first.imageUrl, '');
  } finally {
    await server.close();
  }
}

if (!existsSync(fileURLToPath(ROOT))) {
  test('recorded provider fixtures', {
    skip: `${fileURLToPath(ROOT)} is absent (as on a user's clone): nothing to replay`,
  }, () => {});
} else {
  for (const id of readdirSync(ROOT).sort()) {
    const directory = new URL(`${id}/`, ROOT);
    if (!existsSync(fileURLToPath(directory)) || id.includes('.')) continue;
    describe(`fixtures: ${id}`, () => {
      if (NOT_HERE[id] !== undefined) {
        test(`${id}`, { skip: NOT_HERE[id] }, () => {});
        return;
      }
      const provider = BUILT_IN_PROVIDERS.get(id);
      test('has a provider', () => assert.ok(provider, `no provider registered for fixtures/${id}`));
      const files = readdirSync(directory).filter(
        (file) => file.endsWith('.json') && !file.endsWith('.meta.json'),
      );
      const entries = [
        ...files.map((file) => ({ file, replay: PLAN[id]?.[file] })),
        ...EXTRA.filter((extra) => extra.id === id).map((extra) => ({
          file: extra.file,
          replay: extra.replay,
        })),
      ];
      for (const { file, replay: plan } of entries) {
        const name = `${file}${plan && plan.op !== 'skip' ? ` → ${plan.op}` : ''}`;
        if (plan?.op === 'skip') {
          test(name, { skip: plan.reason }, () => {});
          continue;
        }
        test(name, async () => {
          assert.ok(plan, `fixtures/${id}/${file} has no replay plan: add it to PLAN`);
          assert.ok(provider);
          await replay(provider, readRecorded(directory, file), plan);
        });
      }
    });
  }
}
