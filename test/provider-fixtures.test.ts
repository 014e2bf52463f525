/**
 * Replays every recorded provider body under ../shared/fixtures/providers/<id>/ over a real socket on 127.0.0.1
 * with the real guarded client. Result bodies go through a search chain holding only that provider (the path a
 * tool call takes, so the chain's normalisation — tags and entities, URLs, `publishedAt` as ISO 8601 — is applied),
 * and the first result is compared with values read from the recorded body itself; error and quota bodies go to
 * the provider directly (their code, status and reason). Every file in every folder is accounted for: a body
 * without a plan entry fails, sidecars are checked against their bodies, and the rest is skipped with its reason.
 * Skipped, with the reason, when ../shared is absent (a user's clone).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseHTML } from 'linkedom';
import { providersSchema, searchSchema } from '../src/config/search-schema.ts';
import type { ErrorCode, ErrorReason } from '../src/errors.ts';
import { createHttpClient } from '../src/net/http-client.ts';
import { createSearchChain } from '../src/search/chain.ts';
import type { ImageResultFields } from '../src/search/provider-results.ts';
import { BUILT_IN_PROVIDERS } from '../src/search/providers/registry.ts';
import type { ImageResult, ProviderSettings, SearchProvider, SearchResult } from '../src/search/types.ts';
import { createLoopbackConnectGuard } from '../src/testing/connect-guard.ts';
import { expectProviderError, standInContext, withStandIn } from '../src/testing/provider-stand-in.ts';

const ROOT = new URL('../../shared/fixtures/providers/', import.meta.url);
/** Folders whose bodies are not replayed here: each of their files is listed as skipped, with this reason. */
const NOT_HERE: Record<string, string> = {
  duckduckgo:
    'left to src/search/providers/duckduckgo.replay.test.ts, which replays it or skips it with its reason (HTML pages and the vqd flow need their own stand-in)',
  bing: 'Bing Web Search was retired on 2025-08-11; Periscope has no Bing provider',
};
const NOT_SEARCH = 'a reader/extract body (web_fetch back-end material), not a search-provider operation';
const SIDECAR = /\.meta\.json$/;

type Body = Record<string, unknown>;
/** A web hit in the provider's own field names, mapped as FORMATS.md describes. */
interface RawWeb {
  title: unknown;
  url: unknown;
  snippet: unknown;
  date?: unknown;
}
/** An image result's fields as a provider reads them from its body. */
type RawImage = ImageResultFields;

type Replay =
  | { op: 'search'; results: number; raw: (body: Body) => RawWeb[]; settings?: ProviderSettings }
  | { op: 'images'; results: number; raw: (body: Body) => RawImage[]; settings?: ProviderSettings }
  | { op: 'search' | 'images'; code: ErrorCode; reason?: ErrorReason; settings?: ProviderSettings }
  | { op: 'quota'; remaining: number; limit: number }
  | { op: 'skip'; reason: string };

/** The value at `path` (object keys), or undefined. */
function at(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    current = (current as Body)[key];
  }
  return current;
}

/** The objects of the array at `path`. */
function list(value: unknown, ...path: string[]): Body[] {
  const found = at(value, ...path);
  return Array.isArray(found)
    ? found.filter((item): item is Body => typeof item === 'object' && item !== null && !Array.isArray(item))
    : [];
}

const braveWeb = (body: Body) =>
  list(body, 'web', 'results').map((hit) => ({
    title: hit.title,
    url: hit.url,
    snippet: hit.description,
    date: hit.page_age,
  }));
const googleOrganic = (key: string) => (body: Body) =>
  list(body, key).map((hit) => ({ title: hit.title, url: hit.link, snippet: hit.snippet, date: hit.date }));
const tavilyWeb = (body: Body) =>
  list(body, 'results').map((hit) => ({
    title: hit.title,
    url: hit.url,
    snippet: hit.content,
    date: hit.published_date,
  }));

