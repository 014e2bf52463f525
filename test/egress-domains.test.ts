// The egress domain policy (issue 17) end to end, on servers on 127.0.0.1: host names under `.test` are mapped to
// 127.0.0.1 by the injected resolver, so each "site" is the same server under another name, and what reached it
// is in its recorded calls. A refusal is POLICY_DENIED `domain`: nothing sent, nothing charged.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ToolErrorData } from '../src/errors.ts';
import { createPeriscope, type PeriscopeConfigInput } from '../src/index.ts';
import { createApiKey } from '../src/keys/api-keys.ts';
import type { LookupFunction } from '../src/net/types.ts';
import { createMemoryStore } from '../src/store/memory-store.ts';
import { createGateway } from '../src/surfaces/gateway/gateway.ts';
import { mountMcp } from '../src/surfaces/gateway/mount-mcp.ts';
import { httpCall } from '../src/testing/http-call.ts';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import type { WebSearchData } from '../src/tools/web-search.ts';

const PAGE = `<!doctype html><html><head><title>Tides</title></head><body><main><h1>Tides</h1>${'<p>High tide at Brest is at 06:12 and 18:40 today; the coefficient is 95, a spring tide.</p>'.repeat(6)}</main></body></html>`;

let site: TestServer;
before(async () => {
  site = await startTestServer({
    '/page': (_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE),
    '/to-blocked': (_request, response) =>
      response.writeHead(302, { location: `http://blocked.test:${site.port}/page` }).end(),
    '/to-mid': (_request, response) =>
      response.writeHead(301, { location: `http://mid.test:${site.port}/to-blocked` }).end(),
  });
});
after(() => site.close());

/** Every `.test` name is 127.0.0.1; anything else does not exist (no query ever leaves). */
const lookup: LookupFunction = async (hostname) => {
  if (hostname.endsWith('.test')) return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`${hostname} not found`), { code: 'ENOTFOUND' });
};

const BASE = {
  network: { allowPrivateNetwork: ['127.0.0.1/32'] },
  fetch: { robots: 'ignore', chain: ['local'] },
} satisfies PeriscopeConfigInput;
const CREDITS = { limits: { credits: { enabled: true } } } satisfies PeriscopeConfigInput;

function open(egress: PeriscopeConfigInput['egress'], extra: PeriscopeConfigInput = {}) {
  return createPeriscope({ ...BASE, ...extra, egress }, { env: {}, lookup });
}

function errorOf(result: { data?: unknown }): ToolErrorData | undefined {
  return (result.data as { error?: ToolErrorData } | undefined)?.error;
}

/** The paths of the requests that reached the site under `host`, since `from`. */
function reached(host: string, from = 0): string[] {
  return site.calls
    .slice(from)
    .filter((call) => call.headers.host?.startsWith(`${host}:`))
    .map((call) => call.url.pathname);
}

