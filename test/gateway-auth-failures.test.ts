// The limit on failed authentications is one count per client IP for every gateway on a store: two gateways (two
// workers of `serve --workers 2`, or two instances) on one SQLite file let an IP fail 10 times a minute in all, not
// 10 times each. The 11th wrong key is 429 whichever of them it reaches, and so is a right key after it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createPeriscope, type Periscope } from '../src/index.ts';
import { createApiKey } from '../src/keys/api-keys.ts';
import { createSqliteStore } from '../src/store/sqlite-store.ts';
import type { Store } from '../src/store/store.ts';
import { createGateway, type Gateway } from '../src/surfaces/gateway/gateway.ts';
import { httpCall } from '../src/testing/http-call.ts';

const folder = mkdtempSync(join(tmpdir(), 'periscope-auth-failures-'));
after(() => rmSync(folder, { recursive: true, force: true }));

interface Instance {
  store: Store;
  periscope: Periscope;
  gateway: Gateway;
  url: string;
}

/** A gateway with its own store object (its own connection) on the SQLite file `path`. */
async function instance(path: string): Promise<Instance> {
  const store = createSqliteStore({ path });
  const periscope = createPeriscope({ gateway: { port: 0 } }, { store, env: {} });
  const gateway = createGateway({ periscope, version: '0.0.0-test' });
  const { url } = await gateway.listen();
  return { store, periscope, gateway, url };
}

async function stop(instances: Instance[]): Promise<void> {
  for (const { gateway, periscope, store } of instances) {
    await gateway.close();
    await periscope.close();
    await store.close();
  }
}

const status = async (url: string, key: string) =>
  httpCall(`${url}/v1/status`, { headers: { authorization: `Bearer ${key}` } });

for (const last of [0, 1]) {
  test(`two gateways on one SQLite file: 10 wrong keys spread over both are 401, the 11th is 429 on gateway ${last === 0 ? 'A' : 'B'} and on the other`, async () => {
    const path = join(folder, `state-${last}.db`);
    const both = [await instance(path), await instance(path)];
    try {
      const [a, b] = both as [Instance, Instance];
      const { key } = await createApiKey(a.store, { agent: 'alice' });
      const wrong = `${key.slice(0, -4)}AAAA`;
      // Spread unevenly, so that neither gateway alone sees 10: 6 on A, 4 on B.
      for (let attempt = 0; attempt < 10; attempt++) {
        const target = attempt % 5 < 3 ? a : b;
        assert.equal((await status(target.url, wrong)).status, 401, `wrong key ${attempt + 1}`);
      }
      const eleventh = await status((both[last] as Instance).url, wrong);
      assert.equal(eleventh.status, 429, eleventh.text);
      const seconds = Number(eleventh.headers['retry-after']);
      assert.ok(seconds >= 1 && seconds <= 61, `Retry-After ${seconds}`);
      assert.match((eleventh.json as { error: { message: string } }).error.message, /try again in \d+ s/);
      for (const other of both) {
        const right = await status(other.url, key);
        assert.equal(right.status, 429, 'a right key from the blocked IP is refused too, on either gateway');
      }
    } finally {
      await stop(both);
    }
  });
}