/** One entry per recorded body: what to call, and how the body's fields map to a result. */
const PLAN: Record<string, Record<string, Replay>> = {
  brave: {
    'web-search-what-is-semantic-kernel.json': { op: 'search', results: 10, raw: braveWeb },
    'web-search-python-news-videos.json': { op: 'search', results: 20, raw: braveWeb },
    'images-search-doc-example.json': {
      op: 'images',
      results: 1,
      raw: (body) =>
        list(body, 'results').map((hit) => ({
          title: hit.title,
          imageUrl: at(hit, 'properties', 'url'),
          thumbnailUrl: at(hit, 'thumbnail', 'src'),
          sourceUrl: hit.url,
          width: at(hit, 'properties', 'width'),
          height: at(hit, 'properties', 'height'),
        })),
    },
    'error-422-subscription-token-invalid.json': { op: 'search', code: 'HTTP_STATUS', reason: 'invalid-key' },
    'error-429-rate-limited.json': { op: 'search', code: 'RATE_LIMITED', reason: 'rate-limited' },
    'error-400-option-not-in-plan.json': { op: 'search', code: 'HTTP_STATUS' },
  },
  exa: {
    'search-openapi-example.json': {
      op: 'search',
      results: 1,
      raw: (body) =>
        list(body, 'results').map((hit) => ({
          title: hit.title,
          url: hit.url,
          snippet: (hit.highlights as string[]).join(' … '),
          date: hit.publishedDate,
        })),
    },
    'contents-openapi-example.json': { op: 'skip', reason: NOT_SEARCH },
  },
  firecrawl: {
    'v2-search-firecrawl.json': {
      op: 'search',
      results: 5,
      raw: (body) =>
        list(body, 'data', 'web').map((hit) => ({
          title: hit.title,
          url: hit.url,
          snippet: hit.description,
        })),
    },
    'v2-scrape-firecrawl-dev.json': { op: 'skip', reason: NOT_SEARCH },
  },
  'google-cse': Object.fromEntries(
    [
      ['search-llm.json', 10],
      ['search-what-is-semantic-kernel.json', 4],
    ].map(([file, results]) => [
      file,
      {
        op: 'search',
        results: results as number,
        settings: { cx: 'fixture-engine-id' },
        raw: (body: Body) =>
          list(body, 'items').map((hit) => ({
            title: hit.title,
            url: hit.link,
            snippet: hit.snippet,
            date: list(hit, 'pagemap', 'metatags')
              .map((tags) => tags['article:published_time'])
              .find(Boolean),
          })),
      } satisfies Replay,
    ]),
  ),
  infoquest: {
    'search-web-mock.json': {
      op: 'search',
      results: 1,
      raw: (body) =>
        list(body, 'search_result', 'results').flatMap((entry) =>
          list(entry, 'content', 'results', 'organic').map((hit) => ({
            title: hit.title,
            url: hit.url,
            snippet: hit.desc,
          })),
        ),
    },
    'search-images-mock.json': {
      op: 'images',
      results: 1,
      raw: (body) =>
        list(body, 'search_result', 'results').flatMap((entry) =>
          list(entry, 'content', 'results', 'images_results').map((hit) => ({
            title: hit.title,
            imageUrl: hit.original,
            sourceUrl: hit.url,
          })),
        ),
    },
    'reader-mock.json': { op: 'skip', reason: NOT_SEARCH },
  },
  jina: {
    'search-jina-ai-playground.json': {
      op: 'search',
      results: 5,
      raw: (body) =>
        list(body, 'data').map((hit) => ({
          title: hit.title,
          url: hit.url,
          snippet: hit.description,
          date: hit.date,
        })),
    },
    'reader-example-com.json': { op: 'skip', reason: NOT_SEARCH },
  },
  kagi: {
    'search-v1-steve-jobs-doc-example.json': {
      op: 'search',
      results: 1,
      raw: (body) =>
        list(body, 'data', 'search').map((hit) => ({
          title: hit.title,
          url: hit.url,
          snippet: hit.snippet,
          date: hit.time,
        })),
    },
    'search-v0-steve-jobs-doc-example.json': {
      op: 'search',
      results: 20,
      settings: { apiVersion: 'v0' },
      // t: 0 is a result, t: 1 related searches.
      raw: (body) =>
        list(body, 'data')
          .filter((hit) => hit.t === 0)
          .map((hit) => ({ title: hit.title, url: hit.url, snippet: hit.snippet, date: hit.published })),
    },
    'search-v1-401-doc-example.json': { op: 'search', code: 'HTTP_STATUS', reason: 'invalid-key' },
  },
  searxng: {
    // 30 results; 20 asked for.
    'search-python-format-json.json': {
      op: 'search',
      results: 20,
      raw: (body) =>
        list(body, 'results').map((hit) => ({
          title: hit.title,
          url: hit.url,
          snippet: hit.content,
          date: hit.publishedDate,
        })),
    },
  },
  serpapi: {
    'google-search-unix-bell-labs.json': { op: 'search', results: 10, raw: googleOrganic('organic_results') },
    'error-invalid-key.json': { op: 'search', code: 'HTTP_STATUS', reason: 'invalid-key' },
    'account-doc-example.json': { op: 'quota', remaining: 5958, limit: 30000 },
  },
  serper: {
    'search-apple-inc.json': { op: 'search', results: 8, raw: googleOrganic('organic') },
    'images-lion.json': {
      op: 'images',
      results: 10,
      raw: (body) =>
        list(body, 'images').map((hit) => ({
          title: hit.title,
          imageUrl: hit.imageUrl,
          thumbnailUrl: hit.thumbnailUrl,
          sourceUrl: hit.link,
          width: hit.imageWidth,
          height: hit.imageHeight,
        })),
    },
    'error-403-unauthorized.json': { op: 'search', code: 'HTTP_STATUS', reason: 'invalid-key' },
  },
  tavily: {
    'search-euro-2024-wikipedia-only.json': { op: 'search', results: 5, raw: tavilyWeb },
    'search-what-is-semantic-kernel-answer-images-raw.json': { op: 'search', results: 4, raw: tavilyWeb },
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
    replay: {
      op: 'images',
      results: 5,
      raw: (body) => list(body, 'images').map((image) => ({ title: image.description, imageUrl: image.url })),
    },
  },
];

