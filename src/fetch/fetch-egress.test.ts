// The fetch chain under a call's egress check (src/egress/): a reader service is asked only for a URL the domain
// policy allows, and the final URL it reports is checked before its page is used. The reader is a stand-in on
// 127.0.0.1 (a configured endpoint, trusted); the pages it "reads" are names only, never connected to.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createDomainCheck, createDomainPolicy } from '../egress/domain-check.ts';
import { createEgressGate } from '../egress/egress-gate.ts';
import { isPeriscopeError } from '../errors.ts';
import { jsonReply, withStandIn } from '../testing/provider-stand-in.ts';
import { readerContext } from '../testing/reader-suite.ts';
import { egressCall } from '../tools/egress-call.ts';
import { createJinaReaderBackend } from './backends/jina-reader.ts';
import { createFetchChain } from './fetch-chain.ts';

const TEXT = 'High tide at Brest is at 06:12 and 18:40 today; the coefficient is 95, a spring tide. '.repeat(
  8,
);

function chainFor(baseUrl: string) {
  return createFetchChain({
    backends: [createJinaReaderBackend({ baseUrl, apiKey: 'key', headers: {}, timeoutMs: 5_000 })],
    thirdParty: true,
    // Public, as far as this test is concerned: the reader is the only rung.
    preflight: async () => ({ internal: undefined }),
  });
}

const gate = createEgressGate([
  createDomainCheck(
    createDomainPolicy({ allow: ['tides.example'], block: ['ads.tides.example'], assets: [] }),
  ),
]);
const egressOf = (url: string) => gate.requestCheck(egressCall('web_fetch', { url }, {}));

test('a reader is never handed a URL the domain policy refuses', async () => {
  await withStandIn(
    jsonReply({ code: 200, data: { url: 'https://tides.example/', content: TEXT } }),
    async (reader) => {
      const chain = chainFor(reader.url);
      const url = new URL('https://ads.tides.example/page');
      await assert.rejects(
        chain.fetch({ url, mode: 'markdown', egress: egressOf(url.href) }, readerContext()),
        (error) => {
          assert.ok(isPeriscopeError(error));
          assert.equal(error.code, 'POLICY_DENIED');
          assert.match(
            error.message,
            /the reader service for ads\.tides\.example was refused: the deployment blocks/,
          );
          return true;
        },
      );
      assert.equal(reader.calls.length, 0);
      const allowed = new URL('https://tides.example/today');
      const page = await chain.fetch(
        { url: allowed, mode: 'markdown', egress: egressOf(allowed.href) },
        readerContext(),
      );
      assert.equal(reader.calls.length, 1);
      assert.match(page.content.text, /High tide at Brest/);
    },
  );
});

test("a reader's page that ended on a refused domain (its own redirects) is not used", async () => {
  const moved = { code: 200, data: { url: 'https://elsewhere.example/landing', content: TEXT } };
  await withStandIn(jsonReply(moved), async (reader) => {
    const url = new URL('https://tides.example/moved');
    await assert.rejects(
      chainFor(reader.url).fetch({ url, mode: 'markdown', egress: egressOf(url.href) }, readerContext()),
      /the redirect to elsewhere\.example was refused: the deployment allows only tides\.example/,
    );
    assert.equal(reader.calls.length, 1);
  });
});