describe('web_fetch', () => {
  test('a blocked domain is refused before anything is sent, and costs nothing', async () => {
    const periscope = open({ domains: { block: ['blocked.test'] } }, CREDITS);
    try {
      await periscope.credits.grant('agent', 10);
      const calls = site.calls.length;
      for (const host of ['blocked.test', 'www.blocked.test', 'BLOCKED.test.']) {
        const result = await periscope.fetch(
          { url: `http://${host}:${site.port}/page` },
          { agentId: 'agent' },
        );
        const error = errorOf(result);
        assert.equal(error?.code, 'POLICY_DENIED', result.output);
        assert.equal(error?.retryable, false);
        assert.equal(error?.details?.reason, 'domain');
        assert.match(
          error?.message ?? '',
          /web_fetch .*blocked\.test was refused: the deployment blocks blocked\.test/,
        );
        assert.match(
          result.output,
          /^This deployment does not let you reach that domain; retrying will not help/,
        );
      }
      assert.equal(site.calls.length, calls, 'no request reached the site');
      assert.equal(await periscope.credits.balance('agent'), 10, 'nothing charged');
      const fine = await periscope.fetch({ url: `http://fine.test:${site.port}/page` }, { agentId: 'agent' });
      assert.equal(fine.isError, false, fine.output);
    } finally {
      await periscope.close();
    }
  });

  test('a non-empty allow list means nothing else: subdomains, *. and = forms, IDN either way', async () => {
    const periscope = open({
      domains: { allow: ['docs.test', '*.wiki.test', '=www.exact.test', 'bücher.test'] },
    });
    try {
      const verdicts: Record<string, string> = {};
      for (const host of [
        'docs.test',
        'api.docs.test',
        'wiki.test',
        'en.wiki.test',
        'www.exact.test',
        'exact.test',
        'other.test',
        'xn--bcher-kva.test',
        'shop.bücher.test',
      ]) {
        const result = await periscope.fetch({ url: `http://${host}:${site.port}/page` });
        verdicts[host] = result.isError ? (errorOf(result)?.code ?? 'error') : 'ok';
      }
      assert.deepEqual(verdicts, {
        'docs.test': 'ok',
        'api.docs.test': 'ok',
        'wiki.test': 'POLICY_DENIED',
        'en.wiki.test': 'ok',
        'www.exact.test': 'ok',
        'exact.test': 'POLICY_DENIED',
        'other.test': 'POLICY_DENIED',
        'xn--bcher-kva.test': 'ok',
        'shop.bücher.test': 'ok',
      });
      const refused = await periscope.fetch({ url: `http://other.test:${site.port}/page` });
      assert.match(errorOf(refused)?.message ?? '', /the deployment allows only docs\.test, \*\.wiki\.test/);
    } finally {
      await periscope.close();
    }
  });

  test('a redirect into a blocked domain is refused at that hop: the blocked site never sees a request', async () => {
    const periscope = open({ domains: { block: ['blocked.test'] } }, CREDITS);
    try {
      await periscope.credits.grant('agent', 10);
      for (const [path, from] of [
        ['/to-blocked', 'start.test'],
        ['/to-mid', 'mid.test'],
      ] as const) {
        const calls = site.calls.length;
        const result = await periscope.fetch(
          { url: `http://start.test:${site.port}${path}` },
          { agentId: 'agent' },
        );
        const error = errorOf(result);
        assert.equal(error?.code, 'POLICY_DENIED', result.output);
        assert.match(
          error?.message ?? '',
          /the redirect to blocked\.test was refused: the deployment blocks/,
        );
        assert.match(String(error?.details?.redirectFrom), new RegExp(from.replace('.', '\\.')));
        assert.deepEqual(reached('blocked.test', calls), []);
      }
      assert.equal(await periscope.credits.balance('agent'), 10, 'refused mid-call, refunded');
    } finally {
      await periscope.close();
    }
  });

  test("a caller's domains (an API key's, a program's) narrow the deployment's and never widen them", async () => {
    const periscope = open({ domains: { allow: ['ok.test', 'also.test'] } });
    try {
      const fetchAs = (host: string, domains: { allow?: string[]; block?: string[] }) =>
        periscope.fetch({ url: `http://${host}:${site.port}/page` }, { egress: { domains } });
      // Widening: the key lists a domain the deployment does not allow; the deployment still refuses it.
      const widened = await fetchAs('wide.test', { allow: ['ok.test', 'wide.test'] });
      assert.match(errorOf(widened)?.message ?? '', /the deployment allows only ok\.test, also\.test/);
      // Narrowing: the key allows one of the two, or blocks one.
      const narrowed = await fetchAs('also.test', { allow: ['ok.test'] });
      assert.match(errorOf(narrowed)?.message ?? '', /this API key allows only ok\.test/);
      const blocked = await fetchAs('ok.test', { block: ['ok.test'] });
      assert.match(errorOf(blocked)?.message ?? '', /this API key blocks ok\.test/);
      assert.equal((await fetchAs('ok.test', { allow: ['ok.test'] })).isError, false);
      // A malformed caller pattern is the caller's mistake, said so.
      const malformed = await fetchAs('ok.test', { allow: ['https://ok.test/'] });
      assert.equal(errorOf(malformed)?.code, 'INVALID_INPUT');
    } finally {
      await periscope.close();
    }
  });

  test('a cached page that was redirected is not handed to a caller who may not go where it went', async () => {
    const periscope = open({}, { cache: { enabled: true } });
    try {
      const url = `http://start.test:${site.port}/to-blocked`;
      const first = await periscope.fetch({ url });
      assert.equal(first.isError, false, first.output);
      const calls = site.calls.length;
      const narrowed = await periscope.fetch({ url }, { egress: { domains: { block: ['blocked.test'] } } });
      assert.equal(errorOf(narrowed)?.code, 'POLICY_DENIED', narrowed.output);
      assert.equal(site.calls.length, calls);
    } finally {
      await periscope.close();
    }
  });
});