interface Recorded {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** `name.json` / `name.js` / `name.html` → `name.meta.json`. */
function sidecarOf(file: string): string {
  return file.replace(/\.[^.]+$/, '.meta.json');
}

function readRecorded(directory: URL, file: string): Recorded {
  const meta = JSON.parse(readFileSync(new URL(sidecarOf(file), directory), 'utf8'));
  const headers: Record<string, string> = {};
  for (const [name, value] of (meta.response?.headers ?? []) as [string, string][]) {
    if (/^(?:content-type|retry-after|x-ratelimit-.*)$/i.test(name)) headers[name.toLowerCase()] = value;
  }
  return {
    status: meta.response?.status ?? 200,
    headers,
    text: readFileSync(new URL(file, directory), 'utf8'),
  };
}

// ---- The expected values, computed here from the raw fields (not with the code under test). ----

/** Text as a browser shows it: parsed as HTML (tags gone, every entity decoded), whitespace folded. */
function shownText(value: unknown): string {
  if (typeof value !== 'string') return '';
  const { document } = parseHTML(`<!DOCTYPE html><html><body><div>${value}</div></body></html>`);
  return (document.querySelector('div')?.textContent ?? '').replace(/\s+/g, ' ').trim();
}

function href(value: unknown): string | undefined {
  const url = typeof value === 'string' ? URL.parse(value.trim()) : null;
  return url && (url.protocol === 'http:' || url.protocol === 'https:') ? url.href : undefined;
}

const DAY_MS = 86_400_000;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}\.\d{3}Z)?$/;

