// One limit, one name: `network.totalTimeoutMs` in config is `totalTimeoutMs` in the client and in a TIMEOUT's
// `details.limit`. `network.timeoutMs`, its former name, is still accepted and sets the same limit.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPeriscope } from '../src/index.ts';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';

let server: TestServer;

before(async () => {
  server = await startTestServer({
    '/slow': async (_request, response) => {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<p>late</p>');
    },
  });
});
after(() => server.close());

for (const network of [{ totalTimeoutMs: 300 }, { timeoutMs: 300 }]) {
  test(`network.${Object.keys(network)[0]}: 300 is the limit details.limit names totalTimeoutMs`, async () => {
    const periscope = createPeriscope(
      { network: { allowPrivateNetwork: ['127.0.0.1/32'], ...network }, fetch: { robots: 'ignore' } },
      { env: {} },
    );
    try {
      assert.equal(periscope.config.network.totalTimeoutMs, 300);
      const result = await periscope.fetch({ url: `${server.url}/slow` });
      assert.equal(result.isError, true, result.output);
      const { error } = result.data as { error: { code: string; details: Record<string, unknown> } };
      assert.equal(error.code, 'TIMEOUT');
      assert.equal(error.details.limit, 'totalTimeoutMs');
      assert.equal(error.details.limitValue, 300);
    } finally {
      await periscope.close();
    }
  });
}