describe('API keys', () => {
  test('keys create --allow-domain / the admin API keep the key narrower, and the gateway applies it', async () => {
    const store = createMemoryStore();
    const periscope = createPeriscope(
      { ...BASE, egress: { domains: { block: ['blocked.test'] } }, gateway: { port: 0 } },
      { store, lookup, env: {} },
    );
    const gateway = createGateway({ periscope, mcp: mountMcp, version: '0.0.0-test' });
    try {
      const admin = (await createApiKey(store, { agent: 'ops', admin: true })).key;
      const { url } = await gateway.listen();
      const headers = (key: string) => ({
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
      });
      const made = await httpCall(`${url}/v1/admin/keys`, {
        headers: headers(admin),
        body: JSON.stringify({ agent: 'bot', allowDomains: ['Docs.test'], blockDomains: ['*.docs.test'] }),
      });
      assert.equal(made.status, 201, made.text);
      const created = made.json as { key: string; record: { domains: unknown } };
      assert.deepEqual(created.record.domains, { allow: ['docs.test'], block: ['*.docs.test'] });
      const bad = await httpCall(`${url}/v1/admin/keys`, {
        headers: headers(admin),
        body: JSON.stringify({ agent: 'bot', allowDomains: ['docs.test/path'] }),
      });
      assert.equal(bad.status, 400, bad.text);
      const fetchWith = async (key: string, host: string) => {
        const response = await httpCall(`${url}/v1/tools/web_fetch`, {
          headers: headers(key),
          body: JSON.stringify({ url: `http://${host}:${site.port}/page` }),
        });
        return errorOf(response.json as { data?: unknown })?.message ?? 'ok';
      };
      assert.equal(await fetchWith(created.key, 'docs.test'), 'ok');
      assert.match(await fetchWith(created.key, 'api.docs.test'), /this API key blocks \*\.docs\.test/);
      assert.match(await fetchWith(created.key, 'other.test'), /this API key allows only docs\.test/);
      assert.equal(await fetchWith(admin, 'other.test'), 'ok', 'another key is not narrowed');
      assert.match(await fetchWith(admin, 'blocked.test'), /the deployment blocks/);
      // The same key over MCP: its session runs under the key's domains.
      const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
      const { StreamableHTTPClientTransport } = await import(
        '@modelcontextprotocol/sdk/client/streamableHttp.js'
      );
      const client = new Client({ name: 'egress-test', version: '1.0.0' });
      try {
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${created.key}` } },
          }),
        );
        const call = async (host: string) =>
          (await client.callTool({
            name: 'web_fetch',
            arguments: { url: `http://${host}:${site.port}/page` },
          })) as {
            isError?: boolean;
            content: Array<{ text?: string }>;
          };
        assert.notEqual((await call('docs.test')).isError, true);
        const refused = await call('other.test');
        assert.equal(refused.isError, true);
        assert.match(refused.content[0]?.text ?? '', /this API key allows only docs\.test/);
      } finally {
        await client.close();
      }
    } finally {
      await gateway.close();
      await periscope.close();
      await store.close();
    }
  });
});

