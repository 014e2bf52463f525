// `periscope fetch URL URL…`, spawned as a user runs it, and web_fetch with urls over REST: one section (result)
// per URL, in order, one failure kept apart.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createPeriscope } from '../src/index.ts';
import { createApiKey } from '../src/keys/api-keys.ts';
import { createMemoryStore } from '../src/store/memory-store.ts';
import { createGateway } from '../src/surfaces/gateway/gateway.ts';
import { mountMcp } from '../src/surfaces/gateway/mount-mcp.ts';
import { httpCall } from '../src/testing/http-call.ts';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';
import type { WebFetchManyData } from '../src/tools/web-fetch-schema.ts';
import { runCli } from './support/run-cli.ts';

let server: TestServer;
let folder: string;
before(async () => {
  server = await startTestServer({
    '/tides': (_request, response) =>
      response
        .writeHead(200, { 'content-type': 'text/plain; charset=utf-8' })
        .end('High tide at Brest is at 06:12.'),
    '/ships': (_request, response) =>
      response
        .writeHead(200, { 'content-type': 'text/plain; charset=utf-8' })
        .end('Ships dock at the east quay.'),
    '/gone': (_request, response) => response.writeHead(404, { 'content-type': 'text/plain' }).end('no'),
  });
  folder = mkdtempSync(join(tmpdir(), 'periscope-cli-fetch-urls-'));
  writeFileSync(
    join(folder, 'periscope.config.json'),
    JSON.stringify({ network: { allowPrivateNetwork: ['127.0.0.1/32'] } }),
  );
});
after(async () => {
  await server.close();
  rmSync(folder, { recursive: true, force: true });
});

test('periscope fetch URL URL URL prints one section per URL in order; a 404 fails alone', async () => {
  const urls = [`${server.url}/tides`, `${server.url}/gone`, `${server.url}/ships`];
  const run = await runCli(['fetch', ...urls], { cwd: folder });
  assert.equal(run.code, 0, run.stderr);
  const tides = run.stdout.indexOf(`## 1/3 ${urls[0]} (200 text/plain)`);
  const gone = run.stdout.indexOf(`## 2/3 ${urls[1]} (failed: HTTP_STATUS)`);
  const ships = run.stdout.indexOf(`## 3/3 ${urls[2]} (200 text/plain)`);
  assert.ok(tides >= 0 && gone > tides && ships > gone, run.stdout);
  assert.match(run.stdout, /High tide at Brest/);
  assert.match(run.stdout, /Ships dock at the east quay/);
});

test('periscope fetch URL URL --json --query gives data.results with passages', async () => {
  const urls = [`${server.url}/tides`, `${server.url}/ships`];
  const run = await runCli(['fetch', ...urls, '--query', 'high tide Brest', '--json'], { cwd: folder });
  assert.equal(run.code, 0, run.stderr);
  const data = JSON.parse(run.stdout).data as WebFetchManyData;
  assert.deepEqual(data.urls, urls);
  assert.deepEqual(
    data.results.map((item) => item.ok),
    [true, true],
  );
  const [tides] = data.results;
  assert.ok(tides?.ok);
  assert.equal(tides.query, 'high tide Brest');
  assert.match(tides.passages?.[0]?.text ?? '', /High tide at Brest/);
});

test('REST: POST /v1/tools/web_fetch with urls answers one result per URL', async () => {
  const store = createMemoryStore();
  const { key } = await createApiKey(store, { agent: 'rest' });
  const periscope = createPeriscope(
    { gateway: { port: 0 }, network: { allowPrivateNetwork: ['127.0.0.1/32'] } },
    { store },
  );
  const gateway = createGateway({ periscope, mcp: mountMcp, version: '0.0.0-test' });
  try {
    const { url } = await gateway.listen();
    const urls = [`${server.url}/tides`, `${server.url}/gone`];
    const response = await httpCall(`${url}/v1/tools/web_fetch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ urls }),
    });
    assert.equal(response.status, 200, JSON.stringify(response.json));
    const data = (response.json as { data: WebFetchManyData }).data;
    assert.deepEqual(
      data.results.map((item) => [item.url, item.ok]),
      [
        [urls[0], true],
        [urls[1], false],
      ],
    );
  } finally {
    await gateway.close();
    await periscope.close();
    await store.close();
  }
});