/** When the raw date says the page is from (ms), read with the platform's own parser or as "N units ago". */
function rawDateMs(value: string): number {
  const ago = /^(\d+) (minute|hour|day|week|month|year)s? ago$/i.exec(value.trim());
  if (ago) {
    const unit = { minute: 60_000, hour: 3_600_000, day: DAY_MS, week: 7 * DAY_MS, month: 30 * DAY_MS }[
      ago[2]!.toLowerCase() as 'day'
    ];
    return Date.now() - Number(ago[1]) * (unit ?? 365 * DAY_MS);
  }
  return Date.parse(value);
}

function checkWeb(results: SearchResult[], raw: RawWeb[], file: string): void {
  const usable = raw.filter((hit) => href(hit.url) !== undefined);
  const first = usable[0];
  assert.ok(first, `${file}: no usable hit in the recorded body`);
  const url = href(first.url) as string;
  assert.deepEqual(
    { title: results[0]?.title, url: results[0]?.url, snippet: results[0]?.snippet },
    { title: shownText(first.title) || url, url, snippet: shownText(first.snippet) },
    `${file}: the first result is the body's first hit`,
  );
  for (const result of results) {
    assert.doesNotMatch(`${result.title} ${result.snippet}`, /<\/?[a-z][^>]*>|&(?:[a-z]+|#x?[0-9a-f]+);/i);
  }
  const dated = usable.find((hit) => typeof hit.date === 'string' && hit.date !== '');
  if (dated === undefined) {
    assert.ok(
      results.every((result) => result.publishedAt === undefined),
      `${file}: no date in the body, none made up`,
    );
    return;
  }
  const match = results.find((result) => result.url === href(dated.url));
  assert.ok(match, `${file}: the first dated hit (${String(dated.url)}) is in the results`);
  const publishedAt = match.publishedAt ?? '';
  assert.match(publishedAt, ISO_8601, `${file}: ${String(dated.date)} → ${publishedAt}`);
  const expected = rawDateMs(dated.date as string);
  assert.ok(
    Math.abs(Date.parse(publishedAt) - expected) <= 1.5 * DAY_MS,
    `${file}: publishedAt ${publishedAt} does not say ${String(dated.date)}`,
  );
}

function checkImages(results: ImageResult[], raw: RawImage[], file: string): void {
  const first = raw.find((hit) => href(hit.imageUrl) !== undefined);
  assert.ok(first, `${file}: no usable image in the recorded body`);
  const expected: ImageResult = { title: shownText(first.title), imageUrl: href(first.imageUrl) as string };
  if (href(first.thumbnailUrl)) expected.thumbnailUrl = href(first.thumbnailUrl);
  if (href(first.sourceUrl)) expected.sourceUrl = href(first.sourceUrl);
  if (typeof first.width === 'number' && first.width > 0) expected.width = first.width;
  if (typeof first.height === 'number' && first.height > 0) expected.height = first.height;
  assert.deepEqual(results[0], expected, `${file}: the first result is the body's first image`);
  for (const result of results) assert.match(result.imageUrl, /^https?:\/\//);
}

// ---- Replaying. ----

async function withReplay(recorded: Recorded, run: (baseUrl: string) => Promise<void>): Promise<void> {
  const reply = {
    status: recorded.status,
    headers: recorded.headers,
    body: recorded.text,
  };
  await withStandIn(reply, async (server) => {
    await run(server.url);
  });
}

/** A chain holding only this provider, pointed at the replaying stand-in. */
function singleProviderChain(provider: SearchProvider, baseUrl: string, extras: ProviderSettings) {
  return createSearchChain({
    search: searchSchema.parse({ chain: [provider.id], timeoutMs: 5000 }),
    providers: providersSchema.parse({
      [provider.id]: { apiKey: 'fixture-key', baseUrl, minIntervalMs: 0, extras },
    }),
    env: {},
    httpFetch: createHttpClient({ beforeConnect: createLoopbackConnectGuard().beforeConnect }),
  });
}

async function replay(
  provider: SearchProvider,
  recorded: Recorded,
  plan: Exclude<Replay, { op: 'skip' }>,
  file: string,
) {
  await withReplay(recorded, async (baseUrl) => {
    if (plan.op === 'quota') {
      assert.ok(provider.quota, `${provider.id} has no quota()`);
      const quota = await provider.quota(standInContext({ url: baseUrl }, { apiKey: 'fixture-key' }));
      assert.equal(quota.remaining, plan.remaining);
      assert.equal(quota.limit, plan.limit);
      return;
    }
    const settings = 'settings' in plan ? (plan.settings ?? {}) : {};
    if ('code' in plan) {
      const context = standInContext({ url: baseUrl }, { apiKey: 'fixture-key', ...settings });
      const call =
        plan.op === 'images'
          ? provider.searchImages?.({ query: 'fixture', count: 20 }, context)
          : provider.search?.({ query: 'fixture', count: 20 }, context);
      assert.ok(call, `${provider.id} has no ${plan.op} operation`);
      await expectProviderError(call, {
        code: plan.code,
        status: recorded.status,
        message: [provider.id],
        ...(plan.reason === undefined ? {} : { reason: plan.reason }),
      });
      return;
    }
    const chain = singleProviderChain(provider, baseUrl, settings);
    const body = JSON.parse(recorded.text) as Body;
    if (plan.op === 'images') {
      const answer = await chain.searchImages({ query: 'fixture', count: 20 });
      assert.equal(answer.provider, provider.id);
      assert.equal(answer.results.length, plan.results);
      checkImages(answer.results, plan.raw(body), file);
      return;
    }
    const answer = await chain.search({ query: 'fixture', count: 20 });
    assert.equal(answer.provider, provider.id);
    assert.equal(answer.results.length, plan.results);
    checkWeb(answer.results, plan.raw(body), file);
  });
}

const rootPath = fileURLToPath(ROOT);
if (!existsSync(rootPath)) {
  test('recorded provider fixtures', {
    skip: `${rootPath} is absent (as on a user's clone, where ../shared is not checked out): nothing to replay`,
  }, () => {});
} else {
  for (const name of readdirSync(rootPath).sort()) {
    if (!statSync(new URL(name, ROOT)).isDirectory()) {
      test(`fixtures/${name}`, {
        skip: 'documentation of the recorded fixtures, not a response body',
      }, () => {});
      continue;
    }
    const id = name;
    const directory = new URL(`${id}/`, ROOT);
    const files = readdirSync(directory).sort();
    const bodies = files.filter((file) => !SIDECAR.test(file));
    describe(`fixtures: ${id}`, () => {
      test('every body has its .meta.json sidecar, and every sidecar its body', () => {
        assert.deepEqual(
          files.filter((file) => SIDECAR.test(file)),
          bodies.map(sidecarOf).sort(),
        );
      });
      const skipAll = NOT_HERE[id];
      if (skipAll !== undefined) {
        for (const file of bodies) test(file, { skip: skipAll }, () => {});
        return;
      }
      const provider = BUILT_IN_PROVIDERS.get(id);
      test('has a provider', () => assert.ok(provider, `no provider registered for fixtures/${id}`));
      const entries = [
        ...bodies.map((file) => ({ file, replay: PLAN[id]?.[file] })),
        ...EXTRA.filter((extra) => extra.id === id).map(({ file, replay }) => ({ file, replay })),
      ];
      for (const { file, replay: plan } of entries) {
        const label = `${file}${plan && plan.op !== 'skip' ? ` → ${plan.op}` : ''}`;
        if (plan?.op === 'skip') {
          test(label, { skip: plan.reason }, () => {});
          continue;
        }
        test(label, async () => {
          assert.ok(plan, `fixtures/${id}/${file} has no replay plan: add it to PLAN`);
          assert.ok(provider);
          await replay(provider, readRecorded(directory, file), plan, file);
        });
      }
    });
  }
}