describe('web_search and image_search', () => {
  let provider: TestServer;
  const answers = {
    results: [
      { title: 'Docs', url: 'https://docs.test/a', content: 'docs' },
      { title: 'API docs', url: 'https://api.docs.test/b', content: 'api docs' },
      { title: 'Blog', url: 'https://blog.test/c', content: 'blog' },
      { title: 'Ads', url: 'https://ads.docs.test/d', content: 'ads' },
    ],
  };
  before(async () => {
    provider = await startTestServer((request, response) => {
      const body = request.url?.startsWith('/res/v1/web/search')
        ? {
            web: {
              results: answers.results.map((item) => ({ ...item, description: item.content })),
            },
          }
        : answers;
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  after(() => provider.close());

  const searchWith = (chain: string, egress: PeriscopeConfigInput['egress'] = {}) =>
    createPeriscope(
      {
        ...BASE,
        egress,
        search: { chain: [chain] },
        providers: {
          tavily: { apiKey: 'tvly-test', baseUrl: provider.url },
          brave: { apiKey: 'brave-test', baseUrl: provider.url },
          searxng: { baseUrl: provider.url },
        },
      },
      { env: {}, lookup },
    );
  const urls = (result: { data?: unknown }) => (result.data as WebSearchData).results.map((item) => item.url);

  test('Tavily is asked with include_domains / exclude_domains, and results are filtered too', async () => {
    const periscope = searchWith('tavily', { domains: { allow: ['docs.test', 'blog.test'] } });
    try {
      const calls = provider.calls.length;
      const result = await periscope.search({
        query: 'tides',
        blockedDomains: ['ads.docs.test', '=blog.test'],
      });
      assert.equal(result.isError, false, result.output);
      const sent = JSON.parse(provider.calls[calls]?.body ?? '{}') as Record<string, unknown>;
      assert.deepEqual(sent.include_domains, ['docs.test', 'blog.test']);
      // `=blog.test` blocks one host only; leaving out all of blog.test would lose what the rules keep.
      assert.deepEqual(sent.exclude_domains, ['ads.docs.test']);
      assert.deepEqual(urls(result), ['https://docs.test/a', 'https://api.docs.test/b']);
      const warnings = (result.data as WebSearchData).warnings;
      assert.match(warnings.join('\n'), /tavily returned 2 of 4 results outside the allowed domains/);
    } finally {
      await periscope.close();
    }
  });

  test('Brave gets site: operators in its query; SearXNG, which cannot filter, is post-filtered with a warning', async () => {
    const brave = searchWith('brave');
    const searxng = searchWith('searxng');
    try {
      let calls = provider.calls.length;
      const braveResult = await brave.search({
        query: 'tides',
        allowedDomains: ['docs.test', 'blog.test'],
        blockedDomains: ['ads.docs.test'],
      });
      assert.equal(braveResult.isError, false, braveResult.output);
      assert.equal(
        provider.calls[calls]?.url.searchParams.get('q'),
        'tides (site:docs.test OR site:blog.test) -site:ads.docs.test',
      );
      assert.deepEqual(urls(braveResult), [
        'https://docs.test/a',
        'https://api.docs.test/b',
        'https://blog.test/c',
      ]);

      calls = provider.calls.length;
      const result = await searxng.search({ query: 'tides', allowedDomains: ['blog.test'] });
      assert.equal(provider.calls[calls]?.url.searchParams.get('q'), 'tides', 'the query is left as it is');
      assert.deepEqual(urls(result), ['https://blog.test/c']);
      assert.match(
        (result.data as WebSearchData).warnings.join('\n'),
        /searxng cannot filter by domain itself: 3 of 4 results were outside the allowed domains \(only blog\.test\) and were dropped/,
      );
    } finally {
      await Promise.all([brave.close(), searxng.close()]);
    }
  });

  test("a call's domains narrow and never widen: nothing left is refused before the provider is asked", async () => {
    const periscope = searchWith('tavily', { domains: { allow: ['docs.test'] } });
    try {
      const calls = provider.calls.length;
      const widened = await periscope.search({ query: 'tides', allowedDomains: ['blog.test'] });
      const error = errorOf(widened);
      assert.equal(error?.code, 'POLICY_DENIED', widened.output);
      assert.equal(error?.details?.reason, 'domain');
      assert.match(
        error?.message ?? '',
        /no domain left to search: the deployment allows only docs\.test; this call allows only blog\.test/,
      );
      assert.equal(provider.calls.length, calls, 'the provider was not asked');
      // Narrower than the deployment: asked for it, and the apex results dropped.
      const narrowed = await periscope.search({ query: 'tides', allowedDomains: ['*.docs.test'] });
      const sent = JSON.parse(provider.calls.at(-1)?.body ?? '{}') as Record<string, unknown>;
      assert.deepEqual(sent.include_domains, ['docs.test']);
      assert.deepEqual(urls(narrowed), ['https://api.docs.test/b', 'https://ads.docs.test/d']);
      // A malformed pattern is the call's mistake.
      const malformed = await periscope.search({ query: 'tides', allowedDomains: ['https://docs.test/'] });
      assert.equal(errorOf(malformed)?.code, 'INVALID_INPUT');
      assert.match(malformed.output, /allowedDomains\.0: .*not a URL/);
    } finally {
      await periscope.close();
    }
  });

  test('the same query with other domains is another cache entry', async () => {
    const periscope = searchWith('tavily');
    try {
      const all = await periscope.search({ query: 'cached tides' });
      const narrowed = await periscope.search({ query: 'cached tides', allowedDomains: ['blog.test'] });
      assert.deepEqual(urls(narrowed), ['https://blog.test/c']);
      assert.equal(urls(all).length, 4);
    } finally {
      await periscope.close();
    }
  });
});
