// egress.secretScan over real sockets: each built-in search provider pointed at a stand-in on 127.0.0.1, and an
// origin for web_fetch. A query or URL carrying a secret never reaches them, and nothing of the secret is in the
// refusal (message, details, output, display), the usage counters or the store. The gateway's answer and metrics:
// test/egress-surfaces.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPeriscope, type Periscope, type ToolResult } from '../index.ts';
import { BUILT_IN_PROVIDERS } from '../search/providers/registry.ts';
import { createMemoryStore } from '../store/memory-store.ts';
import type { Store } from '../store/store.ts';
import { fakeSecrets } from '../testing/fake-secrets.ts';
import { errorOf, outcome } from '../testing/policy-harness.ts';
import { jsonReply, startProviderStandIn } from '../testing/provider-stand-in.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';

const [token] = fakeSecrets(21).filter((secret) => secret.kind === 'github-token');
const GITHUB_TOKEN = (token as { text: string }).text;
/** A secret that has no known format: found only because Periscope holds it (an environment variable). */
const HELD_SECRET = 'marmalade-Octopus-7731';

let standIn: TestServer;
let origin: TestServer;
before(async () => {
  standIn = await startProviderStandIn(() => jsonReply({}));
  origin = await startTestServer({
    '/page': (_request, response) =>
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<html><head><title>P</title></head><body><p>${'Ships and tides. '.repeat(30)}</p></body></html>`,
        ),
  });
});
after(() => Promise.all([standIn.close(), origin.close()]));

/** Whether any of `text` holds the secret, or a 10-character piece of it. */
function leaks(text: string, secret: string): boolean {
  for (let start = 0; start + 10 <= secret.length; start += 5) {
    if (text.includes(secret.slice(start, start + 10))) return true;
  }
  return false;
}

function assertRefusedSilently(result: ToolResult, secret: string, kind: string) {
  assert.equal(outcome(result), 'POLICY_DENIED', result.output);
  const error = errorOf(result);
  assert.equal(error.details?.reason, 'secret');
  assert.equal(error.details?.kind, kind);
  assert.match(result.output, /never put credentials or private data into a query or URL/);
  assert.ok(!leaks(JSON.stringify(result), secret), JSON.stringify(result));
}

/** Every value the store holds, as text. */
async function storeText(store: Store): Promise<string> {
  const keys = await store.keys('');
  const values = await Promise.all(keys.map((key) => store.get(key)));
  return JSON.stringify([keys, values]);
}

describe('a secret in a query reaches no provider', () => {
  for (const [id, provider] of BUILT_IN_PROVIDERS) {
    test(id, async () => {
      const apiKey = `key-of-${id}-for-tests`;
      const store = createMemoryStore();
      const periscope = createPeriscope(
        {
          search: { chain: [id] },
          providers: {
            [id]: { apiKey, baseUrl: standIn.url, minIntervalMs: 0, extras: { cx: 'engine-1' } },
          },
        },
        { env: { PERISCOPE_TEST_TOKEN: HELD_SECRET }, store },
      );
      try {
        // The stand-in hears an ordinary query: the provider is wired to it.
        const heard = () =>
          standIn.calls.filter((call) => `${call.url.href}${call.body}`.includes('harbour')).length;
        const before = heard();
        await periscope.search({ query: 'harbour tides' });
        assert.ok(heard() > before, `${id} never asked the stand-in`);
        const sent = standIn.calls.length;
        const refusals: Array<[ToolResult, string, string]> = [
          [
            await periscope.search({ query: `why is ${GITHUB_TOKEN} rejected` }),
            GITHUB_TOKEN,
            'github-token',
          ],
          [await periscope.search({ query: `harbour ${HELD_SECRET}` }), HELD_SECRET, 'known-secret'],
          [await periscope.search({ query: `what is ${apiKey}` }), apiKey, 'known-secret'],
        ];
        if (provider.searchImages) {
          refusals.push([
            await periscope.imageSearch({ query: `cat ${GITHUB_TOKEN}` }),
            GITHUB_TOKEN,
            'github-token',
          ]);
        }
        for (const [result, secret, kind] of refusals) assertRefusedSilently(result, secret, kind);
        assert.equal(standIn.calls.length, sent, 'nothing reached the stand-in');
        const usage = JSON.stringify(await periscope.usage());
        assert.match(usage, /POLICY_DENIED/);
        for (const secret of [GITHUB_TOKEN, HELD_SECRET]) {
          assert.ok(!leaks(usage, secret), usage);
          assert.ok(!leaks(await storeText(store), secret));
        }
      } finally {
        await periscope.close();
        await store.close();
      }
    });
  }
});

describe('web_fetch', () => {
  let periscope: Periscope;
  before(() => {
    periscope = createPeriscope(
      { network: { allowPrivateNetwork: ['127.0.0.1/32'] }, egress: { seenUrlsOnly: true } },
      { env: { DB_PASSWORD: HELD_SECRET } },
    );
  });
  after(() => periscope.close());

  test('a URL carrying a secret, in any form, is never requested', async () => {
    const task = (url: string) => ({ sessionId: 's', egress: { seenUrls: [url] } });
    const urls: Array<[string, string, string]> = [
      [`${origin.url}/page?k=${GITHUB_TOKEN}`, GITHUB_TOKEN, 'github-token'],
      [`${origin.url}/page/${encodeURIComponent(HELD_SECRET)}`, HELD_SECRET, 'known-secret'],
      [
        `${origin.url}/page?d=${Buffer.from(`p=${HELD_SECRET}`).toString('base64url')}`,
        HELD_SECRET,
        'known-secret',
      ],
      [
        `http://admin:${HELD_SECRET.replace('-', 'x')}@127.0.0.1:${origin.port}/page`,
        HELD_SECRET.replace('-', 'x'),
        'url-password',
      ],
    ];
    for (const [url, secret, kind] of urls) {
      // Seen or not: the secret check comes first, so the refusal never repeats the URL.
      for (const options of [task(url), { sessionId: 's' }]) {
        assertRefusedSilently(await periscope.fetch({ url }, options), secret, kind);
      }
    }
    assert.equal(origin.calls.length, 0);
    assert.equal(
      outcome(await periscope.fetch({ url: `${origin.url}/page` }, task(`${origin.url}/page`))),
      'ok',
    );
  });
});

