// The SSRF opening is decided in one place (docs/decisions/0012-network-policy.md): createPeriscope builds one
// NetworkPolicy from `config.network`, and the guarded client, the fetch preflight (with the reader skip rule that
// reads its verdict), the image filter and the browser router (which fetches through the client) all use it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPeriscope } from '../src/index.ts';
import { networkPoliciesBuilt } from '../src/net/network-policy.ts';
import type { LookupFunction } from '../src/net/types.ts';
import type { SearchProvider } from '../src/search/types.ts';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import type { WebFetchData } from '../src/tools/web-fetch.ts';
import { shippedSources, withoutComments } from './support/source-scan.ts';

const PAGE = `<!doctype html><html><head><title>Tides</title></head><body><main><h1>Tides</h1>${'<p>High tide at Brest is at 06:12 and 18:40 today; the coefficient is 95, a spring tide.</p>'.repeat(6)}</main></body></html>`;

let origin: TestServer;
let reader: TestServer;

before(async () => {
  origin = await startTestServer({
    '/tides': (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(PAGE);
    },
  });
  reader = await startTestServer(() => {
    throw new Error('an internal URL reached the reader');
  });
});
after(async () => {
  await Promise.all([origin.close(), reader.close()]);
});

/** `intranet.test` is 127.0.0.1: the preflight and the client both resolve through the policy's one resolver. */
function resolver() {
  const asked: string[] = [];
  const lookup: LookupFunction = async (hostname) => {
    asked.push(hostname);
    if (hostname === 'intranet.test') return [{ address: '127.0.0.1', family: 4 }];
    throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  };
  return { lookup, asked };
}

const pictures: SearchProvider = {
  id: 'pictures',
  keyEnv: [],
  minIntervalMs: 0,
  isConfigured: () => true,
  async searchImages() {
    return {
      results: [
        { title: 'opened', imageUrl: 'http://127.0.0.1/opened.png' },
        { title: 'closed', imageUrl: 'http://127.0.0.2/closed.png' },
      ],
      warnings: [],
    };
  },
};

test('createPeriscope builds one network policy, and every part decides with it', async () => {
  const { lookup, asked } = resolver();
  const built = networkPoliciesBuilt();
  const periscope = createPeriscope(
    {
      network: { allowPrivateNetwork: ['127.0.0.1/32'] },
      fetch: {
        chain: ['jina-reader', 'local', 'browser'],
        robots: 'ignore',
        backends: { 'jina-reader': { baseUrl: reader.url, apiKey: 'key' } },
      },
      search: { chain: ['pictures'] },
    },
    { env: {}, lookup, providers: [pictures] },
  );
  try {
    // One instance: the client, the preflight, the search chain and the browser back-end were handed it, not
    // given the settings to build their own (createHttpClient would build one from allowPrivateNetwork).
    assert.equal(networkPoliciesBuilt() - built, 1);

    // The preflight and the client: the name resolves through the one resolver, the opening lets it through,
    // and the reader skip rule keeps the internal URL from the reader.
    const fetched = await periscope.fetch({ url: `http://intranet.test:${origin.port}/tides` });
    assert.equal(fetched.isError, false, fetched.output);
    const data = fetched.data as WebFetchData;
    assert.equal(data.backend, 'local');
    assert.deepEqual(
      data.attempts?.map((attempt) => `${attempt.backend}:${attempt.outcome}`),
      ['jina-reader:skipped', 'local:ok'],
    );
    assert.equal(reader.calls.length, 0);
    assert.deepEqual(asked, ['intranet.test', 'intranet.test'], 'once by the preflight, once by the client');

    // The image filter: the same opening keeps 127.0.0.1 and drops 127.0.0.2.
    const images = await periscope.imageSearch({ query: 'tides', count: 5 });
    assert.equal(images.isError, false, images.output);
    const imageUrls = (images.data as { results: Array<{ imageUrl: string }> }).results.map(
      (result) => result.imageUrl,
    );
    assert.deepEqual(imageUrls, ['http://127.0.0.1/opened.png']);
  } finally {
    await periscope.close();
  }
});

/** The files that call `name(` outside comments (its own definition is no call). */
function callersOf(name: string): string[] {
  const call = new RegExp(`(?<!function )\\b${name}\\(`);
  return shippedSources()
    .filter(({ text }) => call.test(withoutComments(text)))
    .map(({ path }) => path)
    .sort();
}

test('the allow-list is built in one place: createNetworkPolicy', () => {
  assert.deepEqual(callersOf('createAllowList'), ['src/net/network-policy.ts']);
});

test('a network policy is built by createPeriscope, or by a standalone guarded client for itself', () => {
  assert.deepEqual(callersOf('createNetworkPolicy'), ['src/index.ts', 'src/net/http-client.ts']);
  assert.deepEqual(
    callersOf('(?:createDnsServerLookup|createSystemLookup)'),
    ['src/net/network-policy.ts'],
    'the resolver is chosen in one place too',
  );
});