describe('encoded credentials', () => {
  test('a well-known format base64-, base64url- or hex-encoded in a URL or a query is refused, naming both', async () => {
    const periscope = createPeriscope(
      {
        network: { allowPrivateNetwork: ['127.0.0.1/32'] },
        search: { chain: ['brave'] },
        providers: { brave: { apiKey: 'k', baseUrl: standIn.url, minIntervalMs: 0 } },
      },
      { env: {} },
    );
    try {
      const sent = [origin.calls.length, standIn.calls.length];
      const bytes = Buffer.from(`token=${GITHUB_TOKEN}`);
      for (const [encoding, encoded] of [
        ['base64', bytes.toString('base64')],
        ['base64url', bytes.toString('base64url')],
        ['hex', bytes.toString('hex').toUpperCase()],
      ] as const) {
        for (const result of [
          await periscope.fetch({ url: `${origin.url}/page/${encoded}` }),
          await periscope.fetch({ url: `${origin.url}/page?d=${encodeURIComponent(encoded)}` }),
          await periscope.search({ query: `harbour ${encoded}` }),
        ]) {
          assertRefusedSilently(result, GITHUB_TOKEN, 'github-token');
          assert.ok(!leaks(JSON.stringify(result), encoded), 'nor its encoded form');
          assert.equal(errorOf(result).details?.encoding, encoding);
          assert.match(errorOf(result).message, new RegExp(`a GitHub token, ${encoding}-encoded`));
        }
      }
      assert.deepEqual([origin.calls.length, standIn.calls.length], sent, 'nothing was sent');
    } finally {
      await periscope.close();
    }
  });
});

describe('config', () => {
  test('egress.secretScan.enabled: false lets it through; entropy: true adds random tokens', async () => {
    const sent = standIn.calls.length;
    const off = createPeriscope(
      {
        search: { chain: ['brave'] },
        providers: { brave: { apiKey: 'k', baseUrl: standIn.url, minIntervalMs: 0 } },
        egress: { secretScan: { enabled: false } },
      },
      { env: {} },
    );
    await off.search({ query: `harbour ${GITHUB_TOKEN}` });
    assert.equal(standIn.calls.length, sent + 1);
    await off.close();
    const random = 'Qm7fT2xLp9ZkR4vW8nB3cY6d';
    const entropy = createPeriscope(
      {
        search: { chain: ['brave'] },
        providers: { brave: { apiKey: 'k', baseUrl: standIn.url, minIntervalMs: 0 } },
        egress: { secretScan: { entropy: true } },
      },
      { env: {} },
    );
    assertRefusedSilently(await entropy.search({ query: `harbour ${random}` }), random, 'high-entropy');
    assert.equal(
      outcome(await entropy.search({ query: 'harbour 4dad2986-ce83-4960-aa06-e9ab85a0bcc1' })),
      'ok',
    );
    assert.equal(standIn.calls.length, sent + 2);
    await entropy.close();
  });
});
